import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accept, pendingOf, wireRound } from '../../../../test/support/modern-wire.js';
import { startRedis, type TestRedis, withRedis } from '../../../../test/support/redis-server.js';
import { loopback } from '../../test/loopback.js';
import { claimStoreSuite, manualClock } from './claims.suite.js';
import { ClaimStoreNotDurableError, ClaimStoreUnavailableError, createRedisClaimStore } from './redis.js';

const REDIS = withRedis('claims/redis.test.ts');

const LEASE = { leaseMs: 1_000, ttlMs: 60_000 };

describe.skipIf(!REDIS)('redis claim store', () => {
  let server: TestRedis;
  const clients: Redis[] = [];
  let n = 0;
  const connect = () => {
    const client = new Redis(server.url, { lazyConnect: false });
    clients.push(client);
    return client;
  };
  beforeAll(async () => {
    // Durable, as the store requires by default: an append-only file fsynced on every write.
    server = await startRedis({ durable: true });
  });
  afterAll(async () => {
    for (const client of clients) client.disconnect();
    await server?.stop();
  });

  // Each test gets its own prefix on the one server: stores never see each other's keys.
  claimStoreSuite('redis', (clock) => createRedisClaimStore(connect(), { now: clock.now, prefix: `t${++n}:` }));

  it('sends each script by its digest, and its text again once when Redis has lost it (SCRIPT FLUSH)', async () => {
    const admin = connect();
    const store = createRedisClaimStore(connect(), { prefix: 'sha:' });
    const stats = async () => {
      const info = String(await admin.info('commandstats'));
      const calls = (name: string) => Number(new RegExp(`cmdstat_${name}:calls=(\\d+)`).exec(info)?.[1] ?? 0);
      return { evalsha: calls('evalsha'), eval: calls('eval') };
    };
    await admin.script('FLUSH');
    await admin.config('RESETSTAT');
    expect(await store.claim('a', 'o', LEASE)).toEqual({ state: 'claimed' });
    // Not cached yet: refused by digest (NOSCRIPT), then sent whole once.
    expect(await stats()).toEqual({ evalsha: 1, eval: 1 });
    expect(await store.complete('a', 'o', 'r')).toBe(true);
    expect(await store.claim('a', 'p', LEASE)).toEqual({ state: 'done', result: 'r' });
    expect(await store.read('a')).toEqual({ state: 'done', result: 'r' });
    // complete and read were new (digest refused, text sent); the second claim went by digest alone.
    expect(await stats()).toEqual({ evalsha: 4, eval: 3 });
    expect(await store.read('a')).toEqual({ state: 'done', result: 'r' });
    expect(await stats()).toEqual({ evalsha: 5, eval: 3 });
    await admin.script('FLUSH');
    expect(await store.read('a')).toEqual({ state: 'done', result: 'r' });
    expect(await stats()).toEqual({ evalsha: 6, eval: 4 });
  });

  // ioredis puts a client's `keyPrefix` before every key it sends (KEYS), never before an argument.
  claimStoreSuite('redis, client with a keyPrefix', (clock) => {
    const prefixed = new Redis(server.url, { keyPrefix: `app${++n}:` });
    clients.push(prefixed);
    return createRedisClaimStore(prefixed, { now: clock.now, prefix: 'kp:' });
  });

  it('sweeps the claims of a client with a keyPrefix: no expired hash is left behind in Redis', async () => {
    const clock = manualClock();
    const admin = connect();
    const prefixed = new Redis(server.url, { keyPrefix: 'tenant-a:' });
    clients.push(prefixed);
    const store = createRedisClaimStore(prefixed, { now: clock.now, prefix: 'sweep-kp:' });
    await store.claim('old', 'a', LEASE);
    await store.complete('old', 'a', '"done"');
    await store.claim('stale', 'a', LEASE);
    expect((await admin.keys('tenant-a:sweep-kp:*')).sort()).toEqual([
      'tenant-a:sweep-kp:c:old',
      'tenant-a:sweep-kp:c:stale',
      'tenant-a:sweep-kp:expiry',
    ]);
    clock.jump(LEASE.ttlMs);
    expect(await store.sweep()).toBe(2);
    // Gone from Redis, not only from the index: nothing waits for the backstop expiry.
    expect(await admin.keys('tenant-a:sweep-kp:*')).toEqual([]);
  });

  it('two connections (two replicas) racing for one id: exactly one wins', async () => {
    const clock = manualClock();
    const stores = Array.from({ length: 4 }, () =>
      createRedisClaimStore(connect(), { now: clock.now, prefix: 'race:' }),
    );
    const results = await Promise.all(
      Array.from({ length: 40 }, (_, i) => stores[i % stores.length]?.claim('call-1', `o${i}`, LEASE)),
    );
    expect(results.filter((r) => r?.state === 'claimed')).toHaveLength(1);
  });

  it('a crashed holder (lease lapsed, never completed) reads as running past its lease: unknown outcome', async () => {
    const clock = manualClock();
    const crashed = createRedisClaimStore(connect(), { now: clock.now, prefix: 'crash:' });
    await crashed.claim('call-1', 'dead', LEASE);
    clock.jump(10_000);
    const survivor = createRedisClaimStore(connect(), { now: clock.now, prefix: 'crash:' });
    const seen = await survivor.claim('call-1', 'alive', LEASE);
    expect(seen).toMatchObject({ state: 'running', owner: 'dead' });
    expect(seen.state === 'running' && seen.leaseUntil < clock.now()).toBe(true);
  });

  it('keeps nothing forever: Redis expires a claim shortly after its ttl even if nobody sweeps', async () => {
    const client = connect();
    const store = createRedisClaimStore(client, { prefix: 'ttl:' });
    await store.claim('call-1', 'a', LEASE);
    const ms = await client.pttl('ttl:c:call-1');
    expect(ms).toBeGreaterThan(LEASE.ttlMs);
    expect(ms).toBeLessThanOrEqual(LEASE.ttlMs + 60_000);
  });

  it('rejects as the Redis client does when Redis is down: a commit fails closed, it never acts unclaimed', async () => {
    const client = new Redis('redis://127.0.0.1:1', {
      lazyConnect: true,
      maxRetriesPerRequest: 0,
      retryStrategy: () => null,
      enableOfflineQueue: false,
    });
    client.on('error', () => {});
    clients.push(client);
    const store = createRedisClaimStore(client, { prefix: 'down:' });
    await expect(store.claim('call-1', 'a', LEASE)).rejects.toBeInstanceOf(ClaimStoreUnavailableError);
    await expect(store.read('call-1')).rejects.toMatchObject({ code: 'CLAIMS_UNAVAILABLE' });
  });

  it('a commit while Redis is down fails closed: an error result, the effect never runs, nothing queued', async () => {
    const down = new Redis('redis://127.0.0.1:1', {
      lazyConnect: true,
      maxRetriesPerRequest: 0,
      retryStrategy: () => null,
      enableOfflineQueue: false,
    });
    down.on('error', () => {});
    clients.push(down);
    const serving = await loopback({ kit: { claims: createRedisClaimStore(down, { prefix: 'commit-down:' }) } });
    try {
      const call = { name: 'deploy', arguments: { service: 'order-service' } };
      const first = pendingOf(await wireRound(serving.url, call));
      const final = await wireRound(serving.url, {
        ...call,
        inputResponses: { env: accept({ env: 'dev' }) },
        requestState: first.requestState,
      });
      expect(final.result?.isError).toBe(true);
      // A round with a state reads the call's claim first: unread, the call may have acted before,
      // so it is told to send the same request again, not that nothing was done.
      expect(final.result?.structuredContent).toMatchObject({ status: 'rejected', outcome: 'unknown' });
      expect(JSON.stringify(final.result?.content)).toContain('send the same request again');
      expect(serving.store.deployments).toEqual([]);
      expect(serving.store.attempts).toBe(0);
    } finally {
      await serving.close();
    }
  });

  it('refuses to claim on a Redis that does not keep its data, unless told the store is volatile', async () => {
    const forgetful = await startRedis();
    const client = new Redis(forgetful.url);
    try {
      const store = createRedisClaimStore(client, { prefix: 'nd:' });
      const refused = await store.claim('call-1', 'a', LEASE).catch((e: unknown) => e);
      expect(refused).toBeInstanceOf(ClaimStoreNotDurableError);
      expect((refused as Error).message).toContain('appendonly no');
      expect(await client.keys('nd:*')).toEqual([]);
      // Told it is volatile, it claims (and only while this Redis runs).
      const volatile = createRedisClaimStore(client, { prefix: 'nd:', volatile: true });
      expect(await volatile.claim('call-1', 'a', LEASE)).toEqual({ state: 'claimed' });
    } finally {
      client.disconnect();
      await forgetful.stop();
    }
  });

  it('refuses an append-only file not fsynced on every write (everysec can lose the last second)', async () => {
    const client = connect();
    await client.config('SET', 'appendfsync', 'everysec');
    try {
      const refused = await createRedisClaimStore(client, { prefix: 'es:' })
        .claim('call-1', 'a', LEASE)
        .catch((e: unknown) => e);
      expect(refused).toMatchObject({ code: 'CLAIMS_NOT_DURABLE' });
      expect((refused as Error).message).toContain('appendfsync everysec');
    } finally {
      await client.config('SET', 'appendfsync', 'always');
    }
  });

  it('on a durable Redis a claim and its result survive a restart: the replay is answered, not run', async () => {
    const client = connect();
    const store = createRedisClaimStore(client, { prefix: 'restart:' });
    expect(await store.claim('call-1', 'a', LEASE)).toEqual({ state: 'claimed' });
    expect(await store.complete('call-1', 'a', '{"done":1}')).toBe(true);
    await server.restart();
    await expect.poll(() => client.ping().catch(() => 'down'), { timeout: 10_000 }).toBe('PONG');
    expect(await store.claim('call-1', 'b', LEASE)).toEqual({ state: 'done', result: '{"done":1}' });
  });
});

