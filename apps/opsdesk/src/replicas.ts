import { createRedisRelay, type RedisRelay, type RedisRelayOptions } from '@elicitkit/server/redis';
import { Redis } from 'ioredis';
import { closeEach } from './close-each.js';
import { redactedUrl } from './redacted-url.js';

/**
 * What replicas of `serve --http` share through one Redis: the 2025 session relay — only what may
 * be lost. Claims stay in the data directory's database, which the replicas share, committed with
 * the effects they guard: a Redis that forgets cannot make an effect run twice.
 */
export interface Replicas {
  /**
   * The relay, its frames sealed with `secret` (the state secret every replica shares), what goes
   * wrong with a relay told to `onerror` (`RedisRelayOptions.onerror`); made once.
   */
  relay(secret: string, onerror?: (error: Error) => void): RedisRelay;
  close(): Promise<void>;
}

/** Redis could not be reached at start: opsdesk does not serve replicas without it. */
export class RedisUnavailableError extends Error {
  readonly code = 'REDIS_UNAVAILABLE';
  constructor(url: string, cause: unknown) {
    super(`Cannot reach Redis at ${redactedUrl(url)}: ${(cause as Error)?.message ?? String(cause)}`);
    this.name = 'RedisUnavailableError';
  }
}

const CONNECT_TIMEOUT_MS = 5_000;

/**
 * Connects to Redis for replicas. Fail closed: no offline queue and one retry per command, so
 * while Redis is down every claim and every relayed request fails at once with a clear error
 * instead of queueing, and a replica acts on nothing it could not claim.
 *
 * @example
 * const replicas = await connectReplicas('redis://10.0.0.5:6379');
 * // Relaying on direct connections between replicas, Redis only the directory:
 * const direct = await connectReplicas('redis://10.0.0.5:6379', { host: '0.0.0.0', port: 7400, advertise: '10.0.0.7:7400' });
 */
export async function connectReplicas(url: string, direct?: RedisRelayOptions['direct']): Promise<Replicas> {
  const redis = new Redis(url, {
    lazyConnect: true,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    connectTimeout: CONNECT_TIMEOUT_MS,
    // Keep trying to come back (each command meanwhile fails at once), a second apart at most.
    retryStrategy: (times) => Math.min(times * 100, 1_000),
  });
  // Reconnection errors are reported through the commands that fail; nothing to crash on here.
  redis.on('error', () => {});
  // connectTimeout covers the TCP connection only: a server that takes it and never answers (the
  // ready check, then PING) would hold the start for ever. The whole greeting is bounded instead.
  let timer: NodeJS.Timeout | undefined;
  const silent = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`no answer within ${CONNECT_TIMEOUT_MS / 1000} s (is it Redis?)`)),
      CONNECT_TIMEOUT_MS,
    );
  });
  try {
    await Promise.race([redis.connect().then(() => redis.ping()), silent]);
  } catch (error) {
    redis.disconnect();
    throw new RedisUnavailableError(url, error);
  } finally {
    clearTimeout(timer);
  }
  let relay: RedisRelay | undefined;
  return {
    relay(secret, onerror) {
      relay ??= createRedisRelay(redis, { secret, ...(direct ? { direct } : {}), ...(onerror ? { onerror } : {}) });
      return relay;
    },
    async close() {
      await closeEach([() => relay?.close(), () => redis.quit().catch(() => redis.disconnect())]);
    },
  };
}

/** The URL without its password, for messages. */
