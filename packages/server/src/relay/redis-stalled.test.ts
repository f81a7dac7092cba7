/**
 * A replica whose Redis stops answering without closing its connections (Redis paused, a host or a
 * network stalled), on a client told to wait for ever (`maxRetriesPerRequest: null`, the offline
 * queue on: what BullMQ wants, and what ioredis queues by default). Each of the relay's own Redis
 * commands gives up after `timeoutMs`: the directory lookup, the PUBLISH of a relayed request, the
 * check that the holder still listens — the request is answered 503, a call in progress ends with
 * an error, never waited on for as long as Redis is away. And a relayed request given up on is
 * never acted on when Redis comes back and runs the PUBLISH it still held: Redis publishes it only
 * before the moment the requester gave up, on Redis's own clock.
 *
 * The requester's Redis goes through a gate that, frozen, carries nothing more on the connections
 * it has and closes none of them; thawed, what waited arrives.
 */
import { createServer, type Socket, connect as tcpConnect } from 'node:net';
import { Client } from '@modelcontextprotocol/client';
import { Redis } from 'ioredis';
import { afterEach, describe, expect, it } from 'vitest';
import { withRedis } from '../../../../test/support/redis-server.js';
import { startProxy } from '../../../../test/support/round-robin-proxy.js';
import { httpTransport, loopback, patientClient, startDeploy } from '../../test/loopback.js';
import { ANSWER_DEV, postOnSession, type ReplicaOptions, relayHarness } from '../../test/relay-harness.js';
import { createRedisRelay } from './redis-relay.js';

const REDIS = withRedis('relay/redis-stalled.test.ts');
const SECRET = 'relay-stalled-test-secret-0123456789abcdef0';

/** A client that waits for ever: it queues every command while Redis does not answer. */
const WAITS = { maxRetriesPerRequest: null };
/**
 * How long the stalled replica's relay waits on each Redis command: short, for a test that waits
 * it out, and long enough that no command of a Redis that answers (a replica starting on a loaded
 * machine) runs past it.
 */
const TIMEOUT_MS = 1_500;

