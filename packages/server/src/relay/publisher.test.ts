import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startRedis, type TestRedis, withRedis } from '../../../../test/support/redis-server.js';
import { type Frame, FrameRefused, frameKey, open } from './frames.js';
import { Publisher } from './publisher.js';

const REDIS = withRedis('relay/publisher.test.ts');
const keys = frameKey('publisher-test-secret-0123456789abcdef0123');
const channelOf = (replica: string) => `pub:replica:${replica}`;
const head: Frame = { t: 'head', r: 'r1', status: 200, headers: [['content-type', 'text/event-stream']] };
const data = (text: string): Frame => ({ t: 'data', r: 'r1', d: Buffer.from(text).toString('base64') });
const end: Frame = { t: 'end', r: 'r1' };

describe.skipIf(!REDIS)('relay publisher', () => {
  let server: TestRedis;
  const connections: Redis[] = [];
  const connect = () => {
    const c = new Redis(server.url);
    connections.push(c);
    return c;
  };
  beforeAll(async () => {
    server = await startRedis();
  });
  afterAll(async () => {
    await server?.stop();
  });
  afterEach(() => {
    for (const c of connections.splice(0)) c.disconnect();
  });

  /** A replica `b` listening: the frames of each message it gets, message by message. */
  async function listener() {
    const sub = connect();
    const got: Frame[][] = [];
    const seen = new Map<string, number>();
    sub.on('message', (_channel: string, message: string) => {
      const opened = open(keys, 'b', message, seen);
      got.push('frames' in opened ? opened.frames : []);
    });
    await sub.subscribe(channelOf('b'));
    return got;
  }

  it('frames written in one turn for a replica that takes batches go as one message, in order; one a message otherwise', async () => {
    const got = await listener();
    const publisher = new Publisher(connect(), keys, 'a', channelOf);
    const listened = await Promise.all([
      publisher.publish('b', head, { batch: true }),
      publisher.publish('b', data('one'), { batch: true }),
      publisher.publish('b', end, { batch: true }),
    ]);
    expect(listened).toEqual([1, 1, 1]);
    await Promise.all([publisher.publish('b', head), publisher.publish('b', data('two')), publisher.publish('b', end)]);
    await expect.poll(() => got.length).toBe(4);
    expect(got).toEqual([[head, data('one'), end], [head], [data('two')], [end]]);
  });

  it('a frame the receiver would refuse is refused alone, at once; the others of its turn go', async () => {
    const got = await listener();
    const publisher = new Publisher(connect(), keys, 'a', channelOf);
    const bad = { t: 'head', r: 'r1', status: 200, headers: [['bad header', 'x']] } as Frame;
    const outcomes = await Promise.allSettled([
      publisher.publish('b', head, { batch: true }),
      publisher.publish('b', bad, { batch: true }),
      publisher.publish('b', end, { batch: true }),
    ]);
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect((outcomes[1] as PromiseRejectedResult).reason).toBeInstanceOf(FrameRefused);
    await expect.poll(() => got).toEqual([[head, end]]);
  });

  it('large chunks are not gathered into one large message', async () => {
    const got = await listener();
    const publisher = new Publisher(connect(), keys, 'a', channelOf);
    const big = 'x'.repeat(100 * 1024);
    await Promise.all([
      publisher.publish('b', data(big), { batch: true }),
      publisher.publish('b', data(big), { batch: true }),
      publisher.publish('b', end, { batch: true }),
    ]);
    await expect.poll(() => got.length).toBe(2);
    expect(got.map((frames) => frames.map((f) => f.t))).toEqual([['data'], ['data', 'end']]);
  });

  it('a frame with a deadline goes by its digest (EVALSHA), not its script each time; a SCRIPT FLUSH between frames costs one EVAL, nothing lost', async () => {
    const got = await listener();
    const redis = connect();
    const publisher = new Publisher(redis, keys, 'a', channelOf);
    const calls = async () => {
      const stats = String(await redis.info('commandstats'));
      const of = (name: string) => Number(new RegExp(`^cmdstat_${name}:calls=(\\d+)`, 'm').exec(stats)?.[1] ?? 0);
      return { eval: of('eval'), evalsha: of('evalsha') };
    };
    await redis.config('RESETSTAT');
    const [seconds] = await redis.time();
    // Far ahead on Redis's own clock: every one is published.
    const before = { local: performance.now() + 60_000, redis: Number(seconds) * 1_000 + 60_000 };
    const one = (text: string) => publisher.publish('b', data(text), { before });
    for (const text of ['1', '2', '3']) expect(await one(text)).toBe(1);
    await redis.script('FLUSH');
    for (const text of ['4', '5', '6']) expect(await one(text)).toBe(1);
    // Several in one turn, to two replicas: one pipeline.
    await redis.script('FLUSH');
    expect(await Promise.all([one('7'), publisher.publish('c', data('8'), { before }), one('9'), one('10')])).toEqual([
      1, 0, 1, 1,
    ]);
    await expect.poll(() => got.length).toBe(9);
    expect(got.flat()).toEqual(['1', '2', '3', '4', '5', '6', '7', '9', '10'].map(data));
    const { eval: evals, evalsha } = await calls();
    // The text once, and once again after each flush; every other frame by its digest.
    expect(evals).toBeLessThanOrEqual(3);
    expect(evalsha).toBeGreaterThanOrEqual(6);
  });

  it('each frame is told how many listened, and a Redis that cannot be reached fails every frame of the turn', async () => {
    const publisher = new Publisher(connect(), keys, 'a', channelOf);
    expect(
      await Promise.all([publisher.publish('nobody', end, { batch: true }), publisher.publish('nobody', end)]),
    ).toEqual([0, 0]);
    const down = new Redis(server.url, { lazyConnect: true, enableOfflineQueue: false });
    // As a deployment's connection would, it has a listener: ioredis reports the refusal there too.
    down.on('error', () => {});
    connections.push(down);
    const offline = new Publisher(down, keys, 'a', channelOf);
    const outcomes = await Promise.allSettled([offline.publish('b', head, { batch: true }), offline.publish('b', end)]);
    expect(outcomes.map((o) => o.status)).toEqual(['rejected', 'rejected']);
  });
});
