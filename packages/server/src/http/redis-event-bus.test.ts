/**
 * `createRedisEventBus`: replicas behind a balancer, each with its own process, share one change
 * bus through Redis, so a change told on one (`handler.notify`) reaches the 2026-07-28 listen
 * streams of clients on another. Before, each replica's bus was in-process: a tool added and told
 * on one was never heard by a client listening on the other. Every message is sealed with the
 * replicas' secret (AES-256-GCM): whoever can read the Redis learns no URI, params or kind, and
 * whoever can write to it but lacks the secret (or replays what it saw) makes no client re-list;
 * each message dropped is counted. A bus that could not hear tells its listeners everything they
 * follow may have changed, each resource URI they subscribed to included. Real SDK clients over
 * loopback HTTP, a real Redis, restarted under the bus.
 */
import { hkdfSync } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { McpServer, ServerEvent } from '@modelcontextprotocol/server';
import { Redis } from 'ioredis';
import { afterEach, describe, expect, it } from 'vitest';
import * as z from 'zod/v4';
import { startRedis, type TestRedis, withRedis } from '../../../../test/support/redis-server.js';
import { listenerOf } from '../../test/loopback.js';
import { hmacSha256 } from '../digest.js';
import { createElicitkit } from '../kit.js';
import { createRedisEventBus } from '../redis.js';
import { done } from '../results.js';
import { type AnyTool, defineTool } from '../tool.js';
import { createHttpHandler } from './handler.js';
import {
  EVENT_TTL_MS,
  eventBusKey,
  MAX_EVENT_MESSAGE_BYTES,
  MAX_SEEN,
  NonceMemory,
  PAD_BYTES,
  sealEvent,
} from './redis-event-bus.js';

const REDIS = withRedis('http/redis-event-bus.test.ts');
const SECRET = 'a secret both replicas share, at least thirty-two characters';
const CHANNEL = 'elicitkit:bus';
const WATCHED = 'file:///watched/report.txt';
const OTHER = 'file:///watched/other.txt';

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
      for (const uri of [WATCHED, OTHER])
        mcp.registerResource(uri, uri, {}, async () => ({ contents: [{ uri, text: 'now' }] }));
      (mcp as McpServer).server.registerCapabilities({ resources: { subscribe: true } });
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

/** A 2026-07-28 SDK client listening for updates of `uris` alone; resolves once acknowledged. */
async function watcher(url: URL, uris: string[]) {
  const updated: string[] = [];
  const client = new Client(
    { name: 'watcher', version: '1' },
    { capabilities: {}, versionNegotiation: { mode: { pin: '2026-07-28' } } },
  );
  client.setNotificationHandler('notifications/resources/updated', (n) => {
    updated.push(n.params.uri);
  });
  await client.connect(new StreamableHTTPClientTransport(url));
  cleanup.push(() => client.close());
  const subscription = await client.listen({ resourceSubscriptions: uris });
  expect(subscription.honoredFilter.resourceSubscriptions).toEqual(uris);
  return { client, updated };
}

/** What a replica of the previous version (signed, not encrypted) sent: HMAC over the channel and the JSON. */
function previousFormat(secret: string, envelope: unknown): string {
  const mac = hmacSha256(
    new Uint8Array(hkdfSync('sha256', secret, new Uint8Array(0), 'elicitkit server events v1', 32)),
  );
  const json = JSON.stringify(envelope);
  return `${mac(`${CHANNEL}\n${json}`)}.${json}`;
}

/** Two buses on `server` alone (no handler), both ready: `a` to publish, `b` hearing into `heard`. */
async function twoBuses(server: TestRedis) {
  const a = createRedisEventBus(connect(server), { secret: SECRET });
  cleanup.push(() => a.close());
  await a.ready;
  const b = createRedisEventBus(connect(server), { secret: SECRET });
  cleanup.push(() => b.close());
  await b.ready;
  const heard: ServerEvent[] = [];
  b.subscribe((e) => heard.push(e));
  return { a, b, heard };
}

