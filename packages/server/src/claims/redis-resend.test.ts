/**
 * A flaky network between a replica and Redis: the connection drops after Redis ran a script but
 * before its reply came back. ioredis (default options, as the docs' example creates it)
 * reconnects and sends the unanswered command again (`autoResendUnfulfilledCommands`), so the
 * store's script runs twice for one call of the store's method: each must answer its second run
 * as it did its first.
 */

import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accept, pendingOf, wireRound } from '../../../../test/support/modern-wire.js';
import { startRedis, type TestRedis, withRedis } from '../../../../test/support/redis-server.js';
import { replyDroppingProxy } from '../../../../test/support/reply-dropping-proxy.js';
import { type Loopback, loopback } from '../../test/loopback.js';
import { manualClock } from './claims.suite.js';
import { createRedisClaimStore } from './redis.js';

const REDIS = withRedis('claims/redis-resend.test.ts');

const LEASE = { leaseMs: 1_000, ttlMs: 60_000 };

describe.skipIf(!REDIS)('redis claim store: a reply lost, the command resent by ioredis', () => {
  let redis: TestRedis;
  let proxy: Awaited<ReturnType<typeof replyDroppingProxy>>;
  let client: Redis;
  let serving: Loopback;
  let warmed = 0;

  beforeAll(async () => {
    redis = await startRedis({ durable: true });
    proxy = await replyDroppingProxy(redis.port);
    // Default ioredis options, as docs/server.md and the store's @example create it.
    client = new Redis(proxy.url);
    client.on('error', () => {});
    serving = await loopback({
      kit: { claims: createRedisClaimStore(client, { prefix: 'resend:' }), claimLeaseMs: 1_000 },
    });
  });
  afterAll(async () => {
    await serving?.close();
    client?.disconnect();
    await proxy?.close();
    await redis?.stop();
  });

  /** One whole call through the kit, so every script is cached in Redis and the first sweep has run. */
  const deployOnce = async (service: string) => {
    const call = { name: 'deploy', arguments: { service } };
    const first = pendingOf(await wireRound(serving.url, call));
    return { ...call, inputResponses: { env: accept({ env: 'dev' }) }, requestState: first.requestState };
  };
  const warm = async () => {
    if (warmed++) return;
    const final = await deployOnce('warm-up');
    expect((await wireRound(serving.url, final)).result).toMatchObject({ structuredContent: { status: 'done' } });
  };

  it("a claim whose reply was lost and that ioredis sent again is still the caller's claim: the effect runs once, the call ends done", async () => {
    await warm();
    const before = serving.store.deployments.length;
    const final = await deployOnce('orders');
    // The claim script: EVALSHA with 2 keys and 5 arguments, ten RESP elements in all.
    const cut = proxy.arm('*10\r\n$7\r\nevalsha');
    const answered = wireRound(serving.url, final);
    await cut;
    const result = (await answered).result;
    expect(
      serving.store.deployments.slice(before),
      'the person confirmed the deploy, and Redis granted the claim; it never ran',
    ).toEqual([{ service: 'orders', env: 'dev' }]);
    expect(result).toMatchObject({ structuredContent: { status: 'done' } });
  });

  it('a completion whose reply was lost and that ioredis sent again still counts as recorded', async () => {
    await warm();
    const before = serving.store.deployments.length;
    const final = await deployOnce('billing');
    // The complete script: EVALSHA with 1 key and 3 arguments (the result among them).
    const cut = proxy.arm('Deployed billing');
    const answered = wireRound(serving.url, final);
    await cut;
    const result = (await answered).result;
    expect(serving.store.deployments.slice(before)).toEqual([{ service: 'billing', env: 'dev' }]);
    // Redis holds the result (a replay gets it), yet the caller was told it was not recorded.
    const replay = await wireRound(serving.url, final);
    expect(replay.result).toMatchObject({ structuredContent: { status: 'done' } });
    expect(
      (result?.structuredContent as { outcome?: string } | undefined)?.outcome,
      'the result was recorded in Redis, but the caller was told it was not',
    ).not.toBe('unrecorded');
  });
});

describe.skipIf(!REDIS)('redis claim store: every script run twice answers as it did once', () => {
  let redis: TestRedis;
  let client: Redis;
  let n = 0;
  beforeAll(async () => {
    redis = await startRedis({ durable: true });
    client = new Redis(redis.url);
  });
  afterAll(async () => {
    client?.disconnect();
    await redis?.stop();
  });
  // The same arguments twice, as a command resent by ioredis carries them (the clock stands still).
  const setup = () => {
    const clock = manualClock();
    return { clock, store: createRedisClaimStore(client, { now: clock.now, prefix: `twice${++n}:` }) };
  };

  it('claim: the holder sent again is told `claimed`; anyone else still sees it running', async () => {
    const { store } = setup();
    expect(await store.claim('call-1', 'a', LEASE)).toEqual({ state: 'claimed' });
    expect(await store.claim('call-1', 'a', LEASE)).toEqual({ state: 'claimed' });
    expect(await store.claim('call-1', 'b', LEASE)).toMatchObject({ state: 'running', owner: 'a' });
    // Done, it is the record for everyone, its holder too: a claim can only be resent before it acts.
    await store.complete('call-1', 'a', '"r"');
    expect(await store.claim('call-1', 'a', LEASE)).toEqual({ state: 'done', result: '"r"' });
  });

  it('complete: sent again by its holder with the same result, it is recorded; another result or owner is not', async () => {
    const { store } = setup();
    await store.claim('call-1', 'a', LEASE);
    expect(await store.complete('call-1', 'a', '"r"')).toBe(true);
    expect(await store.complete('call-1', 'a', '"r"')).toBe(true);
    expect(await store.complete('call-1', 'a', '"other"')).toBe(false);
    expect(await store.complete('call-1', 'b', '"r"')).toBe(false);
    expect(await store.read('call-1')).toEqual({ state: 'done', result: '"r"' });
  });

  it('renew: sent again, it holds; a renewal resent after a later one never moves the lease back', async () => {
    const { store, clock } = setup();
    await store.claim('call-1', 'a', LEASE);
    expect(await store.renew('call-1', 'a', 1_000)).toBe(true);
    expect(await store.renew('call-1', 'a', 1_000)).toBe(true);
    clock.jump(500);
    expect(await store.renew('call-1', 'a', 1_000)).toBe(true);
    const later = clock.now() + 1_000;
    // The earlier renewal arriving again after the later one ran.
    clock.jump(-500);
    expect(await store.renew('call-1', 'a', 1_000)).toBe(true);
    expect(await store.read('call-1')).toMatchObject({ state: 'running', owner: 'a', leaseUntil: later });
    // Completed, a renewal sent again changes nothing.
    await store.complete('call-1', 'a', '"r"');
    expect(await store.renew('call-1', 'a', 1_000)).toBe(false);
    expect(await store.read('call-1')).toEqual({ state: 'done', result: '"r"' });
  });

  it('release: sent again, it deletes nothing, not even a claim someone took meanwhile', async () => {
    const { store } = setup();
    await store.claim('call-1', 'a', LEASE);
    expect(await store.release('call-1', 'a')).toBe(true);
    expect(await store.claim('call-1', 'b', LEASE)).toEqual({ state: 'claimed' });
    expect(await store.release('call-1', 'a')).toBe(false);
    expect(await store.read('call-1')).toMatchObject({ state: 'running', owner: 'b' });
  });
});
