import { REVISION_CHOICES, type RevisionChoice } from '@elicitkit/client';
import type { Revision } from '@elicitkit/form';
import { defaultDataDir } from '@elicitkit/opsdesk';
import { parseTarget, type Target } from './target.js';
import { UsageError } from './usage.js';

/** The options of every command that talks to a server as a client (`call`, `tools`). */
export const TARGET_OPTIONS = {
  revision: { type: 'string' },
  era: { type: 'string' },
  header: { type: 'string', multiple: true },
  data: { type: 'string' },
  json: { type: 'boolean' },
} as const;

/**
 * The target of `call` and `tools`. `opsdesk` here is the person's own opsdesk: their data
 * directory (`--data`, `ELICITKIT_DATA`, or the default), not a throw-away one.
 */
export function targetFrom(
  word: string | undefined,
  command: string[] | undefined,
  values: { header?: string[]; data?: string },
): Target {
  return parseTarget(word, command, {
    headers: values.header ?? [],
    opsdeskData: values.data ?? process.env.ELICITKIT_DATA ?? defaultDataDir(),
  });
}

/** Every revision a client of ours can speak, oldest first. */
export const REVISIONS: readonly Revision[] = REVISION_CHOICES.filter((r): r is Revision => r !== 'auto');

/** `--era` (SPEC §3, kept as it was) names revisions by the way they ask: a push, or a result. */
const ERAS = { legacy: '2025-11-25', modern: '2026-07-28' } as const satisfies Record<string, Revision>;

/**
 * The revision a command's client speaks, from `--revision REV|auto` or `--era legacy|modern|auto`
 * (one of them; default `auto`).
 *
 * @example
 * revisionFrom({ era: 'legacy' }) // → '2025-11-25'
 */
export function revisionFrom(values: { revision?: string; era?: string }): RevisionChoice {
  if (values.revision !== undefined && values.era !== undefined)
    throw new UsageError('give --revision or --era, not both');
  if (values.revision !== undefined) {
    const choice = REVISION_CHOICES.find((r) => r === values.revision);
    if (!choice) throw new UsageError(`--revision must be ${REVISIONS.join(', ')} or auto, not "${values.revision}"`);
    return choice;
  }
  const era = values.era ?? 'auto';
  if (era === 'auto') return 'auto';
  if (!Object.hasOwn(ERAS, era)) throw new UsageError(`--era must be legacy, modern or auto, not "${era}"`);
  return ERAS[era as keyof typeof ERAS];
}
