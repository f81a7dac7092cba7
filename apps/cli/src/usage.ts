/**
 * Exit codes (documented in `docs/cli.md`). `hungUp`, `interrupted` and `terminated` are for a
 * command that cleans up after SIGHUP, SIGINT or SIGTERM: 128 + the signal's number, as a shell
 * reports a process it killed.
 *
 * @example
 * if ((await main(argv)) === EXIT.refused) console.error('The person declined or cancelled.');
 */
export const EXIT = {
  ok: 0,
  toolError: 1,
  usage: 2,
  refused: 3,
  hungUp: 129,
  interrupted: 130,
  terminated: 143,
} as const;

/** A mistake on the command line: printed with the usage, exit code 2. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

/**
 * Refuses a flag given an empty or blank value (`--max-sessions ''`, `--data "$DIR"` with DIR
 * unset): no flag of any command takes one, and read as not given it would run with the default
 * the person meant to replace. Called on every command's parsed values, before anything else.
 *
 * @example
 * refuseEmptyValues({ data: '' }) // throws UsageError('--data needs a value, not an empty one')
 */
export function refuseEmptyValues(values: Record<string, unknown>): void {
  for (const [name, value] of Object.entries(values))
    for (const one of Array.isArray(value) ? value : [value])
      if (typeof one === 'string' && one.trim() === '')
        throw new UsageError(`--${name} needs a value, not an empty one`);
}

/**
 * An option's whole number within `min`…`max` (`fallback` when it is not given), or a usage error
 * naming the flag.
 *
 * @example
 * wholeNumber('--timeout-ms', values['timeout-ms'], 10_000, 100, 3_600_000)
 */
export function wholeNumber(
  flag: string,
  raw: string | undefined,
  fallback: number,
  min: number,
  max = Number.MAX_SAFE_INTEGER,
): number {
  if (raw === undefined) return fallback;
  const n = Number(raw);
  if (!/^\d+$/.test(raw) || n < min || n > max)
    throw new UsageError(`${flag} needs a whole number from ${min} to ${max}, not "${raw}"`);
  return n;
}

export const USAGE = `Usage: elicitkit <command> [options]

Commands:
  serve [--stdio | --http PORT [--host H]] [--data DIR] [--user NAME] [--lang en|zh] [--page-port PORT]
        [--timeout-ms N] [--reset [--yes]] [--max-sessions N] [--max-sessions-per-user N] [--max-calls-per-user N]
        [--database URL] [--redis URL [--relay-listen HOST:PORT [--relay-advertise HOST:PORT]]]
        [--state-secret-file FILE] [--new-tokens]
                              run opsdesk, the reference server (stdio by default); the caps apply
                              to 2025 HTTP sessions (defaults 1000, 100 and 100). --database (or
                              ELICITKIT_DATABASE_URL) keeps its state in Postgres instead of SQLite.
                              --redis (or ELICITKIT_REDIS_URL) runs it as one of several replicas:
                              2025 sessions are found through Redis, claims stay with opsdesk's
                              state; every replica needs the same --database, the same --data DIR,
                              or the same key (ELICITKIT_STATE_SECRET or the file)
  reset [--data DIR] [--database URL] [--yes]
                              put opsdesk's demo (shop, deployments, workspace) back to its seed,
                              after asking y/N (--yes without a terminal); users and tokens are kept
  tools <target> [--header "Name: value" ...] [--data DIR] [--revision REV|auto] [--json]
                              list a server's tools
  call <target> <tool> [k=v ...] [--args JSON] [--answers FILE] [--secrets decline|warn] [--header "Name: value" ...]
       [--data DIR] [--revision REV|auto] [--timeout-ms N] [--json]
                              call a tool, answering elicitations in the terminal or from a file
  doctor <target> [--json] [--fixtures FILE] [--tools a,b] [--skip c] [--allow-destructive] [--yes]
         [--revision REV|auto] [--strict] [--timeout-ms N] [--concurrency N] [--depth N] [--budget N]
         [--clients a,b] [--restart-check] [--header "Name: value" ...]
                              check a server's elicitation behaviour against the rule catalogue
                              (exit 1 on errors; --strict: on warnings too)
  install <claude-code|claude-desktop|cursor|vscode|trae> [--scope project|user] [--name N] [--dry-run] [--url URL | -- command...]
                              add an MCP server (default: opsdesk) to a client's config;
                              --url URL [--header "Name: value" ...] adds a remote (HTTP) server instead
  uninstall <client> [--scope project|user] [--name N] [--dry-run]
                              remove an MCP server from a client's config, keeping the rest of the file
  audit [--data DIR] [--database URL] [--json] [--limit N]
                              print opsdesk's audit trail

<target> is an http(s)://…/mcp URL, the word opsdesk (the bundled server over stdio), or a
command given last after --, e.g.  elicitkit call deploy_service service=order-service -- node server.js

--revision picks the protocol revision the client speaks: 2025-06-18, 2025-11-25, 2026-07-28, or
auto, the newest the server offers (the default; doctor: auto plays every revision). --era
legacy|modern|auto still works as a deprecated name for 2025-11-25, 2026-07-28 and auto.

elicitkit <command> --help (or elicitkit help <command>) shows a command's options.

Exit codes: 0 done, 1 tool error, 2 usage, 3 declined or cancelled.`;

/**
 * A parseArgs error (`ERR_PARSE_ARGS_*`) in our words, or undefined for any other error:
 * `--frobnicate` is an unknown option, not a hint about `--`.
 *
 * @example
 * parseArgsMistake(e) // 'unknown option --frobnicate'
 */
export function parseArgsMistake(error: unknown): string | undefined {
  if (!(error instanceof TypeError) || !('code' in error)) return undefined;
  const code = String(error.code);
  const option = /'(-[^' ]+)/.exec(error.message)?.[1] ?? '';
  switch (code) {
    case 'ERR_PARSE_ARGS_UNKNOWN_OPTION':
      return `unknown option ${option}`;
    case 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE':
      if (/argument missing/.test(error.message)) return `${option} needs a value`;
      // `--budget -1`: parseArgs will not take a value starting with a dash after a space.
      if (/argument is ambiguous/.test(error.message))
        return `${option} needs a value; write one that starts with a dash as ${option}=-…`;
      return `${option} takes no value`;
    case 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL':
      return `unexpected argument ${/'([^']*)'/.exec(error.message)?.[1] ?? ''}`.trim();
    default:
      return code.startsWith('ERR_PARSE_ARGS') ? error.message : undefined;
  }
}
