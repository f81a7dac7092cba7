import { createConnection, createServer, type Server, type Socket, connect as tcpConnect } from 'node:net';
import type { Client } from '@modelcontextprotocol/client';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, expect } from 'vitest';
import { startRedis, type TestRedis } from '../../../test/support/redis-server.js';
import { type Balancer, startProxy } from '../../../test/support/round-robin-proxy.js';
import type { HttpHandlerOptions } from '../src/http/handler.js';
import { createRedisRelay, type RedisRelay, type RedisRelayOptions } from '../src/relay/redis-relay.js';
import { type Loopback, loopback } from './loopback.js';

/** One replica: its relay, its own Redis connection, its loopback endpoint. */
export interface Replica {
  relay: RedisRelay;
  redis: Redis;
  serving: Loopback;
}

/** What a relay suite holds: its Redis (for the whole suite), and what each test opened (closed after it). */
export interface RelayHarness {
  server: TestRedis;
  replicas: Replica[];
  clients: Client[];
  proxy: Balancer | undefined;
  /** Anything else a test opened, closed after it. */
  cleanups: (() => Promise<void>)[];
}

/**
 * How a replica's relay is made: its options, `wrapped` (relayed requests run through a plain
 * `{ fetch }` around the handler), and `handler`, options of the replica's own handler.
 */
export type ReplicaOptions = Partial<RedisRelayOptions> & { wrapped?: boolean; handler?: HttpHandlerOptions };

/**
 * Registers a relay suite's hooks (call it inside the `describe`): a Redis started for the suite,
 * and after each test its clients, balancer and replicas closed. `replica` starts one replica (a
 * loopback endpoint with a Redis relay sealed with `secret`, liveness checked every 100 ms);
 * `pair` two behind a balancer that sends `initialize` to the first and every later request to
 * the second.
 */
export function relayHarness(secret: string) {
  const h = { replicas: [], clients: [], proxy: undefined, cleanups: [] } as unknown as RelayHarness;
  beforeAll(async () => {
    h.server = await startRedis();
  });
  afterAll(async () => {
    await h.server?.stop();
  });
  /** Closes what the test opened: its clients, balancer and replicas, then the rest. Also run after each test. */
  const closeAll = async () => {
    for (const client of h.clients.splice(0)) await client.close().catch(() => {});
    await h.proxy?.close();
    h.proxy = undefined;
    for (const r of h.replicas.splice(0)) {
      await r.serving.close();
      await r.relay.close();
      r.redis.disconnect();
    }
    for (const cleanup of h.cleanups.splice(0)) await cleanup();
  };
  afterEach(closeAll);

  const replica = async (prefix: string, options: ReplicaOptions = {}): Promise<Replica> => {
    const { wrapped, handler, ...relayOptions } = options;
    const redis = new Redis(h.server.url);
    const relay = createRedisRelay(redis, { secret, prefix, livenessMs: 100, ...relayOptions });
    const serving = await loopback({ authenticated: true, ...handler, sessions: relay });
    await relay.serve(wrapped ? { fetch: (request) => serving.handler.fetch(request) } : serving.handler);
    const r = { relay, redis, serving };
    h.replicas.push(r);
    return r;
  };

  /**
   * A replica whose Redis (both its connections) goes through a `gate` the test shuts and opens;
   * `redis`: how its connection is made (it reconnects every 20 ms unless told otherwise).
   */
  const gated = async (
    prefix: string,
    options: ReplicaOptions = {},
    redisOptions: { enableOfflineQueue?: boolean; maxRetriesPerRequest?: number | null } = {},
  ) => {
    const g = await gate(h.server.port);
    h.cleanups.push(() => g.close());
    const redis = new Redis(g.url, { retryStrategy: () => 20, ...redisOptions });
    redis.on('error', () => {});
    if (redisOptions.enableOfflineQueue === false)
      await new Promise<void>((resolve) => redis.once('ready', () => resolve()));
    const { wrapped, handler, ...relayOptions } = options;
    const relay = createRedisRelay(redis, { secret, prefix, livenessMs: 100, ...relayOptions });
    const serving = await loopback({ authenticated: true, ...handler, sessions: relay });
    await relay.serve(wrapped ? { fetch: (request) => serving.handler.fetch(request) } : serving.handler);
    const r = { relay, redis, serving };
    h.replicas.push(r);
    return { ...r, gate: g };
  };

  const pair = async (prefix: string, first: ReplicaOptions = {}, second: ReplicaOptions = first) => {
    const [a, b] = [await replica(prefix, first), await replica(prefix, second)];
    // A test's second pair: the first one's balancer is closed after it too.
    const earlier = h.proxy;
    if (earlier) h.cleanups.push(() => earlier.close());
    h.proxy = await startProxy([a.serving.url, b.serving.url], (_req, n) => (n === 0 ? 0 : 1));
    return { a, b, url: h.proxy.url };
  };

  return { h, replica, gated, pair, closeAll };
}

