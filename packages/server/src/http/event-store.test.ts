/**
 * The event stores behind resumable 2025 streams, one behaviour suite for each (memory, Redis),
 * and what a session sees of a shared store (`sessionEvents`): its own streams only.
 */
import type { EventStore, JSONRPCMessage } from '@modelcontextprotocol/server';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRedis, type TestRedis, withRedis } from '../../../../test/support/redis-server.js';
import { replyDroppingProxy } from '../../../../test/support/reply-dropping-proxy.js';
import { createMemoryEventStore, forgetSessionEvents, sessionEvents } from './event-store.js';
import { createRedisEventStore } from './redis-event-store.js';

const SECRET = 'a secret both replicas share, at least thirty-two characters';
const note = (n: number): JSONRPCMessage => ({ jsonrpc: '2.0', method: 'notifications/message', params: { n } });

async function replayed(store: EventStore, after: string) {
  const sent: [string, JSONRPCMessage][] = [];
  const stream = await store.replayEventsAfter(after, {
    send: async (id, message) => {
      sent.push([id, message]);
    },
  });
  return { stream, ids: sent.map(([id]) => id), messages: sent.map(([, m]) => m) };
}

function suite(name: string, make: (max: number) => EventStore | undefined) {
  describe(`${name} event store`, () => {
    it('replays, in order, the events of a stream after the one given, and names the stream', async () => {
      const store = make(100) as EventStore;
      const ids = [];
      for (let n = 1; n <= 4; n++) ids.push(await store.storeEvent('s1', note(n)));
      await store.storeEvent('s2', note(99));
      const after = await replayed(store, ids[1] as string);
      expect(after.stream).toBe('s1');
      expect(after.messages).toEqual([note(3), note(4)]);
      expect(after.ids).toEqual(ids.slice(2));
      expect(await store.getStreamIdForEventId?.(ids[0] as string)).toBe('s1');
      expect((await replayed(store, ids[3] as string)).messages).toEqual([]);
    });

    it('refuses an event id it did not make', async () => {
      const store = make(100) as EventStore;
      await store.storeEvent('s1', note(1));
      for (const id of ['', 'nonsense', 's1', 's1#', 's1#x', 'other#1', '#1']) {
        expect(await store.getStreamIdForEventId?.(id), id).toBeUndefined();
      }
      await expect(replayed(store, 'nonsense')).rejects.toThrow();
    });

    it('keeps the last events of a long stream, and replays what it kept', async () => {
      const store = make(3) as EventStore;
      const ids = [];
      for (let n = 1; n <= 6; n++) ids.push(await store.storeEvent('long', note(n)));
      expect((await replayed(store, ids[0] as string)).messages).toEqual([note(4), note(5), note(6)]);
    });

    it('a session sees only its own streams, whatever id it is given', async () => {
      const shared = make(100) as EventStore;
      const alice = sessionEvents(shared, 'alice-session');
      const mallory = sessionEvents(shared, 'mallory-session');
      const first = await alice.storeEvent('_GET_stream', note(1));
      await alice.storeEvent('_GET_stream', note(2));
      expect((await replayed(alice, first)).stream).toBe('_GET_stream');
      expect(await mallory.getStreamIdForEventId?.(first)).toBeUndefined();
      await expect(replayed(mallory, first)).rejects.toThrow();
      const hers = await mallory.storeEvent('_GET_stream', note(3));
      expect(await alice.getStreamIdForEventId?.(hers)).toBeUndefined();
    });
  });
}

suite('memory', (max) => createMemoryEventStore({ maxEventsPerStream: max }));