describe.skipIf(!REDIS)("the requesting replica's Redis stalls, on a client that waits for ever", () => {
  const { h, replica, gated } = relayHarness(SECRET);
  // A stalled gate is thawed after each test (after-hooks run last registered first), so closing
  // the replicas does not wait on it.
  const thaw: (() => void)[] = [];
  afterEach(() => {
    for (const open of thaw.splice(0)) open();
  });

  /**
   * Holder `a`, requester `b` (its Redis behind a gate, on a client that waits for ever, each Redis
   * command bounded at `TIMEOUT_MS`), a balancer: initialize to a, the rest to b; alice connected.
   */
  const setup = async (prefix: string, requester: ReplicaOptions = {}) => {
    const a = await replica(prefix);
    const b = await gated(prefix, { timeoutMs: TIMEOUT_MS, ...requester }, WAITS);
    h.proxy = await startProxy([a.serving.url, b.serving.url], (_req, n) => (n === 0 ? 0 : 1));
    const stall = () => {
      thaw.push(() => b.gate.thaw());
      b.gate.freeze();
    };
    return { a, b, url: h.proxy.url, stall };
  };

  it('a request on a session it has not looked up yet: 503, the directory cannot be reached', async () => {
    const { a, b, stall } = await setup('stalledfind:');
    // Connected to the holder itself: b has never looked the session up.
    const client = new Client({ name: 'stalled', version: '1' });
    h.clients.push(client);
    const transport = httpTransport(a.serving.url, 'alice');
    await client.connect(transport);
    stall();
    const response = await postOnSession(b.serving.url, transport.sessionId as string, {
      jsonrpc: '2.0',
      id: 7,
      method: 'tools/list',
    });
    expect(response.status).toBe(503);
    expect(await response.text()).toMatch(/the session directory \(Redis\) cannot be reached/);
  });

  it('a call relayed while Redis stalls: 503, and once Redis is back its held PUBLISH never runs the call on the holder', async () => {
    // Its PUBLISH unanswered, b answers 503 once its heartbeat has lapsed (2.5 s: the least that
    // holds together with `TIMEOUT_MS`): the holder drops by then whatever reached it before b
    // gave up.
    const { a, b, url, stall } = await setup('stalledpub:', { sessionTtlMs: 2_500 });
    const client = new Client({ name: 'stalled', version: '1' });
    h.clients.push(client);
    const transport = httpTransport(url, 'alice');
    await client.connect(transport);
    // Relayed once: b knows where the session lives, and asks Redis nothing before the PUBLISH.
    await client.listTools();
    stall();
    const response = await postOnSession(url, transport.sessionId as string, {
      jsonrpc: '2.0',
      id: 7,
      method: 'tools/call',
      params: { name: 'deploy', arguments: { service: 'order-service', env: 'dev' } },
    });
    expect(response.status).toBe(503);
    expect(await response.text()).toMatch(/cannot be reached/);
    // Redis back: what b's connection held runs now, in order, before this PING's answer.
    b.gate.thaw();
    await expect.poll(() => b.redis.ping(), { timeout: 10_000 }).toBe('PONG');
    // Relayed after it on a's channel: a has read whatever came before it, and run it.
    const listed = await client.callTool({ name: 'deployments', arguments: {} });
    expect(listed.isError).toBeFalsy();
    expect(a.serving.store.deployments, 'deployed by a request its client was told had failed').toEqual([]);
  });

  it('mid-question: the call ends with an error instead of waiting, and the holder drops it', async () => {
    // b's heartbeat lapses soon after it stalls: the holder then drops the call b gave up on.
    const { a, url, stall } = await setup('stalledq:', { sessionTtlMs: 2_500 });
    const { client, asked } = patientClient('stalled');
    h.clients.push(client);
    const transport = httpTransport(url, 'alice');
    await client.connect(transport);
    const call = startDeploy(client);
    await asked;
    stall();
    const error = await call;
    expect(error).toBeInstanceOf(Error);
    expect(String((error as Error).message)).toMatch(/did not complete/);
    expect((await a.serving.log.response('env')).action).toBe('cancel');
    await expect.poll(() => a.relay.inFlight()).toBe(0);
    // The person answers anyway, straight to the holder: it does nothing.
    await (await postOnSession(a.serving.url, transport.sessionId as string, ANSWER_DEV)).arrayBuffer();
    expect(a.serving.store.deployments, 'deployed after the call was reported as not completed').toEqual([]);
  });

  it('mid-question, its heartbeat still current: its client is told only once the holder dropped the call, and an answer straight to the holder then does nothing', async () => {
    // The holder hears b (subscribed, beating) for up to 3 s after b's Redis stalls, and would
    // take an answer straight to it until then.
    const { a, url, stall } = await setup('stalledbeat:', { sessionTtlMs: 3_000 });
    const { client, asked } = patientClient('stalled');
    h.clients.push(client);
    const transport = httpTransport(url, 'alice');
    await client.connect(transport);
    const call = startDeploy(client);
    await asked;
    stall();
    const error = await call;
    expect(String((error as Error).message)).toMatch(/did not complete: the session directory \(Redis\) cannot be/);
    // Told it failed: the person answers anyway, at once, straight to the holder.
    await (await postOnSession(a.serving.url, transport.sessionId as string, ANSWER_DEV)).arrayBuffer();
    expect(a.serving.store.deployments, 'deployed after the call was reported as not completed').toEqual([]);
    expect((await a.serving.log.response('env')).action).toBe('cancel');
  });

  it('a request held on the way past the moment its requester gave up, then delivered with nothing after it, never runs', async () => {
    // What a stalled network can do: b's PUBLISH is held on the way while b gives up on it (503),
    // then it alone reaches Redis, and b's connection is lost — the abort b sent behind it never
    // arrives, and b cannot reach Redis for a while.
    const prefix = 'stalledlate:';
    const a = await replica(prefix);
    const way = await holdingWay(h.server.port);
    h.cleanups.push(() => way.close());
    const redis = new Redis(way.url, { retryStrategy: () => 20, ...WAITS });
    redis.on('error', () => {});
    const relay = createRedisRelay(redis, {
      secret: SECRET,
      prefix,
      livenessMs: 100,
      timeoutMs: TIMEOUT_MS,
      sessionTtlMs: 2_500,
    });
    const serving = await loopback({ authenticated: true, sessions: relay });
    await relay.serve(serving.handler);
    h.replicas.push({ relay, redis, serving });
    h.proxy = await startProxy([a.serving.url, serving.url], (_req, n) => (n === 0 ? 0 : 1));
    const client = new Client({ name: 'stalled', version: '1' });
    h.clients.push(client);
    const transport = httpTransport(h.proxy.url, 'alice');
    await client.connect(transport);
    await client.listTools();
    way.hold();
    const response = await postOnSession(serving.url, transport.sessionId as string, {
      jsonrpc: '2.0',
      id: 7,
      method: 'tools/call',
      params: { name: 'deploy', arguments: { service: 'order-service', env: 'dev' } },
    });
    expect(response.status).toBe(503);
    // Given up on. Now the request alone goes on to Redis, which runs it before the way closes.
    // (The first PUBLISH to a's channel, or script publishing to it — EVALSHA, or EVAL the first
    // time on a connection: b's watch asks about a's channel too.)
    const channel = `${prefix}replica:${a.relay.replica}`;
    await way.deliverFirst(
      (bytes) => /\$(7\r\npublish|4\r\neval|7\r\nevalsha)\r\n/i.test(bytes) && bytes.includes(channel),
    );
    // A request relayed to a after it, through a third replica: a has read what came before it.
    const c = await replica(prefix);
    const after = await postOnSession(c.serving.url, transport.sessionId as string, {
      jsonrpc: '2.0',
      id: 8,
      method: 'tools/call',
      params: { name: 'deployments', arguments: {} },
    });
    expect(after.status).toBe(200);
    await after.text();
    // Whatever a took before c's request has finished (b's GET stream ends: b no longer listens).
    await expect.poll(() => a.relay.inFlight()).toBe(0);
    expect(a.serving.store.deployments, 'deployed by a request its client was told had failed').toEqual([]);
    way.open();
  });
});

