/**
 * The question budget in Redis: one window for every replica of a host. Two limiters on two
 * connections stand for two instances; Redis is a real `redis-server`.
 */
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRedis, type TestRedis, withRedis } from '../../../../test/support/redis-server.js';
import { AttachError } from '../errors.js';
import { createRedisRateLimiter } from './redis-rate-limit.js';

const REDIS = withRedis('policy/redis-rate-limit.test.ts');

let server: TestRedis;
const clients: Redis[] = [];
beforeAll(async () => {
  if (!REDIS) return;
  server = await startRedis();
});
afterAll(async () => {
  for (const client of clients) client.disconnect();
  await server?.stop();
});

function connect(): Redis {
  const client = new Redis(server.url, { maxRetriesPerRequest: 0 });
  clients.push(client);
  return client;
}

/** Two instances' limiters, each on its own connection. */
function twoInstances(max: number, perMs: number) {
  return [
    createRedisRateLimiter({ redis: connect(), max, perMs }),
    createRedisRateLimiter({ redis: connect(), max, perMs }),
  ] as const;
}

let keys = 0;
const freshKey = () => `chat-${++keys}`;

describe.skipIf(!REDIS)('createRedisRateLimiter', () => {
  it('two instances count into one budget: max in all, not max each', async () => {
    const [a, b] = twoInstances(10, 60_000);
    const key = freshKey();
    const taken: boolean[] = [];
    for (let i = 0; i < 6; i++) taken.push(await a.take(key));
    for (let i = 0; i < 6; i++) taken.push(await b.take(key));
    expect(taken).toEqual([...Array(10).fill(true), false, false]);
  });

  it('questions at once from both: exactly max get through', async () => {
    const [a, b] = twoInstances(10, 60_000);
    const key = freshKey();
    const all = await Promise.all(Array.from({ length: 40 }, (_, i) => (i % 2 ? a : b).take(key)));
    expect(all.filter(Boolean)).toHaveLength(10);
  });

  it('keys are counted apart, and a key holds nothing past its window', async () => {
    const redis = connect();
    const limiter = createRedisRateLimiter({ redis, max: 2, perMs: 60_000, prefix: 'test:budget:' });
    const [one, two] = [freshKey(), freshKey()];
    expect([await limiter.take(one), await limiter.take(one), await limiter.take(one)]).toEqual([true, true, false]);
    expect(await limiter.take(two)).toBe(true);
    const ttl = await redis.pttl(`test:budget:${one}`);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(60_000);
  });

  it('the window slides: once the oldest question leaves it, one more gets through', async () => {
    const redis = connect();
    const limiter = createRedisRateLimiter({ redis, max: 2, perMs: 400 });
    const key = freshKey();
    expect([await limiter.take(key), await limiter.take(key), await limiter.take(key)]).toEqual([true, true, false]);
    // Refused questions are not recorded, so the budget comes back once the window has moved on.
    await expect.poll(() => limiter.take(key), { timeout: 5_000, interval: 100 }).toBe(true);
  });

  it('a Redis it cannot reach fails the question, never lets it through', async () => {
    const gone = new Redis(`redis://127.0.0.1:${server.port + 1}`, {
      maxRetriesPerRequest: 0,
      retryStrategy: () => null,
      lazyConnect: true,
    });
    gone.on('error', () => {});
    clients.push(gone);
    const limiter = createRedisRateLimiter({ redis: gone, max: 10, perMs: 60_000 });
    await expect(limiter.take(freshKey())).rejects.toThrow();
  });

  it('refuses a budget that cannot work', () => {
    const redis = connect();
    for (const bad of [
      { max: 0, perMs: 1000 },
      { max: 1.5, perMs: 1000 },
      { max: 3, perMs: 0 },
      { max: 3, perMs: Number.NaN },
    ])
      expect(() => createRedisRateLimiter({ redis, ...bad })).toThrow(AttachError);
  });
});
