import { getEventListeners } from 'node:events';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it, onTestFinished, vi } from 'vitest';
import { startRedis, type TestRedis, withRedis } from '../../../../test/support/redis-server.js';
import { createRedisRegistry } from './redis.js';
import { manualClock, registrySuite } from './registry.suite.js';

const REDIS = withRedis('registry/redis.test.ts');

let server: TestRedis;
beforeAll(async () => {
  if (!REDIS) return;
  server = await startRedis();
});
afterAll(async () => {
  await server?.stop();
});

/** Lets timers and I/O callbacks already due run, and Node report any rejection left unhandled. */
const settle = () => new Promise((resolve) => setTimeout(resolve, 50));

/**
 * Fails the test on a rejection nobody handled while it ran. (Vitest leaves such a rejection to
 * a listener of ours, and would otherwise report it for the whole run, not for this test.)
 */
function failOnUnhandledRejections(): void {
  const seen: unknown[] = [];
  const onRejection = (reason: unknown) => seen.push(reason);
  process.on('unhandledRejection', onRejection);
  onTestFinished(async () => {
    await settle();
    process.off('unhandledRejection', onRejection);
    expect(seen).toEqual([]);
  });
}

/** How many connections listen on `channel`. */
async function listeners(redis: Redis, channel: string): Promise<number> {
  return Number(((await redis.pubsub('NUMSUB', channel)) as [string, number])[1]);
}

/** A wait listens for its abort once its first look at the question is back (and found it pending). */
async function firstLookDone(signal: AbortSignal): Promise<void> {
  await expect.poll(() => getEventListeners(signal, 'abort').length).toBe(1);
}

let n = 0;
if (REDIS)
  registrySuite('redis', (clock) => {
    const registry = createRedisRegistry({
      redis: server.url,
      prefix: `suite${++n}:`,
      now: clock.now,
      setTimer: clock.setTimer,
    });
    onTestFinished(() => registry.close());
    return registry;
  });

