/**
 * Two replicas on one Redis claim store whose clocks differ by 20 s. The store writes a lease with
 * the claiming replica's clock; the other replica must not read a live, renewing holder as dead
 * (docs/server.md: up to five thirds of a lease, 25 s by default). Was: judged against its own
 * clock, a replay there was told "may or may not have taken effect" while the holder acted.
 */
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accept, pendingOf, wireRound } from '../../../../test/support/modern-wire.js';
import { startRedis, type TestRedis, withRedis } from '../../../../test/support/redis-server.js';
import { type Loopback, loopback } from '../../test/loopback.js';
import { createRedisClaimStore } from './redis.js';

const REDIS = withRedis('claims/redis-clock-skew.test.ts');

const SECRET = 'one secret for both replicas: a state sealed on one opens on the other';
const SKEW_MS = 20_000;

describe.skipIf(!REDIS)('redis claim store: replicas whose clocks differ', () => {
  let redis: TestRedis;
  const clients: Redis[] = [];
  let a: Loopback;
  let b: Loopback;

  beforeAll(async () => {
    redis = await startRedis({ durable: true });
    const connect = () => {
      const client = new Redis(redis.url);
      clients.push(client);
      return client;
    };
    const ahead = () => Date.now() + SKEW_MS;
    a = await loopback({ kit: { secret: SECRET, claims: createRedisClaimStore(connect(), { prefix: 'skew:' }) } });
    b = await loopback({
      kit: {
        secret: SECRET,
        now: ahead,
        commitWaitMs: 300,
        claims: createRedisClaimStore(connect(), { prefix: 'skew:', now: ahead }),
      },
    });
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
    for (const client of clients) client.disconnect();
    await redis?.stop();
  });

  it('a replay on the replica whose clock is ahead, while the first attempt is acting and renewing, is told it is running, not that its outcome is unknown', async () => {
    const call = { name: 'stuck_deploy', arguments: {} };
    const first = pendingOf(await wireRound(a.url, call));
    const final = { ...call, inputResponses: { env: accept({ env: 'prod' }) }, requestState: first.requestState };
    const acting = wireRound(a.url, final);
    // Claimed on A, and acting: its lease is fresh (15 s, renewed every 5 s).
    await expect.poll(() => a.store.unstick !== undefined).toBe(true);
    const replay = await wireRound(b.url, final);
    a.store.unstick?.();
    expect((await acting).result).toMatchObject({ structuredContent: { status: 'done' } });
    expect(a.store.deployments).toHaveLength(1);
    expect(
      replay.result?.structuredContent,
      'B told the person the deploy "may or may not have taken effect" while A was acting on it',
    ).toMatchObject({ outcome: 'running' });
  });
});
