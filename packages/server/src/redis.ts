/**
 * @elicitkit/server/redis — what several replicas share through Redis (ioredis, an optional peer):
 * the claim store, so a replayed final round acts once on whichever replica it lands.
 */
export { createRedisClaimStore, type RedisClaimStoreOptions } from './claims/redis.js';