describe.skipIf(!REDIS)('redis registry across processes', () => {
  it('wakes a waiter on one replica when another takes the answer, and both agree how it settled', async () => {
    const a = createRedisRegistry({ redis: server.url, prefix: 'replicas:' });
    const client = new Redis(server.url);
    const b = createRedisRegistry({ redis: client, prefix: 'replicas:' });
    onTestFinished(async () => {
      await a.close();
      await b.close();
      await client.quit();
    });
    const id = await a.open({ owner: 'chat-1', data: { server: 'opsdesk' } });
    const waiting = a.wait(id);
    expect(await b.resolve(id, 'chat-2', { action: 'decline' })).toBe('forbidden');
    expect(await b.resolve(id, 'chat-1', { action: 'accept', content: { env: 'dev' } })).toBe('ok');
    expect(await waiting).toEqual({ reason: 'answered', answer: { action: 'accept', content: { env: 'dev' } } });
    expect((await a.get(id))?.settlement).toEqual((await b.get(id))?.settlement);
    expect(await a.resolve(id, 'chat-1', { action: 'decline' })).toBe('already-answered');
    // A withdrawal on one replica reaches a waiter on the other.
    const second = await b.open({ owner: 'chat-1' });
    const other = b.wait(second);
    await a.withdraw(second);
    expect(await other).toEqual({ reason: 'withdrawn' });
  });

  it('wakes a waiter whose subscription dropped while the answer was published', async () => {
    const waiting = createRedisRegistry({ redis: server.url, prefix: 'drop:' });
    const answering = createRedisRegistry({ redis: server.url, prefix: 'drop:' });
    const admin = new Redis(server.url);
    onTestFinished(async () => {
      await waiting.close();
      await answering.close();
      await admin.quit();
    });
    const id = await waiting.open({ owner: 'chat-9' });
    const settled = waiting.wait(id);
    await expect
      .poll(async () => Number(((await admin.pubsub('NUMSUB', 'drop:settled')) as [string, number])[1]))
      .toBe(2);
    // Drop every subscriber connection, answer while they are down; the waiter's comes back.
    await admin.call('CLIENT', 'KILL', 'TYPE', 'pubsub');
    expect(await answering.resolve(id, 'chat-9', { action: 'decline' })).toBe('ok');
    expect(await settled).toEqual({ reason: 'answered', answer: { action: 'decline' } });
  });

  it('a wait aborted while Redis is down fails quietly (no unhandled rejection); the wait still ends', async () => {
    failOnUnhandledRejections();
    const own = await startRedis();
    // No retries: a command while the server is down fails at once, as it would after ioredis gave up.
    const client = new Redis(own.url, { maxRetriesPerRequest: 0 });
    const registry = createRedisRegistry({ redis: client });
    onTestFinished(async () => {
      await registry.close();
      client.disconnect();
      await own.stop();
    });
    const id = await registry.open({ owner: 'chat-1' });
    const abort = new AbortController();
    const settled = registry.wait(id, abort.signal);
    // Should the wait fail after all, it fails the `await settled` below rather than the whole run.
    settled.catch(() => undefined);
    // Nothing of the wait is in flight when Redis dies. (Subscribed alone is not enough: its first
    // look could still be on the wire, fail with the server, and reject `settled` — as CI once saw.)
    await firstLookDone(abort.signal);
    await own.down();
    await expect.poll(() => client.status).not.toBe('ready');
    abort.abort();
    // The withdrawal's failure lands here, caught; an unhandled one would fail this test.
    await expect(client.get('x')).rejects.toThrow();
    await settle();
    await registry.close();
    expect(await settled).toEqual({ reason: 'unknown' });
  });

  it('a subscription cut again as soon as it reconnects fails quietly, and the next connection subscribes again', async () => {
    failOnUnhandledRejections();
    // No retries: a SUBSCRIBE in flight when the connection drops fails at once (the subscription inherits this).
    const client = new Redis(server.url, { maxRetriesPerRequest: 0 });
    const duplicate = vi.spyOn(client, 'duplicate');
    const registry = createRedisRegistry({ redis: client, prefix: 'resub:' });
    const subscriber = duplicate.mock.results[0]?.value as Redis;
    const answering = createRedisRegistry({ redis: server.url, prefix: 'resub:' });
    onTestFinished(async () => {
      await registry.close();
      await answering.close();
      client.disconnect();
    });
    const id = await registry.open({ owner: 'chat-1' });
    const first = new AbortController();
    const settled = registry.wait(id, first.signal);
    settled.catch(() => undefined); // a failure shows at `await settled` below
    // Subscribed, and the acknowledgement read here (a wait looks only after it), before the first cut.
    await firstLookDone(first.signal);
    // Cut its connection; cut it again the moment it is back ('ready' comes a tick after the
    // connection is, so what the subscriber sent on reconnecting is on the wire, unanswered).
    const back = new Promise<void>((resolve) =>
      subscriber.once('ready', () => {
        subscriber.stream.destroy();
        subscriber.once('ready', () => resolve());
      }),
    );
    subscriber.stream.destroy();
    await back;
    await expect.poll(() => listeners(client, 'resub:settled')).toBe(2);
    expect(await answering.resolve(id, 'chat-1', { action: 'decline' })).toBe('ok');
    expect(await settled).toEqual({ reason: 'answered', answer: { action: 'decline' } });
    // A question waited for now hears its answer through the subscription: nothing else would look.
    const next = await registry.open({ owner: 'chat-1' });
    const abort = new AbortController();
    const nextSettled = registry.wait(next, abort.signal);
    await firstLookDone(abort.signal);
    expect(await answering.resolve(next, 'chat-1', { action: 'decline' })).toBe('ok');
    expect(await nextSettled).toEqual({ reason: 'answered', answer: { action: 'decline' } });
  });

  it('a registry started while Redis is down fails its waits until Redis is back, then waits again', async () => {
    failOnUnhandledRejections();
    const own = await startRedis();
    await own.down();
    const client = new Redis(own.url, { maxRetriesPerRequest: 0 });
    const registry = createRedisRegistry({ redis: client });
    onTestFinished(async () => {
      await registry.close();
      client.disconnect();
      await own.stop();
    });
    // Its first SUBSCRIBE failed with the server; the subscription is retried on the next connection.
    await expect(registry.wait('any')).rejects.toThrow();
    await own.up();
    // Its subscriber is back (it sends SUBSCRIBE once connected), and a wait now waits for that.
    await expect.poll(() => listeners(client, 'elicitkit:registry:settled'), { timeout: 5_000 }).toBe(1);
    const id = await registry.open({ owner: 'chat-1' });
    const abort = new AbortController();
    const settled = registry.wait(id, abort.signal);
    settled.catch(() => undefined); // a failure shows at `await settled` below
    await firstLookDone(abort.signal);
    expect(await registry.resolve(id, 'chat-1', { action: 'decline' })).toBe('ok');
    expect(await settled).toEqual({ reason: 'answered', answer: { action: 'decline' } });
  });

  it('keeps questions in their own prefix, and forgets them after their time', async () => {
    const clock = manualClock();
    const one = createRedisRegistry({ redis: server.url, prefix: 'p1:', now: clock.now, retainMs: 1_000 });
    const two = createRedisRegistry({ redis: server.url, prefix: 'p2:' });
    onTestFinished(async () => {
      await one.close();
      await two.close();
    });
    const id = await one.open({ owner: 'x', timeoutMs: 50 });
    expect(await two.get(id)).toBeUndefined();
    expect(await two.resolve(id, 'x', { action: 'decline' })).toBe('unknown');
    const raw = new Redis(server.url);
    onTestFinished(() => void raw.disconnect());
    expect(await raw.pttl(`p1:q:${id}`)).toBeGreaterThan(0);
    expect(await raw.pttl(`p1:q:${id}`)).toBeLessThanOrEqual(1_050);
  });
});

