/** The longest a timer waits (Node fires a longer one at once) and Postgres's `lock_timeout` takes. */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * A duration, refused if it is out of `[min, max]` or not whole where it must be: an infinite,
 * `NaN`, negative or fractional one was taken as it was, and surfaced later as states that never
 * expire in one process and are refused by the next, claims kept for ever, a store refusing every
 * claim, a question that times out at once on one revision and never on another, or a page polled
 * every millisecond.
 *
 * @example
 * const pollMs = duration('pollMs', options.pollMs, 250, 1, MAX_TIMER_MS, false);
 */
export function duration(
  name: string,
  value: number | undefined,
  fallback: number,
  min: number,
  max: number,
  whole: boolean,
): number {
  if (value === undefined) return fallback;
  if (typeof value === 'number' && value >= min && value <= max && (!whole || Number.isInteger(value))) return value;
  throw new RangeError(
    `${name} must be ${whole ? 'a whole number' : 'a number'} from ${min} to ${max}, not ${String(value)}`,
  );
}

/**
 * A bound on questions (`maxAsks`, `maxQuestionChanges`): a whole number from 1. `NaN` lifted
 * the bound (nothing is greater than `NaN`), 0 refused every question.
 *
 * @example
 * const maxAsks = count('maxAsks', options.maxAsks, 2);
 */
export function count(name: string, value: number | undefined, fallback: number): number {
  return duration(name, value, fallback, 1, Number.MAX_SAFE_INTEGER, true);
}