describe.skipIf(!REDIS)('Redis stopped between claim and completion (a real, durable redis-server)', () => {
  it('the first caller is told its result was not recorded; after Redis is back, a replay is told the outcome is unknown and nothing runs again', async () => {
    const durable = await startRedis({ durable: true });
    const client = new Redis(durable.url, {
      maxRetriesPerRequest: 0,
      enableOfflineQueue: false,
      retryStrategy: () => 50,
    });
    client.on('error', () => {});
    let clock = Date.now();
    const now = () => clock;
    const serving = await loopback({
      kit: { claims: createRedisClaimStore(client, { prefix: 'gap:', now }), claimLeaseMs: 1_000, now },
    });
    try {
      const call = { name: 'stuck_deploy', arguments: {} };
      const first = pendingOf(await wireRound(serving.url, call));
      const final = { ...call, inputResponses: { env: accept({ env: 'dev' }) }, requestState: first.requestState };
      const acting = wireRound(serving.url, final);
      // Claimed, and acting: the effect waits for the test.
      await expect.poll(() => serving.store.unstick !== undefined).toBe(true);
      await durable.down();
      serving.store.unstick?.();
      const answered = await acting;
      expect(answered.result).toMatchObject({ structuredContent: { status: 'done', outcome: 'unrecorded' } });
      expect(serving.store.deployments).toHaveLength(1);
      await durable.up();
      await expect.poll(() => client.ping().catch(() => 'down'), { timeout: 10_000 }).toBe('PONG');
      // The claim came back with Redis (its append-only file); its lease has lapsed: unknown, not run again.
      clock += 5_000;
      const replay = await wireRound(serving.url, final);
      expect(replay.result).toMatchObject({ structuredContent: { status: 'rejected', outcome: 'unknown' } });
      expect(serving.store.deployments).toHaveLength(1);
      expect(serving.store.attempts).toBe(1);
    } finally {
      await serving.close();
      client.disconnect();
      await durable.stop();
    }
  });
});
