/**
 * A Redis that evicts keys when its memory is full (a `maxmemory` with any policy but
 * `noeviction`: `allkeys-lru`, common on a Redis set up as a cache, or a `volatile-*` one, since
 * every claim carries an expiry) forgets claims under memory pressure just as one that restarts
 * without its data does: a replayed final round then acts again. The store's check before its
 * first claim looked at the append-only file only, and claimed on such a Redis; now it refuses it
 * (`ClaimStoreNotDurableError`), unless told the store is volatile.
 */
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRedis, type TestRedis, withRedis } from '../../../../test/support/redis-server.js';
import { ClaimStoreNotDurableError, createRedisClaimStore } from './redis.js';

const REDIS = withRedis('claims/redis-eviction.test.ts');
const LEASE = { leaseMs: 1_000, ttlMs: 60_000 };

describe.skipIf(!REDIS)('a durable Redis that evicts keys when full', () => {
  let server: TestRedis;
  let client: Redis;
  beforeAll(async () => {
    server = await startRedis({ durable: true });
    client = new Redis(server.url);
  });
  afterAll(async () => {
    client?.disconnect();
    await server?.stop();
  });

  it('forgets a recorded claim under memory pressure (why it is refused)', async () => {
    // volatile-ttl: only keys with an expiry are evicted, and the claim is the only one here, so it
    // is the one dropped once memory is full (writes past that are refused).
    await client.config('SET', 'maxmemory-policy', 'volatile-ttl');
    const store = createRedisClaimStore(client, { prefix: 'shown:', volatile: true });
    expect(await store.claim('call-1', 'a', LEASE)).toEqual({ state: 'claimed' });
    expect(await store.complete('call-1', 'a', '"deployed"')).toBe(true);
    const used = Number(/used_memory:(\d+)/.exec(String(await client.info('memory')))?.[1]);
    await client.config('SET', 'maxmemory', String(used + 1_000_000));
    const junk = 'x'.repeat(10_000);
    for (let i = 0; i < 1_000 && (await client.exists('shown:c:call-1')) === 1; i++)
      await client.set(`junk:${i}`, junk).catch(() => undefined);
    await client.config('SET', 'maxmemory', '0');
    // The record is gone: a replay would claim the call again and act a second time.
    expect(await store.claim('call-1', 'b', LEASE)).toEqual({ state: 'claimed' });
    await client.flushall();
  });

  it.each(['allkeys-lru', 'allkeys-lfu', 'allkeys-random', 'volatile-lru', 'volatile-ttl'])(
    'refuses to claim on one with maxmemory and %s, unless told the store is volatile',
    async (policy) => {
      await client.config('SET', 'maxmemory', '100mb');
      await client.config('SET', 'maxmemory-policy', policy);
      try {
        const refused = await createRedisClaimStore(client, { prefix: `ev-${policy}:` })
          .claim('call-1', 'a', LEASE)
          .catch((e: unknown) => e);
        expect(refused).toBeInstanceOf(ClaimStoreNotDurableError);
        expect((refused as Error).message).toContain(`maxmemory-policy ${policy}`);
        expect(await client.keys(`ev-${policy}:*`)).toEqual([]);
        const volatile = createRedisClaimStore(client, { prefix: `ev-${policy}:`, volatile: true });
        expect(await volatile.claim('call-1', 'a', LEASE)).toEqual({ state: 'claimed' });
      } finally {
        await client.config('SET', 'maxmemory', '0');
      }
    },
  );

  // A Redis restarted (or failed over) with another configuration is reached again through a new
  // connection: what it keeps is checked again then, not taken from the first check for ever.
  it('checks again after a reconnection: a Redis that came back without its append-only file is refused', async () => {
    const own = new Redis(server.url);
    const store = createRedisClaimStore(own, { prefix: 'again:' });
    try {
      expect(await store.claim('call-1', 'a', LEASE)).toEqual({ state: 'claimed' });
      await client.config('SET', 'appendonly', 'no');
      const back = new Promise((resolve) => own.once('ready', resolve));
      own.disconnect(true);
      await back;
      const refused = await store.claim('call-2', 'a', LEASE).catch((e: unknown) => e);
      expect(refused).toBeInstanceOf(ClaimStoreNotDurableError);
      expect(await client.exists('again:c:call-2')).toBe(0);
      // Fixed, and reached again: it claims.
      await client.config('SET', 'appendonly', 'yes');
      const fixed = new Promise((resolve) => own.once('ready', resolve));
      own.disconnect(true);
      await fixed;
      await expect.poll(async () => /aof_enabled:1/.test(String(await client.info('persistence')))).toBe(true);
      expect(await store.claim('call-3', 'a', LEASE)).toEqual({ state: 'claimed' });
    } finally {
      await client.config('SET', 'appendonly', 'yes');
      own.disconnect();
    }
  });

  it('claims on one that never evicts: noeviction, or no maxmemory at all', async () => {
    await client.config('SET', 'maxmemory', '100mb');
    await client.config('SET', 'maxmemory-policy', 'noeviction');
    expect(await createRedisClaimStore(client, { prefix: 'noev:' }).claim('call-1', 'a', LEASE)).toEqual({
      state: 'claimed',
    });
    await client.config('SET', 'maxmemory', '0');
    await client.config('SET', 'maxmemory-policy', 'allkeys-lru');
    expect(await createRedisClaimStore(client, { prefix: 'nomax:' }).claim('call-1', 'a', LEASE)).toEqual({
      state: 'claimed',
    });
  });
});
