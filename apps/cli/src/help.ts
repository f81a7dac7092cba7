/**
 * The subcommands of `elicitkit`, in the order the usage lists them: the one list of their names.
 * `COMMAND_USAGE` below and `main.ts`'s `COMMAND_RUNS` are keyed by it, so a command missing from
 * either table, or in one and not here, does not compile.
 */
export const COMMANDS = ['serve', 'reset', 'tools', 'call', 'doctor', 'install', 'uninstall', 'audit'] as const;
export type Command = (typeof COMMANDS)[number];

/** True for a word that names a subcommand. */
export function isCommand(word: string | undefined): word is Command {
  return (COMMANDS as readonly string[]).includes(word ?? '');
}

/** True when `--help` or `-h` comes before any `--` (after it, words belong to the server command). */
export function wantsHelp(argv: readonly string[]): boolean {
  const end = argv.indexOf('--');
  return (end === -1 ? argv : argv.slice(0, end)).some((a) => a === '--help' || a === '-h');
}

const TARGET = `<target> is an http(s)://…/mcp URL (add --header "Authorization: Bearer …"), the word
opsdesk (the bundled server over stdio), or a command given last after --.`;

const CONNECT = `Connecting may take $ELICITKIT_CONNECT_TIMEOUT_MS ms (1000 to 600000, default 30000), the
version probe of --revision auto included.`;

const REVISION = `  --revision REV|auto           the protocol revision the client speaks: 2025-06-18, 2025-11-25,
                                2026-07-28, or auto, the newest the server offers (default)
                                (--era legacy|modern|auto is the deprecated name)`;

