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

/** The words the deprecated `era` flag and setting took, and the revision choice each stands for. */
const ERA_WORDS = { legacy: '2025-11-25', modern: '2026-07-28', auto: 'auto' } as const satisfies Record<
  string,
  RevisionChoice
>;

/**
 * A revision given as neither a known revision, `auto`, nor (deprecated) an era word: says which
 * setting and what it may be.
 *
 * @example
 * try { parseRevisionChoice({ revision: flag }); } catch (e) { if (e instanceof RevisionChoiceError) usage(e.message); }
 */
export class RevisionChoiceError extends Error {
  readonly code = 'BAD_REVISION';
}

/**
 * The one reader of a revision as a person gives it, for every command and setting that takes
 * one (`call`, `tools`, `doctor`, the web app's servers): `revision` names a revision or `auto`;
 * `era` — deprecated, kept as an alias — says `legacy` (2025-11-25), `modern` (2026-07-28) or
 * `auto`. Neither given: `undefined`, the caller's default. `names` are how the two are called
 * where they were given, for the error.
 *
 * @example
 * parseRevisionChoice({ era: 'legacy' }) // → { choice: '2025-11-25', deprecated: true }
 * parseRevisionChoice({ revision: '2026-07-28' }) // → { choice: '2026-07-28', deprecated: false }
 */
export function parseRevisionChoice(
  given: { revision?: unknown; era?: unknown },
  names: { revision: string; era: string } = { revision: '--revision', era: '--era' },
): { choice: RevisionChoice | undefined; deprecated: boolean } {
  const { revision, era } = given;
  if (revision !== undefined && era !== undefined)
    throw new RevisionChoiceError(`give ${names.revision} or ${names.era}, not both (${names.era} is deprecated)`);
  if (revision !== undefined) {
    const choice = REVISION_CHOICES.find((r) => r === revision);
    if (choice === undefined)
      throw new RevisionChoiceError(
        `${names.revision} must be ${REVISION_CHOICES.join(', ')}, not ${JSON.stringify(revision)}`,
      );
    return { choice, deprecated: false };
  }
  if (era === undefined) return { choice: undefined, deprecated: false };
  if (typeof era !== 'string' || !Object.hasOwn(ERA_WORDS, era))
    throw new RevisionChoiceError(
      `${names.era} (deprecated: use ${names.revision}) must be legacy, modern or auto, not ${JSON.stringify(era)}`,
    );
  return { choice: ERA_WORDS[era as keyof typeof ERA_WORDS], deprecated: true };
}
