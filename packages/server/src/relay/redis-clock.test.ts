/**
 * Redis's clock as a replica reads it (`RedisClock`) after Redis fails over: a new server — Redis
 * restarted on the same port here — has a clock of its own, and a relayed request's deadline
 * (`PUBLISH_BEFORE`, run by that server on its clock) must be counted from it, not from a reading
 * of the server before it, kept for up to a minute. Read again as soon as the connection is back,
 * the request is published only while its requester waits, whichever way the clocks differ.
 *
 * Both servers run on this host, on one clock: the difference between the old server's clock and
 * the new one's is made by moving this process's monotonic clock (`performance.now`, which the
 * reading pairs with Redis's time) while no server runs — to a reading of the old server, exactly
 * as if the new one's clock were that far apart.
 */
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { startRedis, type TestRedis, withRedis } from '../../../../test/support/redis-server.js';
import { StoreTimeoutError } from '../claims/bounded.js';
import { frameKey } from './frames.js';
import { Publisher } from './publisher.js';
import { RedisClock } from './redis-clock.js';

const REDIS = withRedis('relay/redis-clock.test.ts');
const keys = frameKey('redis-clock-test-secret-0123456789abcdef012');
/**
 * How far apart the two servers' clocks are: less than the age past which a reading is read again
 * anyway (10 s), so only reading it again on reconnection tells the new server's clock.
 */
const APART = 8_000;

describe.skipIf(!REDIS)("Redis's clock after a failover", () => {
  let server: TestRedis;
  const connections: Redis[] = [];
  beforeAll(async () => {
    server = await startRedis();
  });
  afterAll(async () => {
    await server?.stop();
  });
  afterEach(() => {
    vi.restoreAllMocks();
    for (const c of connections.splice(0)) c.disconnect();
  });

  for (const [apart, ahead] of [
    [APART, 'behind'],
    [-APART, 'ahead of'],
  ] as const)
    it(`is read again once the connection is back: the new server's clock, 8 s ${ahead} the old one's, decides each deadline`, async () => {
      const redis = new Redis(server.url, { retryStrategy: () => 20 });
      redis.on('error', () => {});
      connections.push(redis);
      const clock = new RedisClock(redis, 5_000);
      const publisher = new Publisher(redis, keys, 'a', (r) => `clock:replica:${r}`);
      const end = { t: 'end', r: 'r1' } as const;
      /** Whether Redis publishes a frame whose requester gives up at `by` (its own deadline far off). */
      const published = async (by: number) =>
        publisher
          .publish('b', end, { before: { local: performance.now() + 60_000, redis: await clock.before(by) } })
          .then(
            () => true,
            (error: unknown) => {
              if (error instanceof StoreTimeoutError) return false;
              throw error;
            },
          );
      await clock.read();
      expect(await published(performance.now() + 60_000)).toBe(true);
      expect(await published(performance.now() - 1_000)).toBe(false);
      // The server goes; a new one comes on the same port, its clock `apart` from the old one's.
      await server.down();
      const now = performance.now.bind(performance);
      vi.spyOn(performance, 'now').mockImplementation(() => now() + apart);
      const back = new Promise<void>((resolve) => redis.once('ready', () => resolve()));
      await server.up();
      await back;
      // A requester that gave up a moment ago is never published to (judged by the old server's
      // clock, a new one behind it would publish it); one that waits 3 s more is (judged so, a new
      // one ahead of it would refuse it).
      expect(await published(performance.now() - 1_000)).toBe(false);
      expect(await published(performance.now() + 3_000)).toBe(true);
      clock.close();
    });

  it("a deadline asked for while the server is away is counted from the next one's clock, not from the last reading", async () => {
    const redis = new Redis(server.url, { retryStrategy: () => 20 });
    redis.on('error', () => {});
    connections.push(redis);
    const clock = new RedisClock(redis, 5_000);
    const publisher = new Publisher(redis, keys, 'a', (r) => `clock:replica:${r}`);
    const end = { t: 'end', r: 'r1' } as const;
    await clock.read();
    await server.down();
    await new Promise<void>((resolve) => (redis.status === 'ready' ? redis.once('close', () => resolve()) : resolve()));
    // The next server's clock behind the last one's: judged by the last reading, a requester that
    // gave up a moment ago would still be published to when its queued request reaches the new one.
    const now = performance.now.bind(performance);
    vi.spyOn(performance, 'now').mockImplementation(() => now() + APART);
    const outcome = clock
      .before(performance.now() - 1_000)
      .then((redisBy) => publisher.publish('b', end, { before: { local: performance.now() + 60_000, redis: redisBy } }))
      .then(
        () => 'published',
        (error: unknown) => (error instanceof StoreTimeoutError ? 'refused' : error),
      );
    await server.up();
    expect(await outcome).toBe('refused');
    clock.close();
  });
});