describe('memory event store bounds', () => {
  const answer = (id: number): JSONRPCMessage => ({ jsonrpc: '2.0', id, result: {} });
  const PRIMING = {} as JSONRPCMessage;

  it('forgets a stream that carried its response past its time; one still waiting is kept', async () => {
    let now = 0;
    const store = createMemoryEventStore({ ttlMs: 1000, now: () => now });
    const done = await store.storeEvent('s/done', PRIMING);
    await store.storeEvent('s/done', answer(1));
    const open = await store.storeEvent('s/open', PRIMING);
    await store.storeEvent('s/open', note(1));
    now = 60 * 60_000;
    expect(await store.getStreamIdForEventId?.(done)).toBeUndefined();
    expect((await replayed(store, open)).messages).toEqual([note(1)]);
  });

  it("bounds each session's streams by its own: another session's writes never drop one", async () => {
    const store = createMemoryEventStore({ maxStreamsPerSession: 2 });
    const alice = sessionEvents(store, 'alice-session');
    const mallory = sessionEvents(store, 'mallory-session');
    const hers = await alice.storeEvent('call', PRIMING);
    await alice.storeEvent('call', note(1));
    const pings: string[] = [];
    for (let i = 0; i < 50; i++) {
      pings.push(await mallory.storeEvent(`ping-${i}`, PRIMING));
      await mallory.storeEvent(`ping-${i}`, answer(i));
    }
    expect((await replayed(alice, hers)).messages).toEqual([note(1)]);
    // mallory's own streams made the room: his last two are kept.
    const kept = await Promise.all(pings.map((id) => mallory.getStreamIdForEventId?.(id)));
    expect(kept.filter(Boolean)).toEqual(['ping-48', 'ping-49']);
  });

  it("past a session's bound, its streams that carried a response go first, then its least recently written", async () => {
    const store = createMemoryEventStore({ maxStreamsPerSession: 2 });
    const question = await store.storeEvent('s/call', PRIMING);
    await store.storeEvent('s/call', note(1));
    const pings: string[] = [];
    for (let i = 0; i < 5; i++) {
      pings.push(await store.storeEvent(`s/ping-${i}`, PRIMING));
      await store.storeEvent(`s/ping-${i}`, answer(i));
    }
    expect(await store.getStreamIdForEventId?.(question)).toBe('s/call');
    expect(await store.getStreamIdForEventId?.(pings[3] as string)).toBeUndefined();
    expect(await store.getStreamIdForEventId?.(pings[4] as string)).toBe('s/ping-4');
    // Only waiting streams left to drop: the least recently written goes.
    await store.storeEvent('s/second', PRIMING);
    await store.storeEvent('s/third', PRIMING);
    expect(await store.getStreamIdForEventId?.(question)).toBeUndefined();
  });

  it('never restarts a stream: written again after it was dropped, its events follow every id it gave', async () => {
    const store = createMemoryEventStore({ maxStreamsPerSession: 1 });
    await store.storeEvent('s/_GET_stream', note(1));
    const old = await store.storeEvent('s/_GET_stream', note(2));
    await store.storeEvent('s/_GET_stream', note(3));
    await store.storeEvent('s/other', note(4));
    expect(await store.getStreamIdForEventId?.(old)).toBeUndefined();
    const again = await store.storeEvent('s/_GET_stream', note(5));
    expect(again).not.toBe(old);
    // The id given before it was dropped names no event of the new stream, and misses none of them.
    expect((await replayed(store, old)).messages).toEqual([note(5)]);
  });

  it("drops a session's streams when the handler says it closed, and only that session's", async () => {
    const store = createMemoryEventStore();
    const gone = await sessionEvents(store, 'gone').storeEvent('_GET_stream', note(1));
    const kept = await sessionEvents(store, 'kept').storeEvent('_GET_stream', note(1));
    forgetSessionEvents(store, 'gone');
    expect(await store.getStreamIdForEventId?.(gone)).toBeUndefined();
    expect(await store.getStreamIdForEventId?.(kept)).toBe('kept/_GET_stream');
  });
});

