import { parseRevisionChoice, REVISION_CHOICES, type RevisionChoice, RevisionChoiceError } from '@elicitkit/client';
import type { Revision } from '@elicitkit/form';
import { defaultDataDir } from '@elicitkit/opsdesk';
import type { Io } from './io.js';
import { CONNECT_TIMEOUT_MS, parseTarget, type Target } from './target.js';
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
    // An empty ELICITKIT_DATA is not set: never the current directory.
    opsdeskData: values.data ?? (process.env.ELICITKIT_DATA || undefined) ?? defaultDataDir(),
  });
}

/** Every revision a client of ours can speak, oldest first. */
export const REVISIONS: readonly Revision[] = REVISION_CHOICES.filter((r): r is Revision => r !== 'auto');

/**
 * The revision a command's client speaks, from `--revision REV|auto` or the deprecated `--era
 * legacy|modern|auto` (`parseRevisionChoice`, the one reader every command and the web app
 * share); `auto` when neither is given. `--era` still works, with a note on stderr.
 *
 * @example
 * revisionFrom({ revision: '2025-11-25' }, io) // → '2025-11-25'
 */
export function revisionFrom(values: { revision?: string; era?: string }, io: Pick<Io, 'err'>): RevisionChoice {
  let read: ReturnType<typeof parseRevisionChoice>;
  try {
    read = parseRevisionChoice(values);
  } catch (error) {
    if (error instanceof RevisionChoiceError) throw new UsageError(error.message);
    throw error;
  }
  const choice = read.choice ?? 'auto';
  if (read.deprecated) io.err(`elicitkit: --era is deprecated; say --revision ${choice}`);
  return choice;
}

/**
 * How long `call` and `tools` wait for a server to connect, from `ELICITKIT_CONNECT_TIMEOUT_MS`
 * (the web app's setting of the same name and range): whole milliseconds from 1000 to 600000,
 * default 30 s.
 *
 * @example
 * connectTimeoutFrom({ ELICITKIT_CONNECT_TIMEOUT_MS: '5000' }) // → 5000
 */
export function connectTimeoutFrom(env: Record<string, string | undefined>): number {
  const raw = env.ELICITKIT_CONNECT_TIMEOUT_MS;
  if (raw === undefined || raw === '') return CONNECT_TIMEOUT_MS;
  const ms = Number(raw);
  if (!/^\d+$/.test(raw) || ms < 1000 || ms > 600_000)
    throw new UsageError(`ELICITKIT_CONNECT_TIMEOUT_MS must be a whole number from 1000 to 600000, not "${raw}"`);
  return ms;
}
