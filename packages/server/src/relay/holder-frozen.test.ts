/**
 * A holder that stops answering without closing its connections — its host powered off, or cut
 * off by a partition — stays subscribed as far as Redis can tell: Redis keeps a connection nobody
 * closed until its own keepalive gives up on it, minutes later (never, with `tcp-keepalive 0`).
 * Its heartbeat lapses all the same, and a holder whose heartbeat has lapsed is not heard from: a
 * call relayed to it ends with an error, a request on its session is answered 503 to send again
 * (as for a holder cut from Redis: one just back may not have beaten yet), never waited on.
 *
 * The holder's Redis goes through a gate that, frozen, carries nothing more on the connections it
 * has and closes none of them.
 */
import { Client } from '@modelcontextprotocol/client';
import { afterEach, describe, expect, it } from 'vitest';
import { withRedis } from '../../../../test/support/redis-server.js';
import { startProxy } from '../../../../test/support/round-robin-proxy.js';
import { httpTransport, patientClient, startDeploy } from '../../test/loopback.js';
import {
  ANSWER_DEV,
  freePort,
  gate,
  listeners,
  postOnSession,
  publishes,
  relayHarness,
  untilDirect,
} from '../../test/relay-harness.js';

const REDIS = withRedis('relay/holder-frozen.test.ts');
const SECRET = 'relay-frozen-test-secret-0123456789abcdef01';

