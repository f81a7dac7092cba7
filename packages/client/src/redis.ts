/**
 * @elicitkit/client/redis — the pending registry and the question budget in Redis, for hosts run
 * as several replicas.
 * Node-only, and it needs `ioredis` (an optional peer dependency), so it stays out of the main
 * entry.
 *
 * @example
 * import { Redis } from 'ioredis';
 * import { createRedisRegistry } from '@elicitkit/client/redis';
 * const registry = createRedisRegistry({ redis: new Redis(process.env.REDIS_URL as string) });
 */

export { createRedisRateLimiter, type RedisRateLimiterOptions } from './policy/redis-rate-limit.js';
export { createRedisRegistry, type RedisRegistry, type RedisRegistryOptions } from './registry/redis.js';
