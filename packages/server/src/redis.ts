/**
 * @elicitkit/server/redis — what several replicas share through Redis (ioredis, an optional peer):
 * the claim store, so a replayed final round acts once on whichever replica it lands, the
 * relay that carries a 2025 session's requests to the replica holding it, an event store for
 * resumable 2025 streams, and an event bus that tells every replica's 2026-07-28 listeners of a change.
 */
export {
  ClaimStoreNotDurableError,
  ClaimStoreUnavailableError,
  createRedisClaimStore,
  type RedisClaimStoreOptions,
} from './claims/redis.js';
export {
  createRedisEventBus,
  type RedisEventBus,
  type RedisEventBusDrops,
  type RedisEventBusOptions,
} from './http/redis-event-bus.js';
export { createRedisEventStore, type RedisEventStoreOptions } from './http/redis-event-store.js';
export { createRedisRelay, type RedisRelay, type RedisRelayOptions } from './relay/redis-relay.js';
export { RelayFailedError } from './relay/relayed-response.js';
