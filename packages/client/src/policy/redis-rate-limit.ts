import type { Redis } from 'ioredis';
import { AttachError } from '../errors.js';
import type { RateLimiter } from './rate-limit.js';

/**
 * Where a shared question budget is kept, and its size.
 *
 * @example
 * createRedisRateLimiter({ redis, max: 10, perMs: 60_000, prefix: 'myapp:budget:' });
 */
export interface RedisRateLimiterOptions {
  /** An ioredis client; the limiter never closes it. */
  redis: Redis;
  /** At most this many questions per key … */
  max: number;
  /** … within this many milliseconds, a sliding window. */
  perMs: number;
  /** Prefix of every key. Default `elicitkit:budget:`. */
  prefix?: string;
}

// KEYS[1]: the key's log (a sorted set of question times). ARGV: max, perMs, a member unique to
// this question. Times are Redis's own clock, so replicas whose clocks differ share one window.
const TAKE = `
local now = redis.call('TIME')
local at = tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000)
local max, per = tonumber(ARGV[1]), tonumber(ARGV[2])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', at - per)
if redis.call('ZCARD', KEYS[1]) >= max then return 0 end
redis.call('ZADD', KEYS[1], at, ARGV[3])
redis.call('PEXPIRE', KEYS[1], per)
return 1
`;

/**
 * The sliding-window budget of `createRateLimiter`, kept in Redis so that every replica of a host
 * counts into one: a server whose questions reach a person through several instances gets `max`
 * per window in all, not `max` per instance. Atomic (one Lua script), judged by Redis's clock;
 * each key's log expires with its window. A Redis that cannot be reached fails the question
 * (the promise rejects), never lets it through uncounted.
 *
 * @example
 * import { createRedisRateLimiter } from '@elicitkit/client/redis';
 * attach(client, { limiter: createRedisRateLimiter({ redis, max: 10, perMs: 60_000 }) });
 */
export function createRedisRateLimiter(options: RedisRateLimiterOptions): RateLimiter {
  const { redis, max, perMs } = options;
  if (!(Number.isSafeInteger(max) && max >= 1))
    throw new AttachError('BAD_POLICY', `The budget's max must be a positive whole number, not ${max}.`);
  if (!(Number.isSafeInteger(perMs) && perMs >= 1))
    throw new AttachError('BAD_POLICY', `The budget's perMs must be a positive whole number, not ${perMs}.`);
  const prefix = options.prefix ?? 'elicitkit:budget:';
  return {
    async take(key) {
      const taken = await redis.eval(TAKE, 1, `${prefix}${key}`, max, perMs, crypto.randomUUID());
      return taken === 1;
    },
  };
}
