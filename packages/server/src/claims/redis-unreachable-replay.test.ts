/**
 * A replay of a call that already acted, arriving while the claim store cannot be reached (Redis
 * down for a moment): the replay cannot learn what the call did, so it must not say the call did
 * nothing. Was: "The claim store (Redis) cannot be reached, so nothing was done" — read by a
 * client whose first answer was lost (the very reason it replays) as "not deployed", and a new call
 * deployed a second time. Now it says whether the call took effect cannot be told yet, and to send
 * the same request again; sent again once Redis is back, it gets the recorded result.
 */
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accept, pendingOf, wireRound } from '../../../../test/support/modern-wire.js';
import { startRedis, type TestRedis, withRedis } from '../../../../test/support/redis-server.js';
import { loopback } from '../../test/loopback.js';
import { createRedisClaimStore } from './redis.js';

const REDIS = withRedis('claims/redis-unreachable-replay.test.ts');

describe.skipIf(!REDIS)('a replay while the claim store cannot be reached (a real, durable redis-server)', () => {
  let durable: TestRedis;
  let client: Redis;
  beforeAll(async () => {
    durable = await startRedis({ durable: true });
    // Fails at once while Redis is down (nothing queued), reconnects once it is back.
    client = new Redis(durable.url, { maxRetriesPerRequest: 0, enableOfflineQueue: false, retryStrategy: () => 50 });
    client.on('error', () => {});
  });
  afterAll(async () => {
    client?.disconnect();
    await durable?.stop();
  });

  // Not a Redis that cannot be reached: one the store refuses (it would forget claims). That is
  // said as it is, for the operator to fix, on the answering round too.
  it('a Redis that does not keep its data is named as such on the answering round, nothing run', async () => {
    const forgetful = await startRedis();
    const plain = new Redis(forgetful.url);
    const serving = await loopback({ kit: { claims: createRedisClaimStore(plain, { prefix: 'forgetful:' }) } });
    try {
      const call = { name: 'deploy', arguments: { service: 'order-service' } };
      const first = pendingOf(await wireRound(serving.url, call));
      const final = { ...call, inputResponses: { env: accept({ env: 'dev' }) }, requestState: first.requestState };
      const answered = await wireRound(serving.url, final);
      expect(answered.result?.isError).toBe(true);
      expect(JSON.stringify(answered.result?.content)).toContain('does not keep its data (appendonly no)');
      expect(serving.store.deployments).toEqual([]);
    } finally {
      await serving.close();
      plain.disconnect();
      await forgetful.stop();
    }
  });

  it('is not told nothing was done; sent again once Redis is back, it gets the recorded result, nothing run twice', async () => {
    const serving = await loopback({ kit: { claims: createRedisClaimStore(client, { prefix: 'replay-down:' }) } });
    try {
      const call = { name: 'deploy', arguments: { service: 'order-service' } };
      const first = pendingOf(await wireRound(serving.url, call));
      const final = { ...call, inputResponses: { env: accept({ env: 'dev' }) }, requestState: first.requestState };
      const answered = await wireRound(serving.url, final);
      expect(answered.result).toMatchObject({ structuredContent: { status: 'done' } });
      expect(serving.store.deployments).toHaveLength(1);

      await durable.down();
      const replay = await wireRound(serving.url, final);
      const told = JSON.stringify(replay.result ?? replay.error);
      expect(told).not.toContain('nothing was done');
      expect(replay.result, told).toMatchObject({
        isError: true,
        structuredContent: {
          status: 'rejected',
          outcome: 'unknown',
          message: expect.stringContaining('send the same request again'),
        },
      });
      expect(serving.store.deployments).toHaveLength(1);

      await durable.up();
      await expect.poll(() => client.ping().catch(() => 'down'), { timeout: 10_000 }).toBe('PONG');
      const again = await wireRound(serving.url, final);
      expect(again.result).toEqual(answered.result);
      expect(serving.store.deployments).toHaveLength(1);
    } finally {
      await serving.close();
    }
  });
});