const REDIS = withRedis('server/src/http/event-store.test.ts');
// Was: a negative maxStreamsPerSession looped for ever on the first event (the whole process with
// it), NaN bounded nothing, and Redis refused a negative MAXLEN on every event (each response lost)
// or a fractional PEXPIRE (the stream kept for ever).
describe('an event store bound or lifetime that is no whole number from 1 is refused when the store is made', () => {
  const bad = [0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, '10'];
  const names = ['maxEventsPerStream', 'maxStreamsPerSession', 'ttlMs', 'maxBytes'];
  it.each(names.flatMap((name) => bad.map((value) => [name, value] as const)))('memory: %s %s', (name, value) => {
    expect(() => createMemoryEventStore({ [name]: value })).toThrow(
      expect.objectContaining({ name: 'RangeError', message: expect.stringContaining(`${name} must be`) }),
    );
  });
  it.each(['maxEventsPerStream', 'ttlMs'].flatMap((name) => bad.map((value) => [name, value] as const)))(
    'redis: %s %s',
    (name, value) => {
      const unused = new Redis({ lazyConnect: true });
      expect(() => createRedisEventStore(unused, { secret: SECRET, [name]: value })).toThrow(
        expect.objectContaining({ name: 'RangeError', message: expect.stringContaining(`${name} must be`) }),
      );
    },
  );
  it('redis: a secret shorter than 32 bytes is a RangeError, none a TypeError, naming the option', () => {
    const unused = new Redis({ lazyConnect: true });
    expect(() => createRedisEventStore(unused, { secret: 'x'.repeat(31) })).toThrow(
      expect.objectContaining({
        name: 'RangeError',
        message: expect.stringContaining('the event store secret must be at least 32 bytes'),
      }),
    );
    expect(() => createRedisEventStore(unused, { secret: undefined as unknown as string })).toThrow(
      expect.objectContaining({
        name: 'TypeError',
        message: expect.stringContaining('the event store secret must be a string'),
      }),
    );
  });
  it('takes 1 for each', async () => {
    const store = createMemoryEventStore({ maxEventsPerStream: 1, maxStreamsPerSession: 1, ttlMs: 1 });
    const id = await store.storeEvent('s/a', note(1));
    expect(await store.getStreamIdForEventId?.(id)).toBe('s/a');
  });
});

