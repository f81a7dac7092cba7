/**
 * The protocol revisions Elicitkit serves, and what each means for a question. Every package asks
 * these helpers instead of comparing version strings itself.
 */

/** The protocol revisions Elicitkit serves, oldest first. */
export const REVISIONS = ['2025-06-18', '2025-11-25', '2026-07-28'] as const;

/** A protocol revision Elicitkit serves. */
export type Revision = (typeof REVISIONS)[number];

/** The newest revision Elicitkit serves. */
export const LATEST_REVISION: Revision = '2026-07-28';

/** What a revision means for a question. */
export interface RevisionTraits {
  /**
   * The form schema it understands: `'2025-06-18'` (selects as `enum` + `enumNames`, defaults on
   * booleans only, no multi-select) or `'2025-11-25'` (the full restricted schema).
   */
  formShape: '2025-06-18' | '2025-11-25';
  /** Whether requests carry `mode` and URL mode exists. */
  modes: boolean;
  /** How a server asks: a pushed `elicitation/create` request, or an `input_required` tool result. */
  asks: 'push' | 'input_required';
}

const TRAITS = {
  '2025-06-18': { formShape: '2025-06-18', modes: false, asks: 'push' },
  '2025-11-25': { formShape: '2025-11-25', modes: true, asks: 'push' },
  '2026-07-28': { formShape: '2025-11-25', modes: true, asks: 'input_required' },
} as const satisfies Record<Revision, RevisionTraits>;

const DATE = /^\d{4}-\d{2}-\d{2}$/;

/**
 * The revision whose rules apply to a negotiated protocol version. A known revision is itself; a
 * dated one in between or after takes the newest revision not after it (a newer revision keeps
 * what the latest has); anything older, or unreadable, takes the oldest, whose form shape every
 * client understands. Draft versions (`DRAFT-…`) name the revision being written: the latest.
 *
 * @example
 * revisionOf('2025-11-25') // '2025-11-25'
 * revisionOf('2025-03-26') // '2025-06-18' (older: the oldest shape)
 * revisionOf('2027-01-01') // '2026-07-28' (newer: the latest we know)
 */
export function revisionOf(negotiated: string): Revision {
  const version = negotiated.trim();
  if (/^draft\b/i.test(version)) return LATEST_REVISION;
  if (!DATE.test(version)) return REVISIONS[0];
  let found: Revision = REVISIONS[0];
  for (const revision of REVISIONS) if (revision <= version) found = revision;
  return found;
}

/**
 * What a revision means for a question: its form shape, whether it has modes (URL mode), and how a
 * server asks on it. Takes a negotiated version string too, read with `revisionOf`.
 *
 * @example
 * if (traitsOf(negotiated).asks === 'input_required') return inputRequired(...);
 */
export function traitsOf(revision: Revision | string): RevisionTraits {
  return TRAITS[isRevision(revision) ? revision : revisionOf(revision)];
}

/**
 * True when a form must be downgraded (`downgrade(schema, '2025-06-18')`) before a client on this
 * revision can be asked it.
 *
 * @example
 * const schema = needsDowngrade(negotiated) ? downgrade(form.schema, '2025-06-18').schema : form.schema;
 */
export function needsDowngrade(revision: Revision | string): boolean {
  return traitsOf(revision).formShape === '2025-06-18';
}

/**
 * True for one of the revisions Elicitkit serves.
 *
 * @example
 * if (!isRevision(flag)) throw new UsageError(`--revision must be one of ${REVISIONS.join(', ')}`);
 */
export function isRevision(value: unknown): value is Revision {
  return typeof value === 'string' && (REVISIONS as readonly string[]).includes(value);
}