describe.skipIf(!REDIS)('redis registry: durations Redis cannot take', () => {
  // Redis keeps what a script wrote before a command of it failed: a PEXPIRE refused after the
  // HSET left a question that never expired, and a settlement written but never published.
  it.each([1e20, Number.MAX_VALUE])(
    'refuses a timeout of %s ms before writing anything (the question was left never expiring)',
    async (timeoutMs) => {
      const prefix = `huge${++n}:`;
      const registry = createRedisRegistry({ redis: server.url, prefix });
      const raw = new Redis(server.url);
      onTestFinished(async () => {
        await registry.close();
        await raw.quit();
      });
      await expect(registry.open({ owner: 'chat-1', timeoutMs })).rejects.toMatchObject({ code: 'BAD_TIMEOUT' });
      expect(await raw.keys(`${prefix}*`)).toEqual([]);
    },
  );

  // 0: a waiter on another replica, woken by the publish, found the question gone and read it as
  // unknown, so the answer the person was told was taken ('ok') reached the asking side as cancel.
  it.each([Number.NaN, Number.POSITIVE_INFINITY, -1, 1e20, 0, 999])(
    'refuses retainMs %s when it is made, before any question is written',
    (retainMs) => {
      expect(() => createRedisRegistry({ redis: server.url, retainMs })).toThrow(
        expect.objectContaining({ code: 'BAD_TIMEOUT' }),
      );
    },
  );

  it('a retainMs with a fraction settles, wakes the waiter and is forgotten in whole milliseconds', async () => {
    const prefix = `fraction${++n}:`;
    const registry = createRedisRegistry({ redis: server.url, prefix, retainMs: 1_500.5 });
    const raw = new Redis(server.url);
    onTestFinished(async () => {
      await registry.close();
      await raw.quit();
    });
    const id = await registry.open({ owner: 'chat-1' });
    const waiting = registry.wait(id);
    expect(await registry.resolve(id, 'chat-1', { action: 'decline' })).toBe('ok');
    expect(await waiting).toEqual({ reason: 'answered', answer: { action: 'decline' } });
    expect(await raw.pttl(`${prefix}q:${id}`)).toBeGreaterThan(0);
    expect(await raw.pttl(`${prefix}q:${id}`)).toBeLessThanOrEqual(1_501);
  });
});

describe.skipIf(!REDIS)('redis registry: what others write on its Redis', () => {
  it('a forged settlement published on its channel answers nothing, and malformed messages crash nothing', async () => {
    const registry = createRedisRegistry({ redis: server.url, prefix: 'forge:' });
    const client = new Redis(server.url);
    onTestFinished(async () => {
      await registry.close();
      await client.quit();
    });
    const uncaught: unknown[] = [];
    const onUncaught = (e: unknown) => uncaught.push(e);
    process.on('uncaughtException', onUncaught);
    onTestFinished(() => {
      process.off('uncaughtException', onUncaught);
    });
    const id = await registry.open({ owner: 'chat-1' });
    let settled: unknown;
    const waiting = registry.wait(id).then((s) => {
      settled = s;
    });
    for (const message of [
      `${id}\n${JSON.stringify({ reason: 'answered', answer: { action: 'accept', content: { env: 'prod' } } })}`,
      `${id}\n{not json`,
      `${id}\n`,
      id,
      '\n\n',
      'x'.repeat(10_000),
    ])
      await client.publish('forge:settled', message);
    await client.ping();
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(settled).toBeUndefined();
    expect((await registry.get(id))?.settlement).toBeUndefined();
    // The real answer still settles it, as given.
    expect(await registry.resolve(id, 'chat-1', { action: 'decline' })).toBe('ok');
    await waiting;
    expect(settled).toEqual({ reason: 'answered', answer: { action: 'decline' } });
    expect(uncaught).toEqual([]);
  });

  it.each([
    ['data that is not JSON', { data: '{oops' }],
    ['a settlement that is not JSON', { settlement: 'nope' }],
    ['a settlement of no known kind', { settlement: JSON.stringify({ reason: 'paid' }) }],
    ['an answer of no known action', { settlement: JSON.stringify({ reason: 'answered', answer: { action: 'pay' } }) }],
    ['times that are not numbers', { openedAt: 'yesterday' }],
  ])('a malformed entry (%s) reads as no question, not a throw', async (_why, broken) => {
    const prefix = `junk${Math.random().toString(36).slice(2)}:`;
    const registry = createRedisRegistry({ redis: server.url, prefix });
    const client = new Redis(server.url);
    onTestFinished(async () => {
      await registry.close();
      await client.quit();
    });
    const id = await registry.open({ owner: 'chat-1', data: { ok: true } });
    await client.hset(`${prefix}q:${id}`, broken);
    expect(await registry.get(id)).toBeUndefined();
    await client.set(`${prefix}q:wrong`, 'a string, not a hash');
    expect(await registry.get('wrong')).toBeUndefined();
  });
});
