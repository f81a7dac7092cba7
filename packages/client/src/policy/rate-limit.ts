import { AttachError } from '../errors.js';

/**
 * Counts questions per key over a sliding window. `attach` keys them by the asking server's
 * `name@version`; a host may pass its own (`AttachOptions.limiter`) to count them in one budget
 * that outlives a connection.
 */
export interface RateLimiter {
  /**
   * Records a question for `key` and says whether it is within the limit (over-limit ones are not
   * recorded). May answer later, for a budget kept elsewhere (`createRedisRateLimiter`); one that
   * fails fails the question with it, never lets it through uncounted.
   */
  take(key: string): boolean | Promise<boolean>;
}

/**
 * A sliding-window log: exact, and small because `max` is a handful of questions. Only questions
 * that reach the person are recorded, so a flood cannot keep a server locked out after it stops.
 *
 * @example
 * const limiter = createRateLimiter({ max: 5, perMs: 60_000 });
 * if (!limiter.take('opsdesk@1.0.0')) return { action: 'decline' };
 */
export function createRateLimiter(options: { max: number; perMs: number; now?: () => number }): RateLimiter {
  // As attach's policy and the Redis budget do: a NaN read from configuration counted nothing
  // (`length >= NaN` is never true), and every question got through.
  if (!(Number.isSafeInteger(options.max) && options.max >= 1))
    throw new AttachError('BAD_POLICY', `The budget's max must be a positive whole number, not ${options.max}.`);
  if (!(Number.isFinite(options.perMs) && options.perMs > 0))
    throw new AttachError('BAD_POLICY', `The budget's perMs must be a positive number, not ${options.perMs}.`);
  const now = options.now ?? Date.now;
  const log = new Map<string, number[]>();
  return {
    take(key) {
      const at = now();
      const recent = (log.get(key) ?? []).filter((t) => at - t < options.perMs);
      if (recent.length >= options.max) {
        log.set(key, recent);
        return false;
      }
      recent.push(at);
      log.set(key, recent);
      return true;
    },
  };
}
