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

type RevisionOptions = Pick<ClientOptions, 'versionNegotiation' | 'supportedProtocolVersions'>;

// Typed from the union: a revision added to `Revision` does not compile until it is given here.
const OPTIONS = {
  '2025-06-18': () => ({ supportedProtocolVersions: ['2025-06-18'] }),
  '2025-11-25': () => ({}),
  '2026-07-28': () => ({ versionNegotiation: { mode: { pin: '2026-07-28' } } }),
  auto: () => ({ versionNegotiation: { mode: 'auto' } }),
} as const satisfies Record<RevisionChoice, () => RevisionOptions>;

/**
 * Every `RevisionChoice`, oldest revision first and `'auto'` last: what a flag or a setting may say.
 *
 * @example
 * const choice = REVISION_CHOICES.find((r) => r === flag) ?? fail(`use one of ${REVISION_CHOICES.join(', ')}`);
 */
export const REVISION_CHOICES: readonly RevisionChoice[] = Object.freeze(Object.keys(OPTIONS) as RevisionChoice[]);

/**
 * The SDK `Client` options that make it speak `choice`: 2026-07-28 pins the modern handshake,
 * 2025-11-25 is the SDK's plain `initialize`, 2025-06-18 offers only that revision at
 * `initialize`, and `'auto'` probes with `server/discover` first (over stdio the probe starts the
 * server once more, about doubling a cold start).
 *
 * @example
 * const client = new Client({ name: 'my-host', version: '1.0.0' }, revisionOptions('2026-07-28'));
 */
export function revisionOptions(choice: RevisionChoice): RevisionOptions {
  if (!Object.hasOwn(OPTIONS, choice)) throw new TypeError(`Unknown protocol revision ${JSON.stringify(choice)}.`);
  return OPTIONS[choice]();
}
