import { RegistryError } from '../errors.js';

/**
 * The longest a question may wait, or be remembered once settled, in milliseconds (about 285,000
 * years). Past it a shared store cannot keep the time at all: Redis refused the expiry of a
 * question it had already written, which then never expired.
 */
export const MAX_DURATION_MS = Number.MAX_SAFE_INTEGER;

/** Refuses a question's timeout that is not a positive number of milliseconds a store can keep. */
export function checkTimeout(timeoutMs: number): void {
  if (!(Number.isFinite(timeoutMs) && timeoutMs > 0 && timeoutMs <= MAX_DURATION_MS)) {
    throw new RegistryError(
      'BAD_TIMEOUT',
      `A question needs a positive timeout of at most ${MAX_DURATION_MS} ms, not ${timeoutMs} ms.`,
    );
  }
}

/**
 * Refuses a `retainMs` that is not a number of milliseconds from `least` up a store can keep;
 * `why` says what a shorter one would break.
 */
export function checkRetain(retainMs: number, least = 0, why = ''): void {
  if (!(Number.isFinite(retainMs) && retainMs >= least && retainMs <= MAX_DURATION_MS)) {
    throw new RegistryError(
      'BAD_TIMEOUT',
      `retainMs must be a number of milliseconds from ${least} to ${MAX_DURATION_MS}, not ${retainMs}${why ? ` (${why})` : ''}.`,
    );
  }
}