/** `elicitkit <command> --help`: one screen per command, kept beside the options it describes. */
export const COMMAND_USAGE = {
  serve: `Usage: elicitkit serve [--stdio | --http PORT] [options]

Runs opsdesk, the reference MCP server (stdio by default). Logs go to stderr.

Options:
  --stdio                       serve on stdin/stdout (the default)
  --http PORT                   serve on http://127.0.0.1:PORT/mcp (0 picks a free port); prints
                                the bearer tokens on the first start
  --new-tokens                  with --http: print a new token for every user, once; the earlier
                                ones (printed by a first start or an earlier --new-tokens) stop working
  --host HOST                   with --http: the address to bind (default 127.0.0.1)
  --data DIR                    the data directory (default $ELICITKIT_DATA, else $XDG_DATA_HOME/elicitkit)
  --user NAME                   with --stdio: who is calling (default the OS user)
  --lang en|zh                  messages, titles and option labels (default from LANG)
  --page-port PORT              with --stdio: the port of the password page (or ELICITKIT_PAGE_PORT;
                                default a free one)
  --timeout-ms N                how long a question waits for its answer (default 600000, ten minutes)
  --max-sessions N              with --http: open 2025 sessions in all (default 1000)
  --max-sessions-per-user N     with --http: open 2025 sessions per user (default 100)
  --max-calls-per-user N        with --http: requests in flight per user, each open question one
                                (default 100)
  --database URL                opsdesk's own state (users, tokens, deployments, audit, claims) in
                                this Postgres database, postgres://user@host:port/db (or
                                $ELICITKIT_DATABASE_URL), instead of SQLite in --data
  --redis URL                   with --http: run as one of several replicas sharing this Redis
                                (or $ELICITKIT_REDIS_URL): 2025 sessions relayed to the replica
                                holding them; claims stay in opsdesk's database with the effects,
                                so replicas share --database (on several hosts) or --data (on one)
  --relay-listen HOST:PORT      with --redis: relay 2025 sessions on direct connections between
                                replicas, this one listening here (port 0: any free one); Redis
                                stays the directory, and the way while a connection is not up
  --relay-advertise HOST:PORT   where the other replicas reach this one (needed when
                                --relay-listen is 0.0.0.0 or ::)
  --state-secret-file FILE      with --http: the key sealing 2026-07-28 state (or
                                $ELICITKIT_STATE_SECRET, ≥ 32 characters), the same on every replica
  --reset                       put the demo back to its seed first (with --stdio, needs --yes)
  --yes                         do not ask before --reset`,
  reset: `Usage: elicitkit reset [--data DIR] [--database URL] [--yes]

Puts opsdesk's demo (shop, deployments, release tickets, workspace, sync state) back to its seed,
after asking y/N. Users and tokens are kept.

Options:
  --data DIR                    the data directory (default $ELICITKIT_DATA, else the default one)
  --database URL                opsdesk's Postgres database, when it runs on one (or
                                $ELICITKIT_DATABASE_URL)
  --yes                         do not ask (needed without a terminal)`,
  tools: `Usage: elicitkit tools <target> [options]

Lists a server's tools with their arguments (? = optional).

Options:
${REVISION}
  --header "Name: value"        an HTTP header for a URL target (repeatable)
  --data DIR                    for the opsdesk target: its data directory
  --json                        print the tool list as JSON

${TARGET}
${CONNECT}`,
  call: `Usage: elicitkit call <target> <tool> [k=v …] [options]

Calls a tool, answering the server's questions in the terminal or from an answers file.

Options:
  --args JSON                   the arguments as one JSON object (k=v words are added to it)
  --answers FILE                answer questions from a JSON array:
                                [{"action":"accept","content":{…}}, {"action":"decline"}, …]
  --secrets warn|decline        a form asking for a password, token or key (EK09): shown with a
                                warning (default), or declined without showing it
  --timeout-ms N                how long the server may work on the call, not counting the time a
                                question waits for you; past it the call is cancelled, exit 1
                                (default 900000, 15 minutes)
${REVISION}
  --header "Name: value"        an HTTP header for a URL target (repeatable)
  --data DIR                    for the opsdesk target: its data directory
  --json                        print the result as JSON

${TARGET}
${CONNECT}

Questions are drawn on stderr (or the terminal itself), never on stdout, which carries the result.

Exit codes: 0 done, 1 tool error, 2 usage, 3 declined or cancelled, 130 / 143 stopped by Ctrl+C / SIGTERM
(the call cancelled, a server it started stopped).`,
  doctor: `Usage: elicitkit doctor <target> [options]

Checks a server's elicitation behaviour against the rule catalogue (EK01–EK18): plays clients of
every revision, with and without the capability, calls every tool and answers each question with
accept (sample values), accept (empty), decline and cancel in turn; then explores the answers that
lead on (each option of a select, a boolean both ways, a few subsets of a multi-select, decline and
cancel of later questions), one changed answer per call, and reports every branch it did not try.

Options:
  --json                        print the report as JSON (a stable shape: docs/cli.md)
  --fixtures FILE               arguments per tool (docs/cli.md); doctor opsdesk has its own
  --tools a,b                   call only these tools
  --skip c                      do not call these tools (repeatable, or comma-separated)
  --allow-destructive           also accept the questions of destructive tools and confirmations
                                (otherwise: decline and cancel only)
  --yes                         do not ask before calling the tools of a server doctor did not start
  --revision REV|auto           play only the clients of 2025-06-18, 2025-11-25 or 2026-07-28;
                                auto (the default) plays every revision's
                                (--era legacy|modern is the deprecated name)
  --timeout-ms N                per call; a call past it is cancelled (default 10000)
  --concurrency N               profiles run at once, 1 to 8 (default: all of them)
  --depth N                     vary answers at the first N questions of a call, 1 to 5 (default 3)
  --budget N                    exploring calls per tool under each profile, 0 to 1000 (default 20;
                                0: no exploring)
  --clients a,b                 also play these known clients, each announcing its clientInfo.name
                                (claude-code, claude-desktop, cursor, vscode, trae, cline), and
                                report what the person would see in each
  --restart-check               connect to two fresh starts and report changed capabilities or tools
  --header "Name: value"        an HTTP header for a URL target (repeatable)
  --strict                      exit 1 on warnings too

doctor opsdesk runs the bundled server itself, on a throw-away data directory removed at exit.
Any other target is someone's server: doctor warns first (and asks at a terminal).

${TARGET}

Exit codes: 0 no errors, 1 errors found (or could not connect), 2 usage, 3 not confirmed, 130 / 143
stopped by Ctrl+C / SIGTERM (the server it started, and its data, removed).`,
  install: `Usage: elicitkit install <claude-code|claude-desktop|cursor|vscode|trae> [options] [-- command…]

Writes an MCP server (default: opsdesk over stdio) into a client's config, merging into an
existing file without touching anything else in it, and keeping a .bak.

Options:
  --scope project|user          which config file (default: the client's first scope)
  --name N                      the server's name in the config (default opsdesk)
  --dry-run                     print the diff, write nothing
  --url URL                     install a remote (HTTP) server at URL instead of a command
  --header "Name: value"        with --url: a header to send (repeatable), e.g. "Authorization: Bearer …"
  -- command…                   the server command to install instead of opsdesk`,
  uninstall: `Usage: elicitkit uninstall <claude-code|claude-desktop|cursor|vscode|trae> [options]

Removes one MCP server entry from a client's config; every other byte of the file (comments
included) stays as it was, and a .bak is kept.

Options:
  --scope project|user          which config file (default: the client's first scope)
  --name N                      the server's name in the config (default opsdesk)
  --dry-run                     print the diff, write nothing`,
  audit: `Usage: elicitkit audit [--data DIR] [--database URL] [--json] [--limit N]

Prints opsdesk's audit trail: each question's request, response and validation, per tool call.

Options:
  --data DIR                    the data directory (default $ELICITKIT_DATA, else the default one,
                                else ./.elicitkit — the web app's — when run where it has data)
  --database URL                opsdesk's Postgres database, when it runs on one (or
                                $ELICITKIT_DATABASE_URL)
  --json                        print the records as JSON
  --limit N                     the last N tool calls, each with all its records (default 1000)`,
} as const satisfies Record<Command, string>;
