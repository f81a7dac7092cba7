/**
 * The event stores behind resumable 2025 streams, one behaviour suite for each (memory, Redis),
 * and what a session sees of a shared store (`sessionEvents`): its own streams only.
 */
import type { EventStore, JSONRPCMessage } from '@modelcontextprotocol/server';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRedis, type TestRedis, withRedis } from '../../../../test/support/redis-server.js';
import { createMemoryEventStore, sessionEvents } from './event-store.js';
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
  it('forgets a stream past its time, and the oldest streams past the count', async () => {
    let now = 0;
    const store = createMemoryEventStore({ ttlMs: 1000, maxStreams: 2, now: () => now });
    const old = await store.storeEvent('a', note(1));
    now = 1001;
    expect(await store.getStreamIdForEventId?.(old)).toBeUndefined();
    const b = await store.storeEvent('b', note(1));
    await store.storeEvent('c', note(1));
    await store.storeEvent('d', note(1));
    expect(await store.getStreamIdForEventId?.(b)).toBeUndefined();
  });
});

const REDIS = withRedis('server/src/http/event-store.test.ts');
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

  it('refuses a secret shorter than 32 characters', () => {
    expect(() => createRedisEventStore(redis, { secret: 'short' })).toThrow(/32 characters/);
  });
});
