/**
 * `createRedisEventBus`: replicas behind a balancer, each with its own process, share one change
 * bus through Redis, so a change told on one (`handler.notify`) reaches the 2026-07-28 listen
 * streams of clients on another. Before, each replica's bus was in-process: a tool added and told
 * on one was never heard by a client listening on the other. Every message is signed with the
 * replicas' secret: whoever can write to the Redis but lacks it (or replays what it saw) makes no
 * client re-list, and each message dropped is counted. Real SDK clients over loopback HTTP, a real
 * Redis, restarted under the bus.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { ServerEvent } from '@modelcontextprotocol/server';
import { Redis } from 'ioredis';
import { afterEach, describe, expect, it } from 'vitest';
import * as z from 'zod/v4';
import { startRedis, type TestRedis, withRedis } from '../../../../test/support/redis-server.js';
import { listenerOf } from '../../test/loopback.js';
import { createElicitkit } from '../kit.js';
import { createRedisEventBus } from '../redis.js';
import { done } from '../results.js';
import { type AnyTool, defineTool } from '../tool.js';
import { createHttpHandler } from './handler.js';
import { EVENT_TTL_MS, eventBusKey, MAX_EVENT_MESSAGE_BYTES, MAX_SEEN, sealEvent } from './redis-event-bus.js';

const REDIS = withRedis('http/redis-event-bus.test.ts');
const SECRET = 'a secret both replicas share, at least thirty-two characters';
const CHANNEL = 'elicitkit:bus';

const cleanup: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const fn of cleanup.splice(0).reverse()) await fn().catch(() => {});
});

const named = (name: string) =>
  defineTool({
    name,
    description: name,
    inputSchema: z.object({}),
    forms: {},
    async run() {
      return done(name);
    },
  });

/** A connection of its own to `server`, closed after the test. */
function connect(server: TestRedis): Redis {
  const redis = new Redis(server.url, { retryStrategy: () => 50 });
  redis.on('error', () => {});
  cleanup.push(async () => redis.disconnect());
  return redis;
}

/** One replica: its own Redis connection and bus, a handler serving a tool list that changes, on a loopback port. */
async function replica(server: TestRedis, secret = SECRET) {
  const redis = connect(server);
  const bus = createRedisEventBus(redis, { secret });
  cleanup.push(() => bus.close());
  await bus.ready;
  const kit = createElicitkit();
  const tools: AnyTool[] = [named('first')];
  const errors: Error[] = [];
  const handler = createHttpHandler(
    () => {
      const mcp = kit.createServer({ name: 'replica', version: '1' }, [...tools]);
      mcp.registerPrompt('hello', { description: 'hello' }, () => ({
        messages: [{ role: 'user', content: { type: 'text', text: 'hello' } }],
      }));
      return mcp;
    },
    { bus, onerror: (e) => errors.push(e) },
  );
  const node = createServer(listenerOf(handler, 'node'));
  await new Promise<void>((resolve) => node.listen(0, '127.0.0.1', resolve));
  cleanup.push(async () => {
    await handler.close();
    node.closeAllConnections();
    node.close();
  });
  const url = new URL(`http://127.0.0.1:${(node.address() as AddressInfo).port}/mcp`);
  /** What this bus delivers to its listeners, in order. */
  const heard: ServerEvent[] = [];
  bus.subscribe((event) => heard.push(event));
  return { redis, bus, handler, tools, url, heard, errors };
}

/** A 2026-07-28 SDK client following tool and prompt list changes; resolves once its listen stream is acknowledged. */
async function follower(url: URL) {
  const tools: string[][] = [];
  const prompts: number[] = [];
  const client = new Client(
    { name: 'follower', version: '1' },
    {
      capabilities: {},
      versionNegotiation: { mode: { pin: '2026-07-28' } },
      listChanged: {
        tools: {
          debounceMs: 0,
          onChanged: (error, list) => {
            if (!error && list) tools.push(list.map((t) => t.name).sort());
          },
        },
        prompts: {
          debounceMs: 0,
          onChanged: () => {
            prompts.push(1);
          },
        },
      },
    },
  );
  await client.connect(new StreamableHTTPClientTransport(url));
  cleanup.push(() => client.close());
  expect(client.getNegotiatedProtocolVersion()).toBe('2026-07-28');
  await expect.poll(() => client.autoOpenedSubscription !== undefined).toBe(true);
  return { client, tools, prompts };
}