describe.skipIf(!REDIS)('a holder that stops answering without closing its connections', () => {
  const { h, replica, gated } = relayHarness(SECRET);
  // Closing a holder waits on its Redis: a frozen one is cut off for good first (after-hooks run
  // last registered first), also after a test that failed waiting on it. Its connection closed,
  // what it still sends is refused at once instead of queued for a reconnection that never comes
  // (the gate accepts each one before dropping it, and so counts as connected).
  const frozen: (() => void)[] = [];
  afterEach(() => {
    for (const cut of frozen.splice(0)) cut();
  });

  /**
   * Holder `a` (its Redis behind a gate), requester `b`, a balancer: initialize to a, the rest to
   * b. `direct`: both take direct connections, a's behind a gate of its own, frozen with its Redis.
   */
  const setup = async (prefix: string, direct = false) => {
    const port = await freePort();
    const link = direct ? await gate(port) : undefined;
    if (link) h.cleanups.push(() => link.close());
    const a = await gated(prefix, {
      sessionTtlMs: 3_300,
      timeoutMs: 2_000,
      ...(link ? { direct: { port, advertise: new URL(link.url).host } } : {}),
    });
    const b = await replica(prefix, direct ? { direct: {} } : {});
    h.proxy = await startProxy([a.serving.url, b.serving.url], (_req, n) => (n === 0 ? 0 : 1));
    /** The holder frozen, still subscribed as Redis sees it, until its heartbeat has lapsed. */
    const freeze = async () => {
      frozen.push(() => {
        link?.cut();
        a.gate.cut();
        a.redis.disconnect();
      });
      a.gate.freeze();
      link?.freeze();
      // Its key lives up to its ttl on, past the poll's default second.
      await expect.poll(() => b.redis.exists(`${prefix}alive:${a.relay.replica}`), { timeout: 10_000 }).toBe(0);
      expect(await listeners(b, prefix, a.relay.replica)).toBe(1);
    };
    return { a, b, url: h.proxy.url, freeze };
  };

  it('mid-question: the call ends with an error instead of waiting on the holder', async () => {
    const { b, url, freeze } = await setup('frozenq:');
    const { client, asked } = patientClient('frozen');
    h.clients.push(client);
    await client.connect(httpTransport(url, 'alice'));
    const call = startDeploy(client);
    await asked;
    await freeze();
    const error = await call;
    expect(error).toBeInstanceOf(Error);
    expect(String((error as Error).message)).toMatch(
      /did not complete: the server instance holding this session is cut/,
    );
    await expect.poll(() => b.relay.inFlight()).toBe(0);
  });

  it('a request on its session, whose holder this replica knows already: 503, send again', async () => {
    const { url, freeze } = await setup('frozenr:');
    const client = new Client({ name: 'frozen', version: '1' });
    h.clients.push(client);
    const transport = httpTransport(url, 'alice');
    await client.connect(transport);
    // Relayed once: the requester has found where the session lives.
    await client.listTools();
    await freeze();
    const response = await postOnSession(url, transport.sessionId as string, {
      jsonrpc: '2.0',
      id: 7,
      method: 'tools/list',
    });
    expect(response.status).toBe(503);
    expect(response.headers.get('retry-after')).toBe('1');
    expect(await response.text()).toMatch(
      /holding this session is cut from Redis for a moment; send the request again/,
    );
  });

  it('on a direct connection: the call ends with an error, and a request on its session is answered 503', async () => {
    const { a, b, url, freeze } = await setup('frozend:', true);
    const { client, asked } = patientClient('frozen');
    h.clients.push(client);
    const transport = httpTransport(url, 'alice');
    await client.connect(transport);
    await untilDirect(client, a);
    const call = startDeploy(client);
    await asked;
    await freeze();
    const error = await call;
    expect(error).toBeInstanceOf(Error);
    expect(String((error as Error).message)).toMatch(/did not complete/);
    const response = await postOnSession(url, transport.sessionId as string, {
      jsonrpc: '2.0',
      id: 7,
      method: 'tools/list',
    });
    expect(response.status).toBe(503);
    await expect.poll(() => b.relay.inFlight()).toBe(0);
  });

  it('on a direct connection, Redis not answering the requester either: the call ends once the requester is sure the holder dropped it, and its connection is closed', async () => {
    // The holder frozen — its Redis and its direct port carry nothing more, nothing closed — and
    // the requester's Redis stalled too: it cannot ask whether the holder's heartbeat is current.
    const prefix = 'frozendr:';
    const port = await freePort();
    const link = await gate(port);
    h.cleanups.push(() => link.close());
    const a = await gated(prefix, { direct: { port, advertise: new URL(link.url).host } });
    const b = await gated(prefix, { direct: {}, sessionTtlMs: 3_300, timeoutMs: 2_000 });
    h.proxy = await startProxy([a.serving.url, b.serving.url], (_req, n) => (n === 0 ? 0 : 1));
    const { client, asked } = patientClient('frozen');
    h.clients.push(client);
    await client.connect(httpTransport(h.proxy.url, 'alice'));
    await untilDirect(client, a);
    expect(b.relay.connections()).toBe(1);
    const call = startDeploy(client);
    await asked;
    frozen.push(() => {
      link.cut();
      a.gate.cut();
      b.gate.cut();
      a.redis.disconnect();
      b.redis.disconnect();
    });
    a.gate.freeze();
    link.freeze();
    b.gate.freeze();
    const error = await call;
    expect(error).toBeInstanceOf(Error);
    expect(String((error as Error).message)).toMatch(
      /did not complete: the session directory \(Redis\) cannot be reached/,
    );
    // Nothing left waiting on the holder: no relay, no connection to it.
    await expect.poll(() => b.relay.inFlight()).toBe(0);
    await expect.poll(() => b.relay.connections()).toBe(0);
  });

  it("a direct connection lost at the requester's end only: the holder is told through Redis before the client is, so an answer straight to it does nothing", async () => {
    // The network between them gone, noticed by the requester (its keepalive gave up) and not by
    // the holder, both still on Redis: the holder would keep the call for minutes more.
    const prefix = 'severed:';
    const port = await freePort();
    const link = await gate(port);
    h.cleanups.push(() => link.close());
    const a = await replica(prefix, { direct: { port, advertise: new URL(link.url).host } });
    const b = await replica(prefix, { direct: {} });
    h.proxy = await startProxy([a.serving.url, b.serving.url], (_req, n) => (n === 0 ? 0 : 1));
    const { client, asked } = patientClient('severed');
    h.clients.push(client);
    const transport = httpTransport(h.proxy.url, 'alice');
    await client.connect(transport);
    await untilDirect(client, a);
    const call = startDeploy(client);
    await asked;
    link.sever();
    const error = await call;
    expect(error).toBeInstanceOf(Error);
    expect(String((error as Error).message)).toMatch(/did not complete/);
    // Told it failed: the person answers anyway, at once, straight to the holder.
    await (await postOnSession(a.serving.url, transport.sessionId as string, ANSWER_DEV)).arrayBuffer();
    expect(a.serving.store.deployments, 'deployed after the call was reported as not completed').toEqual([]);
    expect((await a.serving.log.response('env')).action).toBe('cancel');
  });

  it("a direct connection lost at the requester's end only, the holder slow to read Redis: the client is told only once the holder has dropped the call", async () => {
    // The abort having gone out through Redis is not the holder having read it: its Redis
    // connection holds it back here (a busy event loop, a slow network), and an answer sent
    // straight to it by a person told the call failed must find the call ended all the same.
    const prefix = 'severedslow:';
    const port = await freePort();
    const link = await gate(port);
    h.cleanups.push(() => link.close());
    const a = await gated(prefix, { direct: { port, advertise: new URL(link.url).host } });
    const b = await replica(prefix, { direct: {} });
    h.proxy = await startProxy([a.serving.url, b.serving.url], (_req, n) => (n === 0 ? 0 : 1));
    const { client, asked } = patientClient('severed');
    h.clients.push(client);
    const transport = httpTransport(h.proxy.url, 'alice');
    await client.connect(transport);
    await untilDirect(client, a);
    let told = false;
    const call = startDeploy(client).then((outcome) => {
      told = true;
      return outcome;
    });
    await asked;
    a.gate.freeze();
    frozen.push(() => {
      a.gate.cut();
      a.redis.disconnect();
    });
    const before = await publishes(b.redis);
    link.sever();
    // Asked again and again meanwhile, the holder has heard nothing: nobody is told anything yet.
    await expect.poll(() => publishes(b.redis), { timeout: 5_000 }).toBeGreaterThanOrEqual(before + 3);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(told, 'told the call failed while its holder could not have heard').toBe(false);
    a.gate.thaw();
    const error = await call;
    expect(error).toBeInstanceOf(Error);
    expect(String((error as Error).message)).toMatch(/did not complete/);
    await (await postOnSession(a.serving.url, transport.sessionId as string, ANSWER_DEV)).arrayBuffer();
    expect(a.serving.store.deployments, 'deployed after the call was reported as not completed').toEqual([]);
    expect((await a.serving.log.response('env')).action).toBe('cancel');
  });

  it('a holder of an earlier version, which keeps no heartbeat, is waited on while it listens, as before', async () => {
    const prefix = 'earlierbeat:';
    // Its entry written once (its next beat far off), then made as an earlier version writes it.
    const a = await replica(prefix, { sessionTtlMs: 60_000 });
    const b = await replica(prefix);
    // Everything to the holder until its entry is as an earlier version writes it, then to b.
    let toB = false;
    h.proxy = await startProxy([a.serving.url, b.serving.url], () => (toB ? 1 : 0));
    let release!: () => void;
    const { client, asked } = patientClient('earlier', {
      content: { env: 'dev' },
      release: new Promise<void>((resolve) => {
        release = resolve;
      }),
    });
    h.clients.push(client);
    const transport = httpTransport(h.proxy.url, 'alice');
    await client.connect(transport);
    const key = `${prefix}session:${transport.sessionId}`;
    const entry = String(await a.redis.get(key))
      .split('\n')
      .slice(0, 4)
      .join('\n');
    await a.redis.set(key, entry, 'PX', 60_000);
    await a.redis.del(`${prefix}alive:${a.relay.replica}`);
    toB = true;
    const call = startDeploy(client);
    await asked;
    // Asked whether the holder listens a few times over, the call still waits on its answer.
    const numsubs = async () =>
      Number(/cmdstat_pubsub\|numsub:calls=(\d+)/.exec(await b.redis.info('commandstats'))?.[1] ?? 0);
    const before = await numsubs();
    await expect.poll(numsubs).toBeGreaterThanOrEqual(before + 3);
    release();
    expect(await call).toMatchObject({ structuredContent: { status: 'done', deployment: { env: 'dev' } } });
  });
});