describe.skipIf(!REDIS)("the holder's Redis stalls, on a client that waits for ever", () => {
  const { h, replica, gated } = relayHarness(SECRET);
  const thaw: (() => void)[] = [];
  afterEach(() => {
    for (const open of thaw.splice(0)) open();
  });

  it('a session opened while Redis stalls: 503, the directory cannot be reached, not a wait', async () => {
    const a = await gated('stalledopen:', { timeoutMs: TIMEOUT_MS }, WAITS);
    thaw.push(() => a.gate.thaw());
    a.gate.freeze();
    const client = new Client({ name: 'stalled', version: '1' });
    h.clients.push(client);
    const refused = await client.connect(httpTransport(a.serving.url, 'alice')).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(Error);
    expect(String((refused as Error).message)).toMatch(/the session directory cannot be reached/);
  });

  it('mid-question: the holder drops the call once Redis does not answer it, so an answer straight to it after its client was told does nothing', async () => {
    const prefix = 'stalledholder:';
    // The requester tells its client once a's heartbeat has lapsed (4 to 6 s after the stall); a
    // gives up on its checks of b before (`TIMEOUT_MS`, and `livenessMs` at most to ask).
    const a = await gated(prefix, { timeoutMs: TIMEOUT_MS, sessionTtlMs: 6_000 }, WAITS);
    const b = await replica(prefix);
    h.proxy = await startProxy([a.serving.url, b.serving.url], (_req, n) => (n === 0 ? 0 : 1));
    const { client, asked } = patientClient('stalled');
    h.clients.push(client);
    const transport = httpTransport(h.proxy.url, 'alice');
    await client.connect(transport);
    const call = startDeploy(client);
    await asked;
    thaw.push(() => a.gate.thaw());
    a.gate.freeze();
    const error = await call;
    expect(String((error as Error).message)).toMatch(/did not complete/);
    // Told it failed: the person answers anyway, straight to the holder (its HTTP still up).
    await (await postOnSession(a.serving.url, transport.sessionId as string, ANSWER_DEV)).arrayBuffer();
    expect(a.serving.store.deployments, 'deployed after the call was reported as not completed').toEqual([]);
    expect((await a.serving.log.response('env')).action).toBe('cancel');
  });
});

/**
 * A TCP way to Redis that can hold what its clients send: `hold` keeps every byte sent from then
 * on (Redis's answers still flow); `deliverFirst` sends on, of what was held, only the first
 * piece `matches` finds (one write by the client), lets Redis run it and closes every connection,
 * refusing new ones until `open`.
 */
async function holdingWay(port: number) {
  let holding = false;
  let open = true;
  const pairs = new Set<{ client: Socket; upstream: Socket; held: Buffer[] }>();
  const server = createServer((client) => {
    if (!open) {
      client.destroy();
      return;
    }
    const upstream = tcpConnect(port, '127.0.0.1');
    const pair = { client, upstream, held: [] as Buffer[] };
    pairs.add(pair);
    const kill = () => {
      client.destroy();
      upstream.destroy();
      pairs.delete(pair);
    };
    client.on('error', kill);
    upstream.on('error', kill).on('close', kill);
    client.on('close', () => {
      if (!holding) kill();
    });
    client.on('data', (chunk: Buffer) => {
      if (holding) pair.held.push(chunk);
      else upstream.write(chunk);
    });
    upstream.pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const at = (server.address() as { port: number }).port;
  return {
    url: `redis://127.0.0.1:${at}`,
    hold: () => {
      holding = true;
    },
    async deliverFirst(matches: (bytes: string) => boolean) {
      open = false;
      const found = [...pairs].find((p) => p.held.some((chunk) => matches(chunk.toString('latin1'))));
      expect(found, 'the request was written on no connection').toBeDefined();
      for (const pair of [...pairs]) {
        pair.client.destroy();
        if (pair !== found) pair.upstream.destroy();
      }
      const { upstream, held } = found as { upstream: Socket; held: Buffer[] };
      const chunk = held.find((c) => matches(c.toString('latin1'))) as Buffer;
      // Redis reads the command, runs it, then reads the end of the connection and closes it
      // (its answer read and dropped: nobody waits for it any more).
      upstream.unpipe();
      upstream.resume();
      await new Promise<void>((resolve) => {
        upstream.once('close', () => resolve());
        upstream.end(chunk);
      });
      holding = false;
    },
    open: () => {
      open = true;
    },
    close: async () => {
      for (const { client, upstream } of pairs) {
        client.destroy();
        upstream.destroy();
      }
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