describe.skipIf(!REDIS)('redis', () => {
  let server: TestRedis;
  let redis: Redis;
  let prefixes = 0;
  beforeAll(async () => {
    server = await startRedis();
    redis = new Redis(server.url);
  });
  afterAll(async () => {
    redis?.disconnect();
    await server?.stop();
  });
  suite('redis', (max) =>
    redis
      ? createRedisEventStore(redis, { secret: SECRET, prefix: `t${++prefixes}:`, maxEventsPerStream: max })
      : undefined);

  it('keeps events sealed: Redis holds no message, and a forged or moved one is never replayed', async () => {
    const store = createRedisEventStore(redis, { secret: SECRET, prefix: 'sealed:' });
    const first = await store.storeEvent('victim', note(1));
    await store.storeEvent('victim', { jsonrpc: '2.0', id: 7, result: { secret: 'the answer' } });
    const raw = JSON.stringify(await redis.xrange('sealed:victim', '-', '+'));
    expect(raw).not.toContain('the answer');
    // Someone who can write the Redis adds an event of their own, and one copied from another stream.
    await redis.xadd('sealed:victim', '*', 'e', 'forged');
    const other = await store.storeEvent('other', note(42));
    const copied = (await redis.xrange('sealed:other', '-', '+'))[0]?.[1][1] as string;
    await redis.xadd('sealed:victim', '*', 'e', copied);
    expect(other).toMatch(/^other#/);
    expect((await replayed(store, first)).messages).toEqual([
      { jsonrpc: '2.0', id: 7, result: { secret: 'the answer' } },
    ]);
    // Another secret opens nothing.
    const stranger = createRedisEventStore(redis, { secret: `${SECRET}, but another`, prefix: 'sealed:' });
    expect((await replayed(stranger, first)).messages).toEqual([]);
  });

  it("never replays one of a stream's own events at another place: copied after itself, or two swapped", async () => {
    const store = createRedisEventStore(redis, { secret: SECRET, prefix: 'placed:' });
    const first = await store.storeEvent('victim', note(0));
    const question = await store.storeEvent('victim', {
      jsonrpc: '2.0',
      id: 7,
      method: 'elicitation/create',
      params: {},
    });
    await store.storeEvent('victim', note(2));
    const entries = await redis.xrange('placed:victim', '-', '+');
    const sealedOf = (i: number) => entries[i]?.[1][1] as string;
    // The question, copied after the last event: it would be asked a second time.
    await redis.xadd('placed:victim', '*', 'e', sealedOf(1));
    expect((await replayed(store, first)).messages).toEqual([
      { jsonrpc: '2.0', id: 7, method: 'elicitation/create', params: {} },
      note(2),
    ]);
    // The last two swapped, each under the other's id: neither is replayed out of its place.
    const id = (i: number) => entries[i]?.[0] as string;
    await redis.del('placed:victim');
    await redis.xadd('placed:victim', id(0), 'e', sealedOf(0));
    await redis.xadd('placed:victim', id(1), 'e', sealedOf(2));
    await redis.xadd('placed:victim', id(2), 'e', sealedOf(1));
    expect(question).toBe(`victim#${id(1)}`);
    expect((await replayed(store, first)).messages).toEqual([]);
  });

  it('keeps working with a client whose keyPrefix ioredis puts before every key', async () => {
    const prefixed = new Redis(server.url, { keyPrefix: 'tenant:' });
    try {
      const store = createRedisEventStore(prefixed, { secret: SECRET, prefix: 'kp:' });
      const first = await store.storeEvent('s/a', note(1));
      await store.storeEvent('s/a', note(2));
      expect(await redis.xlen('tenant:kp:s/a')).toBe(2);
      expect(await store.getStreamIdForEventId?.(first)).toBe('s/a');
      expect((await replayed(store, first)).messages).toEqual([note(2)]);
    } finally {
      prefixed.disconnect();
    }
  });

  it('follows a stream whose last id is past its own clock (another writer), never adding an event twice', async () => {
    const store = createRedisEventStore(redis, { secret: SECRET, prefix: 'ahead:' });
    const first = await store.storeEvent('s/a', note(1));
    // Another writer's event, far ahead of this process's clock.
    const ahead = `${Date.now() + 3_600_000}-5`;
    await redis.xadd('ahead:s/a', ahead, 'e', 'not ours');
    const next = await store.storeEvent('s/a', note(2));
    expect(next).toBe(`s/a#${ahead.replace(/-5$/, '-6')}`);
    expect((await replayed(store, first)).messages).toEqual([note(2)]);
  });

  // ioredis sends a command again when the connection dropped before its reply came: the event,
  // added by the first run, must not be added a second time (a resumption would get it twice).
  it('adds an event once when its reply is lost and ioredis sends it again', async () => {
    const proxy = await replyDroppingProxy(server.port);
    const client = new Redis(proxy.url);
    client.on('error', () => {});
    try {
      const store = createRedisEventStore(client, { secret: SECRET, prefix: 'resent:' });
      const first = await store.storeEvent('warm', note(0)); // the script cached, the connection up
      expect(first).toMatch(/^warm#\d+-\d+$/);
      const dropped = proxy.arm('resent:lost-reply');
      const id = await store.storeEvent('lost-reply', note(1));
      await dropped;
      expect(id).toMatch(/^lost-reply#\d+-\d+$/);
      const entries = await redis.xrange('resent:lost-reply', '-', '+');
      expect(entries.map(([xid]) => `lost-reply#${xid}`)).toEqual([id]);
      const after = await store.storeEvent('lost-reply', note(2));
      const ids = (await replayed(store, id)).ids;
      expect(ids).toEqual([after]);
    } finally {
      client.disconnect();
      await proxy.close();
    }
  });

  it('refuses a secret shorter than 32 bytes', () => {
    expect(() => createRedisEventStore(redis, { secret: 'short' })).toThrow(/at least 32 bytes/);
  });
});
