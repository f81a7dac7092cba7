import type { Client, Transport } from '@modelcontextprotocol/client';
import { ConnectTimeoutError } from './errors.js';
import { type RevisionChoice, revisionOptions } from './revision.js';

/**
 * The longest connect deadline: the SDK's request timeout (a second after it) must fit in one
 * timer, 2^31-1 ms.
 */
const MAX_CONNECT_MS = 2 ** 31 - 1 - 1_000;

/** How `connectWithin` connects. */
export interface ConnectWithinOptions {
  /** The revision the client was made for (`revisionOptions(revision)`): `'auto'` splits the deadline. */
  revision: RevisionChoice;
  /** The whole connect, `'auto'`'s version probe included; from 1 ms to about 24.8 days. */
  timeoutMs: number;
}

/**
 * Connects `client` over `transport` within one deadline. With `'auto'` over stdio the SDK first
 * probes a sibling process and, when it stays silent, falls back to `initialize`, each on the
 * request timeout: here the probe gets half of the deadline, so a 2025 server that ignores it still
 * has time to answer, and the whole stays within the deadline. Over HTTP a silent probe is an
 * outage, not a fallback, and keeps the SDK's own rule. At the deadline the transport and client
 * are closed, a stdio server that never answered is sent SIGTERM (a graceful close would give it
 * seconds more), and `ConnectTimeoutError` is thrown; any other failure is the SDK's, as thrown.
 *
 * @example
 * const client = new Client(info, revisionOptions('auto'));
 * attach(client, { renderer });
 * await connectWithin(client, new StdioClientTransport({ command: 'node', args: ['server.js'] }), { revision: 'auto', timeoutMs: 30_000 });
 */
export async function connectWithin(
  client: Client,
  transport: Transport,
  options: ConnectWithinOptions,
): Promise<void> {
  const { timeoutMs } = options;
  // Past what one timer holds, setTimeout fires at once: the connect failed before it began.
  if (!(Number.isFinite(timeoutMs) && timeoutMs >= 1 && timeoutMs <= MAX_CONNECT_MS))
    throw new RangeError(
      `connectWithin: timeoutMs must be a number of milliseconds from 1 to ${MAX_CONNECT_MS}, not ${String(timeoutMs)}.`,
    );
  const negotiation = revisionOptions(options.revision).versionNegotiation;
  const pid = processOf(transport);
  if (negotiation?.mode === 'auto' && pid !== undefined)
    client.setVersionNegotiation({ ...negotiation, probe: { timeoutMs: Math.ceil(timeoutMs / 2) } });
  let deadline: ReturnType<typeof setTimeout> | undefined;
  const expired = new Promise<'expired'>((resolve) => {
    deadline = setTimeout(() => resolve('expired'), timeoutMs);
  });
  // The SDK's own request timeout comes a second later, so the deadline is what a silent server meets.
  const connecting = client.connect(transport, { timeout: timeoutMs + 1_000 });
  let outcome: 'connected' | 'expired';
  try {
    outcome = await Promise.race([connecting.then(() => 'connected' as const), expired]);
  } finally {
    clearTimeout(deadline);
  }
  if (outcome === 'connected') return;
  connecting.catch(() => undefined);
  const child = processOf(transport);
  if (child !== undefined && child !== null) {
    try {
      process.kill(child, 'SIGTERM');
    } catch {
      // Gone already.
    }
  }
  // Closing the transport also ends a probe under way on its sibling process.
  await Promise.all([transport.close(), client.close()]).catch(() => undefined);
  throw new ConnectTimeoutError(timeoutMs);
}

/**
 * A stdio transport's child process id (`null` before it starts), or `undefined` for a transport
 * that starts no process. Read by shape, so this module imports no Node-only transport.
 */
function processOf(transport: Transport): number | null | undefined {
  if (typeof process === 'undefined' || typeof process.kill !== 'function' || !('pid' in transport)) return undefined;
  const { pid } = transport as { pid: unknown };
  return typeof pid === 'number' ? pid : pid === null ? null : undefined;
}