/**
 * A TCP proxy to Redis: `shut` refuses new connections (those up stay up), `cut` also drops those
 * up, `freeze` stops carrying anything on those up and closes none of them (a host powered off, a
 * partition: Redis keeps their subscriptions until its own keepalive gives up on them).
 */
export interface Gate {
  url: string;
  shut(): void;
  cut(): void;
  freeze(): void;
  /** Carries on again what `freeze` stopped, on the same connections: what waited arrives now. */
  thaw(): void;
  /**
   * Closes the connections on the side of those who connected, and keeps the other side open and
   * silent: a network gone between two hosts, noticed by one end (its keepalive gave up) and not
   * the other.
   */
  sever(): void;
  open(): void;
  /**
   * The next chunk Redis sends on any connection that holds `pattern` is never delivered, and that
   * connection is cut: a connection dropping with a message in flight (pub/sub delivers at most
   * once). New connections are let in as before.
   */
  swallow(pattern: string): void;
  close(): Promise<void>;
}

export async function gate(port: number): Promise<Gate> {
  let open = true;
  let swallowing: Buffer | undefined;
  const sockets = new Set<Socket>();
  const pairs = new Set<[Socket, Socket]>();
  /** Pairs whose connecting side was closed alone (`sever`): their other side stays open. */
  const severed = new Set<[Socket, Socket]>();
  const server = createServer((client) => {
    if (!open) {
      client.destroy();
      return;
    }
    const upstream = tcpConnect(port, '127.0.0.1');
    sockets.add(client);
    sockets.add(upstream);
    const pair: [Socket, Socket] = [client, upstream];
    pairs.add(pair);
    const kill = () => {
      client.destroy();
      sockets.delete(client);
      pairs.delete(pair);
      if (severed.has(pair)) return;
      upstream.destroy();
      sockets.delete(upstream);
    };
    client.on('error', kill).on('close', kill);
    upstream.on('error', kill).on('close', kill);
    // Ahead of the pipe's own listener: a chunk swallowed is never written on.
    upstream.prependListener('data', (chunk: Buffer) => {
      if (!swallowing || !chunk.includes(swallowing)) return;
      swallowing = undefined;
      client.destroy();
      kill();
    });
    client.pipe(upstream);
    upstream.pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const at = (server.address() as { port: number }).port;
  const drop = () => {
    for (const s of sockets) s.destroy();
  };
  return {
    url: `redis://127.0.0.1:${at}`,
    shut: () => {
      open = false;
    },
    cut: () => {
      open = false;
      drop();
    },
    freeze: () => {
      open = false;
      for (const [client, upstream] of pairs) {
        client.unpipe(upstream);
        upstream.unpipe(client);
        client.pause();
        upstream.pause();
      }
    },
    sever: () => {
      open = false;
      for (const pair of pairs) {
        const [client, upstream] = pair;
        severed.add(pair);
        client.unpipe(upstream);
        upstream.unpipe(client);
        upstream.pause();
        client.destroy();
      }
    },
    thaw: () => {
      open = true;
      for (const [client, upstream] of pairs) {
        client.pipe(upstream);
        upstream.pipe(client);
      }
    },
    open: () => {
      open = true;
    },
    swallow: (pattern) => {
      swallowing = Buffer.from(pattern);
    },
    close: async () => {
      drop();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A loopback port free a moment ago, below the range the kernel hands out by itself (`service.ts`). */
export { freePort } from '../../../test/support/service.js';

/** How many subscribers `r` (any replica's connection) sees on `replica`'s channel. */
export async function listeners(r: Replica, prefix: string, replica: string): Promise<number> {
  return Number(((await r.redis.pubsub('NUMSUB', `${prefix}replica:${replica}`)) as [string, number])[1]);
}

/** How many PUBLISHes Redis has run so far. */
export async function publishes(redis: Redis): Promise<number> {
  const info = await redis.info('commandstats');
  return Number(/cmdstat_publish:calls=(\d+)/.exec(info)?.[1] ?? 0);
}

/** Until a request on `client`'s session reaches the holder `a` without a PUBLISH (the connection has greeted). */
export async function untilDirect(client: Client, a: Replica): Promise<void> {
  await expect
    .poll(async () => {
      const before = await publishes(a.redis);
      await client.listTools();
      return (await publishes(a.redis)) - before;
    })
    .toBe(0);
}

/** Cuts a replica's subscriber connection on the Redis side, as a network blip would. */
export async function dropSubscription(r: Replica, prefix: string): Promise<void> {
  const line = String(await r.redis.client('LIST'))
    .split('\n')
    .find((l) => l.includes(`name=${prefix}relay:${r.relay.replica} `));
  expect(line).toBeDefined();
  await r.redis.client('KILL', 'ID', /\bid=(\d+)/.exec(line ?? '')?.[1] ?? '');
}

/**
 * One JSON-RPC message POSTed raw on 2025-11-25 session `sessionId` as `who` (`Bearer who`), as a
 * client would send it; `signal` bounds it.
 */
export function postOnSession(
  url: string,
  sessionId: string,
  message: unknown,
  who = 'alice',
  signal?: AbortSignal,
): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${who}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-session-id': sessionId,
      'mcp-protocol-version': '2025-11-25',
    },
    body: JSON.stringify(message),
    ...(signal ? { signal } : {}),
  });
}

/** The answer `dev` to the first question pushed on `sessionId` (its request id 0). */
export const ANSWER_DEV = { jsonrpc: '2.0', id: 0, result: { action: 'accept', content: { env: 'dev' } } };

/**
 * What a man in the middle of a direct connection does with each message the holder sends back
 * (`size`: its length in bytes, `n`: its place): carries it on (`pass`), drops it (`drop`), or
 * holds it back (`hold`) until the next one it carries has gone, then sends it.
 */
export type Tamper = (message: { size: number; n: number }) => 'pass' | 'drop' | 'hold';

/**
 * A TCP proxy in front of a holder's direct-connection port (`port`), to advertise in its place:
 * the requester's messages go through as they are, the holder's go one by one through `tamper`
 * (set it any time; by default every message passes). It cannot make or open a message — it has
 * no key — only drop it or change its order, as anyone on the network between two hosts can.
 */
export async function tamperingLink(port: number) {
  const state: { tamper: Tamper } = { tamper: () => 'pass' };
  const sockets = new Set<Socket>();
  /** Messages the requesters sent, and the holder's carried on so far. */
  const count = { sent: 0, carried: 0 };
  /** While paused, the holder's messages wait here, in order (`resume` sends them on). */
  let paused: (() => void)[] | undefined;
  const server = createServer((client) => {
    const upstream = tcpConnect(port, '127.0.0.1');
    sockets.add(client).add(upstream);
    const kill = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on('error', kill).on('close', kill);
    upstream.on('error', kill).on('close', kill);
    let sent = Buffer.alloc(0);
    client.on('data', (chunk: Buffer) => {
      upstream.write(chunk);
      for (sent = Buffer.concat([sent, chunk]); sent.length >= 4 && sent.length >= 4 + sent.readUInt32BE(0); ) {
        sent = sent.subarray(4 + sent.readUInt32BE(0));
        count.sent++;
      }
    });
    let buffered = Buffer.alloc(0);
    let n = 0;
    let held: Buffer | undefined;
    const carry = (message: Buffer) => {
      const size = message.readUInt32BE(0);
      const verdict = state.tamper({ size, n: n++ });
      if (verdict === 'drop') return;
      if (verdict === 'hold' && held === undefined) {
        held = message;
        return;
      }
      client.write(message);
      count.carried++;
      if (held !== undefined) client.write(held);
      held = undefined;
    };
    upstream.on('data', (chunk: Buffer) => {
      buffered = Buffer.concat([buffered, chunk]);
      while (buffered.length >= 4 && buffered.length >= 4 + buffered.readUInt32BE(0)) {
        const message = buffered.subarray(0, 4 + buffered.readUInt32BE(0));
        buffered = buffered.subarray(message.length);
        if (paused) paused.push(() => carry(message));
        else carry(message);
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const at = (server.address() as { port: number }).port;
  return {
    address: `127.0.0.1:${at}`,
    state,
    count,
    /** Holds every message the holder sends from now on (its greeting among them) until `resume`. */
    pause: () => {
      paused ??= [];
    },
    resume: () => {
      const waiting = paused ?? [];
      paused = undefined;
      for (const send of waiting) send();
    },
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/**
 * A TCP forwarder in front of `target`, whose connections a test cuts as a network blip would
 * (`cut`): a direct connection between replicas made through it breaks while both stay up.
 *
 * @example
 * const fwd = await tcpForwarder({ host: '127.0.0.1', port });
 * fwd.cut();
 */
export async function tcpForwarder(target: {
  host: string;
  port: number;
}): Promise<{ address: string; cut(): void; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  const server: Server = createServer((inbound) => {
    const outbound = createConnection(target);
    for (const s of [inbound, outbound]) {
      sockets.add(s);
      s.on('error', () => {});
      s.on('close', () => sockets.delete(s));
    }
    inbound.pipe(outbound);
    outbound.pipe(inbound);
    inbound.on('close', () => outbound.destroy());
    outbound.on('close', () => inbound.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const cut = () => {
    for (const s of sockets) s.destroy();
  };
  return {
    address: `127.0.0.1:${(server.address() as { port: number }).port}`,
    cut,
    close: () =>
      new Promise<void>((resolve) => {
        cut();
        server.close(() => resolve());
      }),
  };
}
