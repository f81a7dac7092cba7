import { createConnection, createServer, type Socket } from 'node:net';
import { Client } from '@modelcontextprotocol/client';
import fc from 'fast-check';
import { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { withRedis } from '../../../../test/support/redis-server.js';
import { startProxy } from '../../../../test/support/round-robin-proxy.js';
import { httpTransport, patientClient, startDeploy } from '../../test/loopback.js';
import {
  freePort,
  postOnSession,
  publishes,
  type Replica,
  type ReplicaOptions,
  relayHarness,
  tcpForwarder,
  untilDirect,
} from '../../test/relay-harness.js';
import { Link, MAX_HELLO, MAX_LINK_MESSAGE, parseAddress } from './direct.js';
import { frameKey, sealFrames } from './frames.js';
import { createRedisRelay } from './redis-relay.js';

const REDIS = withRedis('relay/direct.test.ts');

const SECRET = 'direct-test-secret-0123456789abcdef0123456789';

/** A raw connection to a replica's direct port, and what it hears until it closes. */
async function dial(address: string): Promise<{ socket: Socket; closed: Promise<void>; heard: Buffer[] }> {
  const where = parseAddress(address);
  if (!where) throw new Error(`bad address ${address}`);
  const socket = createConnection(where);
  const heard: Buffer[] = [];
  socket.on('data', (d: Buffer) => heard.push(d));
  socket.on('error', () => {});
  const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
  await new Promise((resolve) => socket.once('connect', resolve));
  return { socket, closed, heard };
}

/** One framed message (a 4-byte length, then the bytes). */
function framed(message: string): Buffer {
  const body = Buffer.from(message);
  const head = Buffer.alloc(4);
  head.writeUInt32BE(body.length);
  return Buffer.concat([head, body]);
}

/**
 * A server reading its connections as `Link`s (greeted already when `greeted`), and a raw
 * connection to it: what the link delivered, the link itself, and `close` for both ends.
 */
async function linkServer(greeted: boolean) {
  const got: string[] = [];
  let link: Link | undefined;
  const server = createServer((socket) => {
    link = new Link(socket, true, (m) => got.push(m));
    if (greeted) link.peer = 'peer';
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const raw = await dial(`127.0.0.1:${(server.address() as { port: number }).port}`);
  return {
    ...raw,
    got,
    link: () => link as Link,
    close: async () => {
      raw.socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

describe('direct connections: framing and addresses', () => {
  it('parses host:port, IPv6 in brackets, and refuses anything else', () => {
    expect(parseAddress('10.0.0.7:7400')).toEqual({ host: '10.0.0.7', port: 7400 });
    expect(parseAddress('replica-2.svc:80')).toEqual({ host: 'replica-2.svc', port: 80 });
    expect(parseAddress('[::1]:9000')).toEqual({ host: '::1', port: 9000 });
    for (const bad of ['', 'host', ':80', 'host:0', 'host:65536', 'host:80\nx', 'a b:1', 'http://h:1', '::1:80'])
      expect(parseAddress(bad), bad).toBeUndefined();
  });

  it('a message split across reads, several in one read, and a multibyte character across a split arrive whole', async () => {
    // Greeted: past the few KB a connection may send before its hello.
    const { socket, got, close } = await linkServer(true);
    const all = Buffer.concat([framed('first'), framed('sécond ✓'), framed(''), framed('x'.repeat(70_000))]);
    // Byte by byte for the first 30, then the rest in uneven pieces.
    for (let i = 0; i < 30; i++) socket.write(all.subarray(i, i + 1));
    for (let i = 30; i < all.length; i += 9_973) socket.write(all.subarray(i, i + 9_973));
    await expect.poll(() => got.length).toBe(4);
    expect(got.slice(0, 3)).toEqual(['first', 'sécond ✓', '']);
    expect(got[3]).toHaveLength(70_000);
    await close();
  });

  it('property: any messages, cut into any pieces on the wire, arrive whole and in order', async () => {
    const { socket, got, close } = await linkServer(true);
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.string({ unit: 'binary', maxLength: 3_000 }), { minLength: 1, maxLength: 8 }),
        fc.array(fc.integer({ min: 1, max: 4_000 }), { minLength: 1, maxLength: 12 }),
        async (messages, cuts) => {
          got.length = 0;
          const wire = Buffer.concat(messages.map(framed));
          let at = 0;
          for (let i = 0; at < wire.length; i++) {
            const size = cuts[i % cuts.length] as number;
            socket.write(wire.subarray(at, at + size));
            at += size;
            // Now and then let the pieces travel on their own.
            if (i % 3 === 0) await new Promise((resolve) => setImmediate(resolve));
          }
          await expect.poll(() => got.length).toBe(messages.length);
          // A lone surrogate cannot travel as UTF-8: it arrives as U+FFFD, as any UTF-8 text would.
          expect(got).toEqual(messages.map((m) => Buffer.from(m).toString()));
        },
      ),
      { numRuns: 40 },
    );
    await close();
  });

  it('a length past the bound closes the connection at once, without waiting for (or keeping) the bytes: a few KB before the greeting, 8 MB after', async () => {
    for (const [greeted, length] of [
      [false, MAX_HELLO + 1],
      [true, MAX_LINK_MESSAGE + 1],
    ] as const) {
      const { socket, closed, got, link, close } = await linkServer(greeted);
      const head = Buffer.alloc(4);
      head.writeUInt32BE(length);
      socket.write(head);
      await closed;
      expect(got).toEqual([]);
      expect(link().send('anything')).toBe(false);
      await close();
    }
  });

  it('greeted, a message up to the bound arrives', async () => {
    const { socket, got, close } = await linkServer(true);
    socket.write(framed('y'.repeat(MAX_LINK_MESSAGE)));
    await expect.poll(() => got.length, { timeout: 10_000 }).toBe(1);
    expect(got[0]).toHaveLength(MAX_LINK_MESSAGE);
    await close();
  });

  it('refuses a wildcard host without an address to advertise, and an advertised address that is not host:port', () => {
    const redis = new Redis({ lazyConnect: true });
    expect(() => createRedisRelay(redis, { secret: SECRET, direct: { host: '0.0.0.0' } })).toThrow(/direct.advertise/);
    expect(() => createRedisRelay(redis, { secret: SECRET, direct: { host: '::' } })).toThrow(/direct.advertise/);
    expect(() => createRedisRelay(redis, { secret: SECRET, direct: { advertise: 'http://x:1' } })).toThrow(/host:port/);
    redis.disconnect();
  });
});

describe.skipIf(!REDIS)('2025 sessions relayed on direct connections between replicas', () => {
  const harness = relayHarness(SECRET);
  const { h, replica } = harness;
  const { clients, cleanups } = h;
  /** Two replicas behind a balancer (`initialize` on the first), both taking direct connections unless told otherwise. */
  const pair = (prefix: string, first: ReplicaOptions = { direct: {} }, second: ReplicaOptions = first) =>
    harness.pair(prefix, first, second);

  /** alice's deploy through a pair, its question open once the connection to the holder has greeted. */
  const asking = async <P extends { a: Replica; url: string }>(replicasOf: P) => {
    const { client, asked } = patientClient();
    clients.push(client);
    await client.connect(httpTransport(replicasOf.url, 'alice'));
    await untilDirect(client, replicasOf.a);
    const call = startDeploy(client);
    await asked;
    return { ...replicasOf, client, call };
  };

  const answering = () => {
    const client = new Client({ name: 'direct', version: '1' }, { capabilities: { elicitation: { form: {} } } });
    // Production asks for the environment, then a confirmation and a ticket.
    client.setRequestHandler('elicitation/create', async (request) => {
      const params = request.params as { requestedSchema?: { properties?: Record<string, unknown> } };
      const asksEnv = params.requestedSchema?.properties?.env !== undefined;
      return { action: 'accept', content: asksEnv ? { env: 'prod' } : { confirmed: true, ticket: 'REL-1001' } };
    });
    clients.push(client);
    return client;
  };

  /** The holder's address as its sessions' directory entries give it. */
  const addressOf = async (r: Replica, prefix: string, sessionId: string) =>
    String(await r.redis.get(`${prefix}session:${sessionId}`)).split('\n')[4];

  it('once the holder has greeted, a whole question and answer cross without one PUBLISH', async () => {
    const { a, b, url } = await pair('d1:');
    const client = answering();
    const transport = httpTransport(url, 'alice');
    await client.connect(transport);
    const address = await addressOf(a, 'd1:', transport.sessionId as string);
    expect(parseAddress(address as string)?.host).toBe('127.0.0.1');
    // The first relays went through Redis while b's connection to a greeted.
    await untilDirect(client, a);
    const before = await publishes(a.redis);
    const result = await client.callTool({ name: 'deploy', arguments: { service: 'order-service' } });
    expect(result.structuredContent).toMatchObject({ status: 'done', deployment: { env: 'prod' } });
    expect(await publishes(a.redis)).toBe(before);
    expect(a.serving.store.deployments).toEqual([{ service: 'order-service', env: 'prod', ticket: 'REL-1001' }]);
    expect(b.serving.store.deployments).toEqual([]);
    expect(a.relay.dropped()).toMatchObject({ signature: 0, envelope: 0, schema: 0, sender: 0, misdirected: 0 });
    await transport.terminateSession();
    expect(a.serving.handler.sessionCount()).toBe(0);
    await expect.poll(() => b.relay.inFlight()).toBe(0);
  });

  it('mixed: a holder that takes no direct connections, and a requester that makes none, still relay through Redis', async () => {
    for (const [prefix, holder, requester] of [
      ['mx1:', {}, { direct: {} }],
      ['mx2:', { direct: {} }, {}],
    ] as const) {
      const { a, url } = await pair(prefix, holder, requester);
      const client = answering();
      const transport = httpTransport(url, 'alice');
      await client.connect(transport);
      await client.listTools();
      const before = await publishes(a.redis);
      const result = await client.callTool({ name: 'deploy', arguments: { service: 'billing' } });
      expect(result.structuredContent, prefix).toMatchObject({ status: 'done' });
      expect(await publishes(a.redis), prefix).toBeGreaterThan(before);
      await client.close();
      await h.proxy?.close();
      h.proxy = undefined;
    }
  });

  it('an advertised address nobody listens on: every relay goes through Redis, and works', async () => {
    const port = await freePort();
    const { a, url } = await pair('refused:', { direct: { advertise: `127.0.0.1:${port}` } }, { direct: {} });
    const client = answering();
    await client.connect(httpTransport(url, 'alice'));
    for (let i = 0; i < 3; i++) await client.listTools();
    const before = await publishes(a.redis);
    const result = await client.callTool({ name: 'deploy', arguments: { service: 'order-service' } });
    expect(result.structuredContent).toMatchObject({ status: 'done' });
    expect(await publishes(a.redis)).toBeGreaterThan(before);
    expect(a.relay.address).toBe(`127.0.0.1:${port}`);
  });

  it('an address in the directory where another replica now listens: nothing is sent to it, and the session is not found', async () => {
    const prefix = 'stale:';
    const other = await replica(prefix, { direct: {} });
    const b = await replica(prefix, { direct: {} });
    const client = new Client({ name: 'seed', version: '1' });
    clients.push(client);
    const seed = httpTransport(other.serving.url, 'alice');
    await client.connect(seed);
    const otherAddress = await addressOf(other, prefix, seed.sessionId as string);
    // A session of a replica that is gone ("ghost"), whose address is now `other`'s.
    const owner = String(await other.redis.get(`${prefix}session:${seed.sessionId}`)).split('\n')[1];
    await b.redis.set(`${prefix}session:ghost-session`, `ghost\n${owner}\nbatch\naead\n${otherAddress}`);
    for (let i = 0; i < 2; i++) {
      const response = await postOnSession(b.serving.url, 'ghost-session', {
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/list',
      });
      expect(response.status).toBe(404);
    }
    // The greeting meant for "ghost" was refused where it landed; no request followed it there.
    await expect.poll(() => other.relay.dropped().misdirected).toBeGreaterThanOrEqual(1);
    expect(other.relay.inFlight()).toBe(0);
  });

  it('the connection is cut mid-question: the call ends with an error, the holder withdraws, the next call goes through', async () => {
    // The holder advertises a forwarder in front of its port, so the test can cut the connection.
    const port = await freePort();
    const relayed = await tcpForwarder({ host: '127.0.0.1', port });
    cleanups.push(relayed.close);
    const { a, client, call } = await asking(
      await pair('cut:', { direct: { port, advertise: relayed.address } }, { direct: {} }),
    );
    relayed.cut();
    const error = await call;
    expect(error).toBeInstanceOf(Error);
    expect(String((error as Error).message)).toMatch(/did not complete: the relay lost its connection/);
    // The holder dropped the call with its requester's connection: its question withdrawn, nothing done.
    expect((await a.serving.log.response('env')).action).toBe('cancel');
    expect(a.serving.store.deployments).toEqual([]);
    await expect.poll(() => a.relay.inFlight()).toBe(0);
    // The session lives on: the next call goes through (on Redis, then on a new connection).
    client.setRequestHandler('elicitation/create', async () => ({ action: 'accept', content: { env: 'staging' } }));
    const again = await client.callTool({ name: 'deploy', arguments: { service: 'order-service' } });
    expect(again.structuredContent).toMatchObject({ status: 'done', deployment: { env: 'staging' } });
    await untilDirect(client, a);
    expect(a.serving.store.deployments).toHaveLength(1);
  });

  it('a cancel crosses on the connection: the holder withdraws its question, nothing is done, every relay ends', async () => {
    const { a, b, url } = await pair('dcancel:');
    const { client, asked, withdrawn } = patientClient('quitter');
    clients.push(client);
    await client.connect(httpTransport(url, 'alice'));
    await untilDirect(client, a);
    const published = await publishes(a.redis);
    const controller = new AbortController();
    const call = startDeploy(client, controller.signal);
    await asked;
    controller.abort('the person closed the tab');
    expect(await call).toBeInstanceOf(Error);
    await withdrawn;
    expect((await a.serving.log.response('env')).action).toBe('cancel');
    expect(a.serving.store.deployments).toEqual([]);
    // The call, its cancel and the withdrawal all went on the connection.
    expect(await publishes(a.redis)).toBe(published);
    // The client going away ends the relays it left open (its GET stream among them), at both ends.
    await client.close();
    await expect.poll(() => b.relay.inFlight()).toBe(0);
    await expect.poll(() => a.relay.inFlight()).toBe(0);
  });

  it("another identity's session stays unknown through a replica connected to its holder", async () => {
    const { a, b, url } = await pair('didn:');
    const client = answering();
    const transport = httpTransport(url, 'alice');
    await client.connect(transport);
    await untilDirect(client, a);
    // alice's GET stream is held at a; mallory's request adds nothing there.
    const held = a.relay.inFlight();
    const response = await postOnSession(
      b.serving.url,
      transport.sessionId as string,
      { jsonrpc: '2.0', id: 9, method: 'tools/list' },
      'mallory',
    );
    expect(response.status).toBe(404);
    expect(await response.json()).toMatchObject({ error: { message: 'Session not found' } });
    expect(a.relay.inFlight()).toBe(held);
    expect(a.serving.store.deployments).toEqual([]);
  });

  it('a relay on a connection does not ask Redis whether its holder listens (only, with the others to it, whether its heartbeat is current); relays through Redis share one question per peer every livenessMs, each way', async () => {
    const numsubs = async (r: Replica) =>
      Number(/cmdstat_pubsub\|numsub:calls=(\d+)/.exec(await r.redis.info('commandstats'))?.[1] ?? 0);
    const direct = await asking(await pair('live:'));
    let before = await numsubs(direct.a);
    await new Promise((resolve) => setTimeout(resolve, 600));
    expect(await numsubs(direct.a)).toBe(before);
    const { a, b } = await pair('live2:', {});
    // Every session opened on a, every later request on b.
    const opening = await startProxy([a.serving.url, b.serving.url], (req) =>
      req.method === 'POST' && !req.headers['mcp-session-id'] ? 0 : 1,
    );
    cleanups.push(() => opening.close());
    // Three clients, each with its GET stream and its call's stream relayed: six relays to a.
    for (const name of ['alice', 'bob', 'carol']) {
      const { client, asked } = patientClient(name);
      clients.push(client);
      await client.connect(httpTransport(opening.url, name));
      void startDeploy(client);
      await asked;
    }
    expect(b.relay.inFlight()).toBe(6);
    const from = performance.now();
    before = await numsubs(a);
    await new Promise((resolve) => setTimeout(resolve, 600));
    // At most one question each 100 ms each way for all six — b whether a listens, a whether b
    // does — a timer each way, never one per relay (six times as many). Bounded by the time that
    // passed between the two counts, however late a loaded machine runs the timers; a timer runs
    // at least once in the 600 ms, its question maybe still on its way (at least one arrives).
    const asked = (await numsubs(a)) - before;
    const ticks = Math.floor((performance.now() - from) / 100) + 1;
    expect(asked).toBeGreaterThanOrEqual(1);
    expect(asked).toBeLessThanOrEqual(2 * ticks);
  });

  it('the holder stops mid-question: the call ends with an error at once, nothing is done', async () => {
    const { a, b, call } = await asking(await pair('stop:'));
    await a.relay.close();
    const error = await call;
    expect(error).toBeInstanceOf(Error);
    expect(String((error as Error).message)).toMatch(/did not complete/);
    expect(a.serving.store.deployments).toEqual([]);
    await expect.poll(() => b.relay.inFlight()).toBe(0);
  });

  describe('what anyone who can reach the port may send', () => {
    const holder = async () => {
      const a = await replica('hostile:', { direct: { helloTimeoutMs: 300 } });
      const seed = new Client({ name: 'seed', version: '1' });
      clients.push(seed);
      const transport = httpTransport(a.serving.url, 'alice');
      await seed.connect(transport);
      return { a, address: (await addressOf(a, 'hostile:', transport.sessionId as string)) as string };
    };
    const key = frameKey(SECRET);

    it('HTTP, junk JSON, another secret, a frame before any hello: each closes the connection, and nothing runs', async () => {
      const { a, address } = await holder();
      const sends = [
        Buffer.from('GET / HTTP/1.1\r\nhost: x\r\n\r\n'),
        framed('{"not":"an envelope"}'),
        framed(sealFrames(frameKey('another-secret-0123456789abcdef01234567'), 'x', a.relay.replica, [{ t: 'hello' }])),
        framed(
          sealFrames(key, 'mallory', a.relay.replica, [
            { t: 'request', r: 'r1', method: 'GET', url: 'http://x/mcp', headers: [], owner: '0'.repeat(64) },
          ]),
        ),
      ];
      for (const bytes of sends) {
        const { socket, closed, heard } = await dial(address);
        socket.write(bytes);
        await closed;
        expect(heard).toEqual([]);
      }
      expect(a.relay.dropped()).toMatchObject({ envelope: 1, signature: 1, sender: 1 });
      expect(a.relay.inFlight()).toBe(0);
    });

    it('connections that never greet cannot hold every place: a new one takes the place of the oldest not greeted; with every place greeted, it is refused', async () => {
      // Squatters may stay a minute each: only the limit can make room.
      const { a, url } = await pair('slots:', { direct: { maxConnections: 3, helloTimeoutMs: 60_000 } });
      const seed = new Client({ name: 'seed', version: '1' });
      clients.push(seed);
      const seeded = httpTransport(a.serving.url, 'alice');
      await seed.connect(seeded);
      const address = (await addressOf(a, 'slots:', seeded.sessionId as string)) as string;
      const squatters = [await dial(address), await dial(address), await dial(address)];
      for (const { socket } of squatters) cleanups.push(async () => void socket.destroy());
      // The requesting replica's connection takes the first squatter's place, greets, and carries
      // the relays; the other two stay.
      const client = answering();
      await client.connect(httpTransport(url, 'alice'));
      await untilDirect(client, a);
      await squatters[0]?.closed;
      expect(squatters.slice(1).map(({ socket }) => socket.destroyed)).toEqual([false, false]);
      // Full again (the requester's and two squatters): the next takes the older squatter's place.
      const late = await dial(address);
      cleanups.push(async () => void late.socket.destroy());
      await squatters[1]?.closed;
      expect(late.socket.destroyed).toBe(false);
      // Every place greeted (the limit lowered to the one there is): a new connection is refused.
      const { a: lone, url: loneUrl } = await pair('slots1:', {
        direct: { maxConnections: 1, helloTimeoutMs: 60_000 },
      });
      const only = answering();
      const transport = httpTransport(loneUrl, 'alice');
      await only.connect(transport);
      await untilDirect(only, lone);
      const loneAddress = (await addressOf(lone, 'slots1:', transport.sessionId as string)) as string;
      const refused = await dial(loneAddress);
      await refused.closed;
      const before = await publishes(lone.redis);
      await only.listTools();
      expect(await publishes(lone.redis)).toBe(before);
    });

    it('a connection that never greets is closed after helloTimeoutMs', async () => {
      const { address } = await holder();
      const { closed } = await dial(address);
      await closed;
    });

    it('a greeting replayed on a second connection is refused; one from another replica after the greeting closes it', async () => {
      const { a, address } = await holder();
      const hello = framed(sealFrames(key, 'peer-1', a.relay.replica, [{ t: 'hello' }], Date.now(), true));
      const first = await dial(address);
      first.socket.write(hello);
      // Greeted back: one framed hello, sealed to peer-1.
      await expect.poll(() => first.heard.length).toBeGreaterThan(0);
      const second = await dial(address);
      second.socket.write(hello);
      await second.closed;
      expect(a.relay.dropped().replayed).toBe(1);
      first.socket.write(framed(sealFrames(key, 'peer-2', a.relay.replica, [{ t: 'end', r: 'x' }], Date.now(), true)));
      await first.closed;
      expect(a.relay.dropped().sender).toBe(1);
    });
  });
});