/** Every message published on the channel, as it was sent (a spy's own connection). */
async function spy(server: TestRedis): Promise<string[]> {
  const redis = connect(server);
  const seen: string[] = [];
  redis.on('message', (channel: string, message: string) => channel === CHANNEL && seen.push(message));
  await redis.subscribe(CHANNEL);
  return seen;
}

const NO_DROPS = { oversized: 0, signature: 0, malformed: 0, kind: 0, schema: 0, expired: 0, replayed: 0 };

describe.skipIf(!REDIS)('createRedisEventBus', () => {
  it('a change told on one replica reaches a client listening on another, each event delivered once per replica', async () => {
    const server = await startRedis();
    cleanup.push(() => server.stop());
    const a = await replica(server);
    const b = await replica(server);
    const modern = await follower(b.url);
    expect((await modern.client.listTools()).tools.map((t) => t.name)).toEqual(['first']);

    b.tools.push(named('second'));
    a.handler.notify.toolsChanged();
    // Delivered on the replica it was told on at once, as the in-memory bus does.
    expect(a.heard).toEqual([{ kind: 'tools_list_changed' }]);
    await expect.poll(() => modern.tools).toEqual([['first', 'second']]);
    expect(b.heard).toEqual([{ kind: 'tools_list_changed' }]);

    // A resource update crosses with its URI and the params forwarded.
    const params = { _meta: { 'example.com/why': 'edited' }, note: ['a', 1] };
    a.bus.publish({ kind: 'resource_updated', uri: 'file:///x', params });
    // Said on b after a's two were heard there: Redis delivers a's own echoes to a before it, so
    // had a not skipped them, they would be in its list before b's.
    await expect.poll(() => b.heard.length).toBe(2);
    expect(b.heard[1]).toEqual({ kind: 'resource_updated', uri: 'file:///x', params });
    b.handler.notify.promptsChanged();
    await expect.poll(() => a.heard.length).toBe(3);
    expect(a.heard).toEqual([
      { kind: 'tools_list_changed' },
      { kind: 'resource_updated', uri: 'file:///x', params },
      { kind: 'prompts_list_changed' },
    ]);
    expect(b.heard).toHaveLength(3);
    await expect.poll(() => modern.prompts.length).toBe(1);
    expect(modern.tools).toHaveLength(1);
    expect(a.bus.dropped()).toEqual(NO_DROPS);
    expect(b.bus.dropped()).toEqual(NO_DROPS);
    expect(a.bus.unsent() + b.bus.unsent()).toBe(0);
    expect([...a.errors, ...b.errors]).toEqual([]);
  });

  it('a message not signed with the secret, altered, replayed, oversized, malformed or expired reaches no client and is counted', async () => {
    const server = await startRedis();
    cleanup.push(() => server.stop());
    const wire = await spy(server);
    const a = await replica(server);
    const b = await replica(server);
    const modern = await follower(b.url);
    // One genuine message, captured on the wire.
    a.bus.publish({ kind: 'resource_updated', uri: 'file:///real', params: { n: 1 } });
    await expect.poll(() => b.heard.length).toBe(1);
    const genuine = wire[0] as string;
    const raw = connect(server);
    const key = eventBusKey(SECRET);
    const envelope = (over: Record<string, unknown>) => ({
      f: 'attacker',
      n: `nonce-${Math.random().toString(36).slice(2)}-0123456789`,
      x: Date.now() + EVENT_TTL_MS,
      k: 'tools_list_changed',
      ...over,
    });
    const hostile: [keyof typeof NO_DROPS, string][] = [
      // Signed with another deployment's key: what whoever lacks the secret can make.
      ['signature', sealEvent(eventBusKey('another secret, also thirty-two characters'), CHANNEL, envelope({}))],
      // The genuine one altered: another URI, params of the writer's choosing.
      ['signature', genuine.replace('file:///real', 'file:///forged')],
      ['signature', genuine.replace('"n":1', '"n":2')],
      // Signed for another channel (another deployment sharing the secret).
      ['signature', sealEvent(key, 'elsewhere', envelope({}))],
      ['signature', JSON.stringify(envelope({}))],
      ['signature', 'not JSON at all'],
      ['replayed', genuine],
      ['oversized', `${genuine.slice(0, 44)}${' '.repeat(MAX_EVENT_MESSAGE_BYTES)}`],
      ['malformed', `${key(`${CHANNEL}\n{not json`)}.{not json`],
      ['malformed', sealEvent(key, CHANNEL, ['tools_list_changed'])],
      ['malformed', sealEvent(key, CHANNEL, envelope({ x: 'later' }))],
      ['malformed', sealEvent(key, CHANNEL, envelope({ n: 'short' }))],
      ['kind', sealEvent(key, CHANNEL, envelope({ k: 'everything_changed' }))],
      ['schema', sealEvent(key, CHANNEL, envelope({ k: 'resource_updated' }))],
      ['schema', sealEvent(key, CHANNEL, envelope({ k: 'tools_list_changed', u: 'file:///x' }))],
      ['schema', sealEvent(key, CHANNEL, envelope({ p: ['a list'] }))],
      ['schema', sealEvent(key, CHANNEL, envelope({ p: 'text' }))],
      ['expired', sealEvent(key, CHANNEL, envelope({ x: Date.now() - 1 }))],
      ['expired', sealEvent(key, CHANNEL, envelope({ x: Date.now() + 10 * EVENT_TTL_MS }))],
    ];
    for (const [, message] of hostile) await raw.publish(CHANNEL, message);
    // Sent after them: by the time it is heard, every one before it was read and dropped.
    a.handler.notify.promptsChanged();
    await expect.poll(() => modern.prompts.length).toBe(1);
    expect(b.heard.map((e) => e.kind)).toEqual(['resource_updated', 'prompts_list_changed']);
    expect(modern.tools).toEqual([]);
    const counted = { ...NO_DROPS };
    for (const [reason] of hostile) counted[reason]++;
    expect(b.bus.dropped()).toEqual(counted);
    // a skips its own message sent again unread, as it skips its own echo.
    expect(a.bus.dropped()).toEqual({ ...counted, replayed: 0 });
    expect([...a.errors, ...b.errors]).toEqual([]);
  });

  it('remembers at most MAX_SEEN nonces, and a message whose nonce it forgot is still refused', async () => {
    const server = await startRedis();
    cleanup.push(() => server.stop());
    const bus = createRedisEventBus(connect(server), { secret: SECRET });
    cleanup.push(() => bus.close());
    await bus.ready;
    let heard = 0;
    bus.subscribe(() => heard++);
    const key = eventBusKey(SECRET);
    const x = Date.now() + EVENT_TTL_MS;
    const message = (i: number) =>
      sealEvent(key, CHANNEL, {
        f: 'a replica',
        n: `nonce-${String(i).padStart(12, '0')}`,
        x: i === 0 ? x : x + 1,
        k: 'tools_list_changed',
      });
    const first = message(0);
    const raw = connect(server);
    // Each one genuine (signed, in its window): what a flood by a holder of the key looks like.
    for (let from = 0; from <= MAX_SEEN; from += 10_000) {
      const batch = raw.pipeline();
      for (let i = from; i < Math.min(from + 10_000, MAX_SEEN + 1); i++)
        batch.publish(CHANNEL, i === 0 ? first : message(i));
      await batch.exec();
    }
    await expect.poll(() => heard, { timeout: 60_000 }).toBe(MAX_SEEN + 1);
    // The first nonce was forgotten to keep the bound: its message sent again is refused all the same.
    await raw.publish(CHANNEL, first);
    await raw.publish(CHANNEL, message(MAX_SEEN + 1));
    await expect.poll(() => heard).toBe(MAX_SEEN + 2);
    expect(bus.dropped()).toEqual({ ...NO_DROPS, expired: 1 });
  });

  it('Redis down: publishing still delivers here, throws nothing and queues nothing; restarted, the bus carries changes again and tells its listeners to list again', async () => {
    const server = await startRedis();
    cleanup.push(() => server.stop());
    const a = await replica(server);
    const b = await replica(server);
    const modern = await follower(b.url);

    await server.down();
    await expect.poll(() => a.redis.status !== 'ready' && !b.bus.hearing()).toBe(true);
    const unsentBefore = a.bus.unsent();
    for (let i = 0; i < 5; i++) expect(() => a.handler.notify.toolsChanged()).not.toThrow();
    expect(a.heard).toHaveLength(5);
    expect(a.bus.unsent()).toBe(unsentBefore + 5);
    // Nothing waits in the client's queue (ioredis's own, private) to be sent once Redis is back.
    expect((a.redis as unknown as { offlineQueue: { length: number } }).offlineQueue.length).toBe(0);

    await server.up();
    // b subscribed again: its listeners are told the lists may have changed while it could not hear.
    await expect.poll(() => modern.tools.length, { timeout: 10_000 }).toBe(1);
    expect(modern.tools).toEqual([['first']]);
    expect(b.bus.hearing()).toBe(true);
    expect(b.heard.map((e) => e.kind)).toEqual([
      'tools_list_changed',
      'prompts_list_changed',
      'resources_list_changed',
    ]);
    await expect.poll(() => a.redis.status, { timeout: 10_000 }).toBe('ready');

    b.tools.push(named('second'));
    a.handler.notify.toolsChanged();
    await expect.poll(() => modern.tools.length).toBe(2);
    expect(modern.tools[1]).toEqual(['first', 'second']);
    expect(b.heard).toHaveLength(4);
    expect(b.bus.dropped()).toEqual(NO_DROPS);
  });

  it('Redis holding its publishes: at most 1,000 wait, the rest are delivered here and not queued; a listener that throws stops no other', async () => {
    const server = await startRedis();
    cleanup.push(() => server.stop());
    const admin = connect(server);
    const a = await replica(server);
    const b = await replica(server);
    const errors: Error[] = [];
    const bus = createRedisEventBus(a.redis, { secret: SECRET, onerror: (e) => errors.push(e) });
    cleanup.push(() => bus.close());
    await bus.ready;
    let here = 0;
    bus.subscribe(() => {
      throw new Error('a listener that throws');
    });
    bus.subscribe(() => here++);
    // Connected, but answering no PUBLISH: a Redis stalled.
    await admin.call('CLIENT', 'PAUSE', '60000', 'WRITE');
    for (let i = 0; i < 1_003; i++) expect(() => bus.publish({ kind: 'tools_list_changed' })).not.toThrow();
    expect(here).toBe(1_003);
    expect(bus.unsent()).toBe(3);
    expect(errors.filter((e) => /already waiting for Redis/.test(e.message))).toHaveLength(3);
    expect(errors.filter((e) => e.message === 'a listener that throws')).toHaveLength(1_003);
    await admin.call('CLIENT', 'UNPAUSE');
    await expect.poll(() => b.heard.length, { timeout: 10_000 }).toBe(1_000);
    // Drained: sent again, and heard on b by its listener past the one that throws there too.
    b.bus.subscribe(() => {
      throw new Error('b listener that throws');
    });
    const after: string[] = [];
    b.bus.subscribe((e) => after.push(e.kind));
    bus.publish({ kind: 'prompts_list_changed' });
    await expect.poll(() => after).toEqual(['prompts_list_changed']);
    expect(bus.unsent()).toBe(3);
  });

  it('created while Redis is down, it subscribes once Redis is up and hears the other replicas', async () => {
    const server = await startRedis();
    cleanup.push(() => server.stop());
    const a = await replica(server);
    await server.down();
    const late = connect(server);
    const bus = createRedisEventBus(late, { secret: SECRET });
    cleanup.push(() => bus.close());
    const heard: ServerEvent[] = [];
    bus.subscribe((e) => heard.push(e));
    expect(bus.hearing()).toBe(false);
    await server.up();
    await bus.ready;
    expect(bus.hearing()).toBe(true);
    await expect.poll(() => a.redis.status, { timeout: 10_000 }).toBe('ready');
    a.handler.notify.toolsChanged();
    await expect.poll(() => heard).toEqual([{ kind: 'tools_list_changed' }]);
  });

  it('restarted while both are up, the bus carries a change after', async () => {
    const server = await startRedis();
    cleanup.push(() => server.stop());
    const a = await replica(server);
    const b = await replica(server);
    const modern = await follower(b.url);
    await server.restart();
    await expect.poll(() => modern.tools.length, { timeout: 10_000 }).toBe(1);
    await expect.poll(() => a.redis.status, { timeout: 10_000 }).toBe('ready');
    b.tools.push(named('second'));
    a.handler.notify.toolsChanged();
    await expect.poll(() => modern.tools.length).toBe(2);
    expect(modern.tools[1]).toEqual(['first', 'second']);
  });

  it('close() unsubscribes and quits its connection; the other replicas go on', async () => {
    const server = await startRedis();
    cleanup.push(() => server.stop());
    const admin = connect(server);
    const a = await replica(server);
    const b = await replica(server);
    const names = async () =>
      String(await admin.call('CLIENT', 'LIST'))
        .split('\n')
        .map((line) => /name=(\S*)/.exec(line)?.[1] ?? '')
        .filter((name) => name.startsWith(`${CHANNEL}:`));
    const subscribers = async () => ((await admin.call('PUBSUB', 'NUMSUB', CHANNEL)) as [string, number])[1];
    expect(await names()).toHaveLength(2);
    expect(await subscribers()).toBe(2);

    await b.bus.close();
    await expect.poll(names).toHaveLength(1);
    expect(await subscribers()).toBe(1);
    await b.bus.close();

    // What a says, b (closed) no longer hears; what b says is heard on b alone.
    a.handler.notify.toolsChanged();
    b.handler.notify.promptsChanged();
    expect(b.heard.map((e) => e.kind)).toEqual(['prompts_list_changed']);
    const c = await replica(server);
    a.handler.notify.resourcesChanged();
    await expect.poll(() => c.heard.length).toBe(1);
    expect(c.heard).toEqual([{ kind: 'resources_list_changed' }]);
    expect(b.heard).toHaveLength(1);
    expect(b.bus.hearing()).toBe(false);
  });

  it('refuses a secret shorter than 32 characters, and an empty channel', () => {
    const redis = new Redis({ lazyConnect: true });
    cleanup.push(async () => redis.disconnect());
    expect(() => createRedisEventBus(redis, { secret: 'short' })).toThrow(TypeError);
    expect(() => createRedisEventBus(redis, { secret: 'x'.repeat(31) })).toThrow(/at least 32 characters/);
    expect(() => createRedisEventBus(redis, { secret: SECRET, channel: '' })).toThrow(TypeError);
  });

  it('an event that cannot be sent (too big, not JSON) is still delivered here and counted, never thrown', async () => {
    const server = await startRedis();
    cleanup.push(() => server.stop());
    const a = await replica(server);
    const b = await replica(server);
    const errors: Error[] = [];
    const bus = createRedisEventBus(a.redis, { secret: SECRET, onerror: (e) => errors.push(e) });
    cleanup.push(() => bus.close());
    const here: ServerEvent[] = [];
    bus.subscribe((e) => here.push(e));
    const big = { kind: 'tools_list_changed', params: { blob: 'x'.repeat(MAX_EVENT_MESSAGE_BYTES) } } as const;
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(() => bus.publish(big)).not.toThrow();
    expect(() => bus.publish({ kind: 'prompts_list_changed', params: cyclic })).not.toThrow();
    expect(here).toHaveLength(2);
    expect(bus.unsent()).toBe(2);
    expect(errors.map((e) => e.message)).toEqual([
      expect.stringMatching(/larger than 65536 bytes/),
      expect.stringMatching(/not JSON/),
    ]);
    bus.publish({ kind: 'resources_list_changed' });
    await expect.poll(() => b.heard.map((e) => e.kind)).toEqual(['resources_list_changed']);
  });
});