/** Every message published on the channel, as it was sent (a spy's own connection). */
async function spy(server: TestRedis): Promise<string[]> {
  const redis = connect(server);
  const seen: string[] = [];
  redis.on('message', (channel: string, message: string) => channel === CHANNEL && seen.push(message));
  await redis.subscribe(CHANNEL);
  return seen;
}

const NO_DROPS = {
  oversized: 0,
  signature: 0,
  version: 0,
  malformed: 0,
  kind: 0,
  schema: 0,
  expired: 0,
  replayed: 0,
};
const nonce = () => `nonce-${Math.random().toString(36).slice(2)}-0123456789`;

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

  it('a sniffer SUBSCRIBEd to the channel reads no URI, params or kind: every message is encrypted', async () => {
    const server = await startRedis();
    cleanup.push(() => server.stop());
    const wire = await spy(server);
    const a = await replica(server);
    const b = await replica(server);
    const secretUri = 'file:///payroll/2026/alice-salary.xlsx';
    const params = { _meta: { 'example.com/why': 'raise approved' } };
    a.bus.publish({ kind: 'resource_updated', uri: secretUri, params });
    a.handler.notify.toolsChanged();
    await expect.poll(() => b.heard.length).toBe(2);
    expect(b.heard).toEqual([{ kind: 'resource_updated', uri: secretUri, params }, { kind: 'tools_list_changed' }]);
    await expect.poll(() => wire.length).toBe(2);
    for (const message of wire) {
      for (const plain of ['payroll', 'alice', 'raise approved', 'example.com', 'resource_updated', 'tools_list'])
        expect(message).not.toContain(plain);
      // Nor base64-wrapped: besides the sealed body, a message holds its sender, nonce and expiry.
      for (const part of message.split('.'))
        expect(Buffer.from(part, 'base64url').toString('latin1')).not.toContain('payroll');
    }
    // The same event sealed twice reads differently (a fresh IV and nonce each time).
    a.handler.notify.toolsChanged();
    await expect.poll(() => wire.length).toBe(3);
    expect(wire[2]?.split('.').at(-1)).not.toBe(wire[1]?.split('.').at(-1));
    expect(b.bus.dropped()).toEqual(NO_DROPS);
  });

  it('the length on the wire tells no kind apart: each kind, a short URI and a resync seal to one length', async () => {
    const server = await startRedis();
    cleanup.push(() => server.stop());
    const wire = await spy(server);
    const { a, b, heard } = await twoBuses(server);
    const events: ServerEvent[] = [
      { kind: 'tools_list_changed' },
      { kind: 'prompts_list_changed' },
      { kind: 'resources_list_changed' },
      { kind: 'resource_updated', uri: 'file:///a' },
      { kind: 'resource_updated', uri: `file:///${'long/'.repeat(60)}`, params: { n: 1 } },
      { kind: 'tools_list_changed', params: { _meta: { note: 'ü'.repeat(150) } } },
    ];
    for (const event of events) a.publish(event);
    await expect.poll(() => heard).toEqual(events);
    // A resync, as a replica sends once it could not send an event: heard as every list changed.
    const lazy = new Redis(server.url, { lazyConnect: true });
    lazy.on('error', () => {});
    cleanup.push(async () => lazy.disconnect());
    const c = createRedisEventBus(lazy, { secret: SECRET });
    cleanup.push(() => c.close());
    c.publish({ kind: 'prompts_list_changed' });
    expect(c.unsent()).toBe(1);
    await expect.poll(() => heard.length).toBe(events.length + 3);
    expect(wire).toHaveLength(events.length + 1);
    const sealedLength = (message: string) => message.split('.').at(-1)?.length;
    const resync = wire[events.length] as string;
    expect(new Set([...wire.slice(0, 4), resync].map(sealedLength)).size).toBe(1);
    // Padded to 256 bytes: 256 bytes of JSON and the IV and tag, in base64url.
    expect(sealedLength(resync)).toBeGreaterThan(256 * (4 / 3));
    expect(sealedLength(resync)).toBeLessThan(320 * (4 / 3));
    // Longer ones take the next step, still one length for each step.
    expect(sealedLength(wire[4] as string)).toBe(sealedLength(wire[5] as string));
    expect(sealedLength(wire[4] as string)).toBeGreaterThan(sealedLength(resync) as number);
    expect(b.dropped()).toEqual(NO_DROPS);
  });

  it('a message not sealed with the secret, altered, replayed, oversized, malformed or expired reaches no client and is counted', async () => {
    const server = await startRedis();
    cleanup.push(() => server.stop());
    const wire = await spy(server);
    const a = await replica(server);
    const b = await replica(server);
    const modern = await follower(b.url);
    const watching = await watcher(b.url, [WATCHED]);
    // One genuine message, captured on the wire.
    a.bus.publish({ kind: 'resource_updated', uri: WATCHED, params: { n: 1 } });
    await expect.poll(() => watching.updated).toEqual([WATCHED]);
    const genuine = wire[0] as string;
    const [version, f, n, x, e] = genuine.split('.') as [string, string, string, string, string];
    const raw = connect(server);
    const key = eventBusKey(SECRET);
    const head = (over: { f?: string; n?: string; x?: number | string } = {}) => ({
      f: 'attacker',
      n: nonce(),
      x: Date.now() + EVENT_TTL_MS,
      ...over,
    });
    const event = (over: Record<string, unknown> = {}) =>
      JSON.stringify({ k: 'resource_updated', u: WATCHED, ...over });
    /** The sealed body with one byte flipped at `at` (counted from its end when negative). */
    const flipped = (at: number) => {
      const bytes = Buffer.from(e, 'base64url');
      const i = at < 0 ? bytes.length + at : at;
      bytes[i] = (bytes[i] as number) ^ 1;
      return [version, f, n, x, bytes.toString('base64url')].join('.');
    };
    const hostile: [keyof typeof NO_DROPS, string][] = [
      // Sealed with another deployment's key: what whoever lacks the secret can make.
      ['signature', sealEvent(eventBusKey('another secret, also thirty-two characters'), CHANNEL, head(), event())],
      // The genuine one altered: its IV, its body, its tag; its sender, nonce or expiry (bound to it).
      ['signature', flipped(0)],
      ['signature', flipped(14)],
      ['signature', flipped(-1)],
      ['signature', [version, 'attacker', n, x, e].join('.')],
      ['signature', [version, f, nonce(), x, e].join('.')],
      ['signature', [version, f, n, String(Number(x) + 1), e].join('.')],
      ['signature', [version, f, n, x, e.slice(0, 30)].join('.')],
      // Sealed for another channel (another deployment sharing the secret).
      ['signature', sealEvent(key, 'elsewhere', head(), event())],
      ['signature', JSON.stringify({ k: 'resource_updated', u: WATCHED })],
      ['signature', 'not JSON at all'],
      ['signature', `v2.${f}.${n}.${x}`],
      // The previous, signed-only format under another secret: not a replica of this deployment.
      [
        'signature',
        previousFormat('another secret, also thirty-two characters', {
          f,
          n: nonce(),
          x: Number(x),
          k: 'tools_list_changed',
        }),
      ],
      ['replayed', genuine],
      ['oversized', `${genuine.slice(0, 60)}${'A'.repeat(MAX_EVENT_MESSAGE_BYTES)}`],
      // Sealed with the key, holding what no replica sends.
      ['malformed', sealEvent(key, CHANNEL, head(), '{not json')],
      ['malformed', sealEvent(key, CHANNEL, head(), JSON.stringify(['tools_list_changed']))],
      ['malformed', sealEvent(key, CHANNEL, head(), JSON.stringify({ k: 7 }))],
      ['malformed', sealEvent(key, CHANNEL, head(), event({ u: 7 }))],
      ['malformed', sealEvent(key, CHANNEL, head({ x: 'later' }), event())],
      ['malformed', sealEvent(key, CHANNEL, head({ n: 'short' }), event())],
      ['malformed', sealEvent(key, CHANNEL, head({ f: '' }), event())],
      ['kind', sealEvent(key, CHANNEL, head(), event({ k: 'everything_changed' }))],
      ['schema', sealEvent(key, CHANNEL, head(), event({ u: undefined }))],
      ['schema', sealEvent(key, CHANNEL, head(), event({ k: 'tools_list_changed' }))],
      ['schema', sealEvent(key, CHANNEL, head(), event({ p: ['a list'] }))],
      ['schema', sealEvent(key, CHANNEL, head(), event({ p: 'text' }))],
      ['expired', sealEvent(key, CHANNEL, head({ x: Date.now() - 1 }), event())],
      ['expired', sealEvent(key, CHANNEL, head({ x: Date.now() + 10 * EVENT_TTL_MS }), event())],
    ];
    for (const [, message] of hostile) await raw.publish(CHANNEL, message);
    // Sent after them: by the time it is heard, every one before it was read and dropped.
    a.handler.notify.promptsChanged();
    await expect.poll(() => modern.prompts.length).toBe(1);
    expect(b.heard.map((e) => e.kind)).toEqual(['resource_updated', 'prompts_list_changed']);
    expect(modern.tools).toEqual([]);
    expect(watching.updated).toEqual([WATCHED]);
    const counted = { ...NO_DROPS };
    for (const [reason] of hostile) counted[reason]++;
    expect(b.bus.dropped()).toEqual(counted);
    // a skips its own message sent again unread, as it skips its own echo.
    expect(a.bus.dropped()).toEqual({ ...counted, replayed: 0 });
    expect([...a.errors, ...b.errors]).toEqual([]);
  });

  it('a replica of the previous, signed-only version on the channel: its messages are dropped and counted as such, and told to onerror once', async () => {
    const server = await startRedis();
    cleanup.push(() => server.stop());
    const errors: Error[] = [];
    const bus = createRedisEventBus(connect(server), { secret: SECRET, onerror: (e) => errors.push(e) });
    cleanup.push(() => bus.close());
    await bus.ready;
    const heard: ServerEvent[] = [];
    bus.subscribe((e) => heard.push(e));
    const raw = connect(server);
    const old = (k: string) =>
      previousFormat(SECRET, { f: 'old replica', n: nonce(), x: Date.now() + EVENT_TTL_MS, k });
    await raw.publish(CHANNEL, old('tools_list_changed'));
    await raw.publish(CHANNEL, old('prompts_list_changed'));
    const other = createRedisEventBus(connect(server), { secret: SECRET });
    cleanup.push(() => other.close());
    await other.ready;
    other.publish({ kind: 'resources_list_changed' });
    await expect.poll(() => heard).toEqual([{ kind: 'resources_list_changed' }]);
    expect(bus.dropped()).toEqual({ ...NO_DROPS, version: 2 });
    expect(errors.map((e) => e.message)).toEqual([expect.stringMatching(/previous version/)]);
  });

  it('remembers at most MAX_SEEN nonces, forgetting the soonest to expire: a forgotten one is refused, a far one is kept, later ones still heard', async () => {
    const server = await startRedis();
    cleanup.push(() => server.stop());
    const bus = createRedisEventBus(connect(server), { secret: SECRET });
    cleanup.push(() => bus.close());
    await bus.ready;
    let heard = 0;
    bus.subscribe(() => heard++);
    const key = eventBusKey(SECRET);
    // Near: what a replica sends; the first and soonest to expire one ms before the others. Far:
    // as far out as a replica with a clock ahead sends, heard first. Both well inside their window
    // for as long as the flood takes.
    const near = Date.now() + 2 * EVENT_TTL_MS - 15_000;
    const far = near + 10_000;
    const message = (i: number, x = i === 0 ? far : i === 1 ? near - 1 : near) =>
      sealEvent(
        key,
        CHANNEL,
        { f: 'a-replica', n: `nonce-${String(i).padStart(12, '0')}`, x },
        JSON.stringify({ k: 'tools_list_changed' }),
      );
    const raw = connect(server);
    // Each one genuine (sealed, in its window): what a flood by a holder of the key looks like.
    for (let from = 0; from <= MAX_SEEN; from += 10_000) {
      const batch = raw.pipeline();
      for (let i = from; i < Math.min(from + 10_000, MAX_SEEN + 1); i++) batch.publish(CHANNEL, message(i));
      await batch.exec();
    }
    await expect.poll(() => heard, { timeout: 60_000 }).toBe(MAX_SEEN + 1);
    // The soonest to expire was forgotten to keep the bound: sent again, it is refused all the same.
    await raw.publish(CHANNEL, message(1));
    // The far one, heard first, is still remembered: a copy is a replay.
    await raw.publish(CHANNEL, message(0));
    // A new one expiring before the far one (as every replica's next message does) is heard.
    await raw.publish(CHANNEL, message(MAX_SEEN + 1, near + 1));
    await expect.poll(() => heard).toBe(MAX_SEEN + 2);
    expect(bus.dropped()).toEqual({ ...NO_DROPS, expired: 1, replayed: 1 });
  }, 90_000);

  it('Redis down: publishing still delivers here, throws nothing and queues nothing; restarted, the bus carries changes again and tells its listeners to list again and re-read each resource they follow', async () => {
    const server = await startRedis();
    cleanup.push(() => server.stop());
    const a = await replica(server);
    const b = await replica(server);
    const modern = await follower(b.url);
    const watching = await watcher(b.url, [WATCHED]);
    const both = await watcher(b.url, [OTHER, WATCHED]);

    await server.down();
    await expect.poll(() => a.redis.status !== 'ready' && !b.bus.hearing()).toBe(true);
    const unsentBefore = a.bus.unsent();
    for (let i = 0; i < 5; i++) expect(() => a.handler.notify.toolsChanged()).not.toThrow();
    // The resource changes while b cannot hear: never sent, and b would not have heard it.
    a.handler.notify.resourceUpdated(WATCHED);
    expect(a.heard).toHaveLength(6);
    expect(a.bus.unsent()).toBe(unsentBefore + 6);
    // Nothing waits in the client's queue (ioredis's own, private) to be sent once Redis is back.
    expect((a.redis as unknown as { offlineQueue: { length: number } }).offlineQueue.length).toBe(0);

    await server.up();
    // b subscribed again: its listeners are told the lists may have changed while it could not
    // hear. (a, whose events were not sent, says so once it can: b, subscribed by then or not,
    // may be told twice.)
    await expect.poll(() => modern.tools.length, { timeout: 10_000 }).toBeGreaterThanOrEqual(1);
    expect(new Set(modern.tools.map(String))).toEqual(new Set(['first']));
    // And each listener is told that every resource it follows may have changed: its client reads it again.
    await expect.poll(() => new Set(watching.updated)).toEqual(new Set([WATCHED]));
    await expect.poll(() => new Set(both.updated)).toEqual(new Set([OTHER, WATCHED]));
    expect(b.bus.hearing()).toBe(true);
    const told = ['tools_list_changed', 'prompts_list_changed', 'resources_list_changed'];
    expect([told, [...told, ...told]]).toContainEqual(b.heard.map((e) => e.kind));
    await expect.poll(() => a.redis.status, { timeout: 10_000 }).toBe('ready');

    // Past a resync under way: once the change below is heard, nothing older is still to come.
    const heardBefore = b.heard.length;
    b.tools.push(named('second'));
    a.handler.notify.toolsChanged();
    await expect.poll(() => modern.tools.at(-1)).toEqual(['first', 'second']);
    expect(b.heard.at(-1)).toEqual({ kind: 'tools_list_changed' });
    expect(b.heard.length - heardBefore).toBeGreaterThanOrEqual(1);
    expect(watching.updated.every((uri) => uri === WATCHED)).toBe(true);
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
    // The 1,000 heard on b, and for the 3 never sent, a resync once one could go: b's listeners
    // are told every list may have changed.
    await expect.poll(() => b.heard.length, { timeout: 10_000 }).toBe(1_003);
    const counts: Record<string, number> = {};
    for (const e of b.heard) counts[e.kind] = (counts[e.kind] ?? 0) + 1;
    expect(counts).toEqual({
      tools_list_changed: 1_001,
      prompts_list_changed: 1,
      resources_list_changed: 1,
    });
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

  it('ready means it can send too: given a connection made lazyConnect, it connects it, and what is published once ready reaches the others', async () => {
    const server = await startRedis();
    cleanup.push(() => server.stop());
    const listening = createRedisEventBus(connect(server), { secret: SECRET });
    cleanup.push(() => listening.close());
    await listening.ready;
    const heard: ServerEvent[] = [];
    listening.subscribe((e) => heard.push(e));
    const lazy = new Redis(server.url, { lazyConnect: true });
    lazy.on('error', () => {});
    cleanup.push(async () => lazy.disconnect());
    const errors: Error[] = [];
    const bus = createRedisEventBus(lazy, { secret: SECRET, onerror: (e) => errors.push(e) });
    cleanup.push(() => bus.close());
    await bus.ready;
    expect(lazy.status).toBe('ready');
    bus.publish({ kind: 'tools_list_changed' });
    await expect.poll(() => heard).toEqual([{ kind: 'tools_list_changed' }]);
    expect(bus.unsent()).toBe(0);
    expect(errors).toEqual([]);
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

  it('refuses a secret shorter than 32 bytes, or none, and an empty channel', () => {
    const redis = new Redis({ lazyConnect: true });
    cleanup.push(async () => redis.disconnect());
    expect(() => createRedisEventBus(redis, { secret: 'short' })).toThrow(RangeError);
    expect(() => createRedisEventBus(redis, { secret: 'x'.repeat(31) })).toThrow(/at least 32 bytes/);
    expect(() => createRedisEventBus(redis, { secret: undefined as unknown as string })).toThrow(
      /the event bus secret must be a string or a Uint8Array, not undefined/,
    );
    expect(() => createRedisEventBus(redis, { secret: new Uint8Array(32) as unknown as string })).toThrow(
      /the event bus secret must be a string/,
    );
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
    // Each event never sent is made up for by a resync sealed after it: b's listeners are told
    // every list may have changed (twice: once for each), then hear the event that could go.
    const resync = ['tools_list_changed', 'prompts_list_changed', 'resources_list_changed'];
    await expect.poll(() => b.heard.map((e) => e.kind)).toEqual([...resync, ...resync, 'resources_list_changed']);
    expect(b.bus.dropped()).toEqual(NO_DROPS);
  });

  it('an event that fits unpadded but not padded goes unpadded; one byte more is not sent', async () => {
    const server = await startRedis();
    cleanup.push(() => server.stop());
    const { a, heard } = await twoBuses(server);
    // The largest event sealed within the bound, as a bus seals it (a head of the same lengths).
    const event = (n: number) => ({ kind: 'tools_list_changed', params: { s: 'x'.repeat(n) } }) as const;
    const plain = (n: number) => JSON.stringify({ k: 'tools_list_changed', p: { s: 'x'.repeat(n) } });
    const head = { f: 'f'.repeat(22), n: 'n'.repeat(22), x: Date.now() + EVENT_TTL_MS };
    const fits = (n: number) =>
      Buffer.byteLength(sealEvent(eventBusKey(SECRET), CHANNEL, head, plain(n))) <= MAX_EVENT_MESSAGE_BYTES;
    let [largest, over] = [0, MAX_EVENT_MESSAGE_BYTES];
    while (over - largest > 1) {
      const middle = Math.floor((largest + over) / 2);
      if (fits(middle)) largest = middle;
      else over = middle;
    }
    // Not a whole number of steps: padded, it would not fit.
    expect(Buffer.byteLength(plain(largest)) % PAD_BYTES).not.toBe(0);
    a.publish(event(largest));
    await expect.poll(() => heard).toEqual([event(largest)]);
    expect(a.unsent()).toBe(0);
    a.publish(event(largest + 1));
    expect(a.unsent()).toBe(1);
  });

  it('an event a replica could not send while its own Redis connection was down reaches a replica that heard all along: it is told to re-list and re-read what it follows', async () => {
    const server = await startRedis();
    cleanup.push(() => server.stop());
    const b = await replica(server);
    const modern = await follower(b.url);
    const watching = await watcher(b.url, [WATCHED]);
    // a's connection to Redis is not up yet (the bus starts connecting it, and nothing connects in
    // the same tick); b's subscription is up throughout.
    const down = new Redis(server.url, { lazyConnect: true, retryStrategy: () => 50 });
    down.on('error', () => {});
    cleanup.push(async () => down.disconnect());
    const a = createRedisEventBus(down, { secret: SECRET });
    cleanup.push(() => a.close());
    a.publish({ kind: 'resource_updated', uri: WATCHED });
    a.publish({ kind: 'tools_list_changed' });
    expect(a.unsent()).toBe(2);
    expect(down.status).not.toBe('ready');
    await a.ready;
    // Once it can send, a says so: b takes everything as changed, its own listen streams each told
    // the resources they follow.
    await expect.poll(() => watching.updated).toEqual([WATCHED]);
    await expect.poll(() => modern.tools).toEqual([['first']]);
    await expect.poll(() => modern.prompts).toEqual([1]);
    expect(b.heard.map((e) => e.kind)).toEqual([
      'tools_list_changed',
      'prompts_list_changed',
      'resources_list_changed',
    ]);
    expect(b.bus.hearing()).toBe(true);
    expect(b.bus.dropped()).toEqual(NO_DROPS);
    // Said once: nothing more is owed.
    a.publish({ kind: 'prompts_list_changed' });
    await expect.poll(() => modern.prompts).toEqual([1, 1]);
    expect(b.heard).toHaveLength(4);
    expect(watching.updated).toEqual([WATCHED]);
  });
});

describe('NonceMemory', () => {
  const T = EVENT_TTL_MS;

  it('sweeps what expired whatever order it came in: one far expiry heard first holds nothing back', () => {
    const memory = new NonceMemory(1_000);
    memory.remember('far', 2 * T, 0);
    for (let i = 0; i < 500; i++) memory.remember(`near-${i}`, 100 + i, 0);
    expect(memory.size).toBe(501);
    // Past every near one's expiry: only the far one is left.
    memory.remember('later', 2 * T, 1_000);
    expect(memory.size).toBe(2);
    expect(memory.seen('far', 2 * T)).toBe('replayed');
    expect(memory.seen('near-3', 103)).toBeUndefined();
  });

  it('at its bound forgets the soonest to expire, and refuses nothing expiring later', () => {
    const memory = new NonceMemory(3);
    memory.remember('far', 2 * T, 0);
    memory.remember('a', T, 0);
    memory.remember('b', T + 1, 0);
    memory.remember('c', T + 2, 0);
    expect(memory.size).toBe(3);
    // 'a' was forgotten: its copy is refused; the far one is remembered; one expiring at T + 1 or later is new.
    expect(memory.seen('a', T)).toBe('forgotten');
    expect(memory.seen('far', 2 * T)).toBe('replayed');
    expect(memory.seen('d', T + 1)).toBeUndefined();
  });

  it('never takes a nonce twice within its validity, in any order of expiry and arrival, and stays bounded', () => {
    // A seeded generator: the same hostile orders every run.
    let state = 0x2545f491;
    const random = (below: number) => {
      state = (Math.imul(state, 1_103_515_245) + 12_345) >>> 0;
      return state % below;
    };
    for (const bound of [1, 2, 7, 64]) {
      const memory = new NonceMemory(bound);
      const taken = new Map<string, number>();
      let now = 0;
      let latest = 0;
      for (let step = 0; step < 20_000; step++) {
        now += random(3);
        // A nonce new or heard before (a replay while it is valid), its expiry anywhere in the window.
        const n = `n${random(300)}`;
        if ((taken.get(n) ?? now) < now) taken.delete(n);
        const x = taken.get(n) ?? now + random(2 * T);
        latest = Math.max(latest, x);
        const verdict = memory.seen(n, x);
        if (verdict === undefined) {
          expect(taken.has(n) && (taken.get(n) as number) >= now, `${n} taken twice`).toBe(false);
          memory.remember(n, x, now);
          taken.set(n, x);
        }
        expect(memory.size).toBeLessThanOrEqual(bound);
        // Whatever it forgot, one expiring after everything it heard is taken.
        expect(memory.seen(`fresh-${step}`, latest + 1)).toBeUndefined();
      }
    }
  });
});
