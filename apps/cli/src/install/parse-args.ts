import { parseArgs } from 'node:util';
import { UsageError } from '../usage.js';
import { CLIENT_IDS, CLIENTS, type ClientId, isClientId, type Scope } from './clients.js';

/** A checked `elicitkit install` command line. */
export interface InstallRequest {
  client: ClientId;
  scope: Scope;
  name: string;
  dryRun: boolean;
  /** The server command after `--`; `undefined` means the bundled opsdesk. */
  command: string[] | undefined;
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

  const { values, positionals } = parse(own);
  const [client, extra] = positionals;
  if (client === undefined) throw new UsageError(`install needs a client: one of ${CLIENT_IDS.join(', ')}`);
  if (!isClientId(client)) throw new UsageError(`unknown client "${client}"; choose one of ${CLIENT_IDS.join(', ')}`);
  if (extra !== undefined)
    throw new UsageError(`unexpected argument "${extra}"; put the server command after --, e.g. -- node server.js`);

  const scopes = CLIENTS[client].scopes;
  const scope = values.scope ?? scopes[0] ?? 'user';
  if (scope !== 'project' && scope !== 'user')
    throw new UsageError(`--scope must be project or user, not "${values.scope}"`);
  if (!scopes.includes(scope))
    throw new UsageError(`${client} has no ${scope} scope; it only reads its ${scopes.join(' and ')} config`);

  const name = values.name ?? 'opsdesk';
  if (name === '') throw new UsageError('--name must not be empty');
  if (!NAME.test(name)) throw new UsageError(`--name "${name}" may only use letters, digits, ".", "_" and "-"`);
  // A key that JavaScript turns into the prototype would vanish or misbehave in every client.
  if (name === '__proto__') throw new UsageError('--name "__proto__" is reserved; choose another name');

  return { client, scope, name, dryRun: values['dry-run'] ?? false, command };
}

function parse(args: string[]) {
  try {
    return parseArgs({
      args,
      options: { scope: { type: 'string' }, name: { type: 'string' }, 'dry-run': { type: 'boolean' } },
      allowPositionals: true,
      strict: true,
    });
  } catch (error) {
    // parseArgs reports unknown options and missing values with a TypeError; to the user it is usage.
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
}
