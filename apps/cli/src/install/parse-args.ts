import { parseArgs } from 'node:util';
import { headerOptions } from '../header-option.js';
import { parseArgsMistake, refuseEmptyValues, UsageError } from '../usage.js';
import { CLIENT_IDS, CLIENTS, type ClientId, isClientId, type Scope } from './clients.js';

/** A checked `elicitkit install` command line. */
export interface InstallRequest {
  client: ClientId;
  scope: Scope;
  name: string;
  dryRun: boolean;
  /** The server command after `--`; `undefined` means the bundled opsdesk (or `remote`). */
  command: string[] | undefined;
  /** `--url URL [--header "Name: value" …]`: a remote server instead of a command. */
  remote?: { url: string; headers: Record<string, string> };
}

/** A checked `elicitkit uninstall` command line. */
export interface UninstallRequest {
  client: ClientId;
  scope: Scope;
  name: string;
  dryRun: boolean;
}

/** Letters, digits, `.`, `_`, `-`: what every client accepts as a server name and shows unchanged. */
const NAME = /^[A-Za-z0-9._-]+$/;

/**
 * Reads `<client> [--scope project|user] [--name N] [--dry-run] [-- command…]`; every mistake is a
 * {@link UsageError}.
 * @example parseInstallArgs(['cursor', '--scope', 'user', '--', 'node', 'srv.js'])
 * // { client: 'cursor', scope: 'user', name: 'opsdesk', dryRun: false, command: ['node', 'srv.js'] }
 */
export function parseInstallArgs(argv: string[]): InstallRequest {
  // Split by hand: everything after the first `--` belongs to the server, flags included.
  const split = argv.indexOf('--');
  const own = split === -1 ? argv : argv.slice(0, split);
  const command = split === -1 ? undefined : argv.slice(split + 1);
  if (command?.length === 0) throw new UsageError('"--" must be followed by the server command to install');

  const { values, positionals } = parse(own, true);
  const common = clientScopeName('install', positionals, values);
  const { url, header } = values as unknown as { url?: string; header?: string[] };
  const remote = readRemote(url, header ?? []);
  if (remote && command) throw new UsageError('give --url or a command after --, not both');
  return { ...common, dryRun: values['dry-run'] ?? false, command, ...(remote ? { remote } : {}) };
}

/**
 * Reads `<client> [--scope project|user] [--name N] [--dry-run]` for `elicitkit uninstall`.
 * @example parseUninstallArgs(['cursor', '--name', 'ops']) // { client: 'cursor', scope: 'project', name: 'ops', dryRun: false }
 */
export function parseUninstallArgs(argv: string[]): UninstallRequest {
  const { values, positionals } = parse(argv, false);
  return { ...clientScopeName('uninstall', positionals, values), dryRun: values['dry-run'] ?? false };
}

function readRemote(url: string | undefined, headers: string[]): InstallRequest['remote'] {
  if (url === undefined) {
    if (headers.length > 0) throw new UsageError('--header needs --url (headers go with a remote server)');
    return undefined;
  }
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new UsageError(`--url "${url}" is not a URL; give the server's http(s)://…/mcp address`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')
    throw new UsageError(`--url must be http or https, not ${parsed.protocol}`);
  const out = headerOptions(headers);
  return { url, headers: out };
}

function clientScopeName(
  verb: 'install' | 'uninstall',
  positionals: string[],
  values: { scope?: string | undefined; name?: string | undefined },
): { client: ClientId; scope: Scope; name: string } {
  const [client, extra] = positionals;
  if (client === undefined) throw new UsageError(`${verb} needs a client: one of ${CLIENT_IDS.join(', ')}`);
  if (!isClientId(client)) throw new UsageError(`unknown client "${client}"; choose one of ${CLIENT_IDS.join(', ')}`);
  if (extra !== undefined)
    throw new UsageError(
      verb === 'install'
        ? `unexpected argument "${extra}"; put the server command after --, e.g. -- node server.js`
        : `unexpected argument "${extra}"`,
    );

  const scopes = CLIENTS[client].scopes;
  const scope = values.scope ?? scopes[0] ?? 'user';
  if (scope !== 'project' && scope !== 'user')
    throw new UsageError(`--scope must be project or user, not "${values.scope}"`);
  if (!scopes.includes(scope))
    throw new UsageError(`${client} has no ${scope} scope; it only reads its ${scopes.join(' and ')} config`);

  const name = values.name ?? 'opsdesk';
  if (!NAME.test(name)) throw new UsageError(`--name "${name}" may only use letters, digits, ".", "_" and "-"`);
  // A key that JavaScript turns into the prototype would vanish or misbehave in every client.
  if (name === '__proto__') throw new UsageError('--name "__proto__" is reserved; choose another name');

  return { client, scope, name };
}

function parse(args: string[], remote: boolean) {
  try {
    const parsed = parseArgs({
      // The options' types differ by command; the values are read per command above.
      args,
      options: {
        scope: { type: 'string' },
        name: { type: 'string' },
        'dry-run': { type: 'boolean' },
        // Only install takes a remote server; for uninstall these stay unknown options.
        ...(remote ? { url: { type: 'string' }, header: { type: 'string', multiple: true } } : {}),
      },
      allowPositionals: true,
      strict: true,
    });
    refuseEmptyValues(parsed.values);
    return parsed;
  } catch (error) {
    // parseArgs reports unknown options and missing values with a TypeError; to the user it is usage.
    throw new UsageError(parseArgsMistake(error) ?? (error instanceof Error ? error.message : String(error)));
  }
}
