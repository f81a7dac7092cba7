/**
 * A Redis client told to wait for ever (`maxRetriesPerRequest: null`, as BullMQ wants) holds every
 * command while Redis is down. Was: a claim, a completion or a read waited as long, so the tool
 * call (a 2026-07-28 round too) never ended. Now each store operation gives up after `timeoutMs`
 * and ends as with Redis unreachable: before the claim, nothing was done; after the effect, the
 * result is reported as not recorded; a replay that cannot read is told the outcome is unknown.
 */
import { Redis } from 'ioredis';
import { afterEach, describe, expect, it } from 'vitest';
import { accept, pendingOf, wireRound } from '../../../../test/support/modern-wire.js';
import { startRedis, type TestRedis, withRedis } from '../../../../test/support/redis-server.js';
import { loopback } from '../../test/loopback.js';
import { ClaimStoreUnavailableError, createRedisClaimStore } from './redis.js';

const REDIS = withRedis('claims/redis-timeout.test.ts');
const LEASE = { leaseMs: 1_000, ttlMs: 60_000 };

describe.skipIf(!REDIS)('a Redis client that waits for ever, Redis down (a real, durable redis-server)', () => {
  let server: TestRedis | undefined;
  const clients: Redis[] = [];
  const patient = (url: string) => {
    // Queues every command while disconnected and never fails it: it waits for Redis to come back.
    const client = new Redis(url, { maxRetriesPerRequest: null, retryStrategy: () => 50 });
    client.on('error', () => {});
    clients.push(client);
    return client;
  };
  afterEach(async () => {
    for (const client of clients.splice(0)) client.disconnect();
    await server?.stop();
    server = undefined;
  });

  it('every operation ends with CLAIMS_UNAVAILABLE; a claim Redis takes later is given back', async () => {
    server = await startRedis({ durable: true });
    const client = patient(server.url);
    const store = createRedisClaimStore(client, { prefix: 'to:', timeoutMs: 1_000 });
    expect(await store.claim('held', 'a', LEASE)).toEqual({ state: 'claimed' });
    await server.down();
    await expect.poll(() => client.status).not.toBe('ready');
    const failed = await Promise.allSettled([
      store.claim('call-1', 'a', LEASE),
      store.renew('held', 'a', 1_000),
      store.complete('held', 'a', '"r"'),
      store.release('held', 'a'),
      store.read('held'),
      store.sweep(),
    ]);
    for (const outcome of failed) {
      expect(outcome.status).toBe('rejected');
      const reason = (outcome as PromiseRejectedResult).reason as Error;
      expect(reason).toBeInstanceOf(ClaimStoreUnavailableError);
      expect(reason.message).toContain('no answer within 1000 ms (timeoutMs)');
    }
    await server.up();
    // The queued commands reach Redis now: the claim 'call-1' its caller gave up on is released
    // right after it is taken, so a replay may act; the other queued ones ran too.
    const admin = patient(server.url);
    await expect.poll(() => admin.ping().catch(() => 'down'), { timeout: 10_000 }).toBe('PONG');
    await expect
      .poll(() => store.read('held').catch(() => 'down'), { timeout: 10_000 })
      .toEqual({ state: 'done', result: '"r"' });
    // Given back once its late answer came: the release goes after that answer, so it may land
    // after the reads above (it waits on the durability check a reconnect brings): polled, not read once.
    await expect.poll(() => admin.exists('to:c:call-1'), { timeout: 10_000 }).toBe(0);
    expect(await store.claim('call-1', 'b', LEASE)).toEqual({ state: 'claimed' });
  });

  it('refuses a timeoutMs that is not a whole number of ms', () => {
    const client = new Redis({ lazyConnect: true });
    for (const timeoutMs of [0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY])
      expect(() => createRedisClaimStore(client, { timeoutMs })).toThrow(RangeError);
  });

  it('a 2026-07-28 final round while Redis is down ends: nothing done, and the replay is told it is unknown', async () => {
    server = await startRedis({ durable: true });
    const client = patient(server.url);
    await client.ping();
    const serving = await loopback({
      kit: { claims: createRedisClaimStore(client, { prefix: 'round:', timeoutMs: 1_000 }) },
    });
    try {
      const call = { name: 'deploy', arguments: { service: 'order-service' } };
      const first = pendingOf(await wireRound(serving.url, call));
      await server.down();
      await expect.poll(() => client.status).not.toBe('ready');
      const final = await wireRound(serving.url, {
        ...call,
        inputResponses: { env: accept({ env: 'dev' }) },
        requestState: first.requestState,
      });
      expect(final.result?.isError).toBe(true);
      // The round reads the call's claim first: unread, it may have acted before, so: unknown.
      expect(final.result?.structuredContent).toMatchObject({ status: 'rejected', outcome: 'unknown' });
      expect(serving.store.deployments).toEqual([]);
      expect(serving.store.attempts).toBe(0);
    } finally {
      await serving.close();
    }
  });

  it('Redis gone between claim and completion: the caller is told the result was not recorded', async () => {
    server = await startRedis({ durable: true });
    const client = patient(server.url);
    const serving = await loopback({
      kit: { claims: createRedisClaimStore(client, { prefix: 'gap:', timeoutMs: 1_000 }) },
    });
    try {
      const call = { name: 'stuck_deploy', arguments: {} };
      const first = pendingOf(await wireRound(serving.url, call));
      const final = { ...call, inputResponses: { env: accept({ env: 'dev' }) }, requestState: first.requestState };
      const acting = wireRound(serving.url, final);
      await expect.poll(() => serving.store.unstick !== undefined).toBe(true);
      await server.down();
      await expect.poll(() => client.status).not.toBe('ready');
      serving.store.unstick?.();
      const answered = await acting;
      expect(answered.result).toMatchObject({ structuredContent: { status: 'done', outcome: 'unrecorded' } });
      expect(serving.store.deployments).toHaveLength(1);
    } finally {
      await serving.close();
    }
  });
});
