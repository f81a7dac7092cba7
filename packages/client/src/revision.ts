import type { Revision } from '@elicitkit/form';
import type { ClientOptions } from '@modelcontextprotocol/client';

/**
 * The protocol revision a client is to speak: one of the three, or `'auto'` to take the newest
 * the server offers.
 *
 * @example
 * const choice: RevisionChoice = process.env.MCP_REVISION === '2026-07-28' ? '2026-07-28' : 'auto';
 */
export type RevisionChoice = Revision | 'auto';

/**
 * The SDK `Client` options that make it speak `choice`: 2026-07-28 pins the modern handshake,
 * 2025-11-25 is the SDK's plain `initialize`, 2025-06-18 offers only that revision at
 * `initialize`, and `'auto'` probes with `server/discover` first (over stdio the probe starts the
 * server once more, about doubling a cold start).
 *
 * @example
 * const client = new Client({ name: 'my-host', version: '1.0.0' }, revisionOptions('2026-07-28'));
 */
export function revisionOptions(
  choice: RevisionChoice,
): Pick<ClientOptions, 'versionNegotiation' | 'supportedProtocolVersions'> {
  switch (choice) {
    case '2026-07-28':
      return { versionNegotiation: { mode: { pin: '2026-07-28' } } };
    case '2025-11-25':
      return {};
    case '2025-06-18':
      return { supportedProtocolVersions: ['2025-06-18'] };
    case 'auto':
      return { versionNegotiation: { mode: 'auto' } };
    default:
      return unreachable(choice);
  }
}

function unreachable(choice: never): never {
  throw new TypeError(`Unknown protocol revision ${JSON.stringify(choice)}.`);
}
