/**
 * @elicitkit/server/redis — what several replicas share through Redis (ioredis, an optional peer):
 * the claim store, so a replayed final round acts once on whichever replica it lands, the
 * relay that carries a 2025 session's requests to the replica holding it, and an event store for
 * resumable 2025 streams.
 */
export {
  ClaimStoreNotDurableError,
  ClaimStoreUnavailableError,
  createRedisClaimStore,
  type RedisClaimStoreOptions,
} from './claims/redis.js';
export { createRedisEventStore, type RedisEventStoreOptions } from './http/redis-event-store.js';
export { createRedisRelay, type RedisRelay, type RedisRelayOptions } from './relay/redis-relay.js';
