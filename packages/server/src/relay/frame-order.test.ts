/**
 * Someone on the network between two replicas — on a direct connection, or between a replica and
 * a Redis without TLS — cannot read, make or change a relayed message (each is sealed), but can
 * drop one, or hold it back and let the next go first. A response's frames are numbered for a
 * requester that asks (`seq`), and one missing or out of order ends the relay with an error its
 * client can act on, never a stream that goes on with a hole in it, or in the wrong order.
 *
 * The holder advertises a proxy in front of its direct port that tampers with the messages it
 * sends back; a listing of a few MB goes as several messages.
 *
 * Requests keep their order too: one through Redis its holder has not answered may not have
 * reached it yet, and a cancel sent after it on a direct connection that came up meanwhile would
 * overtake it — the call then runs, its cancel dropped as one for a request the holder did not know.
 */
import { Client } from '@modelcontextprotocol/client';
import { Redis } from 'ioredis';
import { afterEach, describe, expect, it } from 'vitest';
import { withRedis } from '../../../../test/support/redis-server.js';
import { startProxy } from '../../../../test/support/round-robin-proxy.js';
import { httpTransport, loopback, patientClient, startDeploy } from '../../test/loopback.js';
import {
  freePort,
  postOnSession,
  publishes,
  relayHarness,
  type Tamper,
  tamperingLink,
  untilDirect,
} from '../../test/relay-harness.js';
import { createRedisRelay } from './redis-relay.js';

const REDIS = withRedis('relay/frame-order.test.ts');
const SECRET = 'relay-order-test-secret-0123456789abcdef0123';

/** Past this, a message carries a piece of the listing (the rest are a few hundred bytes). */
const BIG = 1024 * 1024;

describe.skipIf(!REDIS)('a relayed response whose messages are dropped or reordered on the way', () => {
  const { h, pair, replica, gated } = relayHarness(SECRET);
  const links: { close(): Promise<void> }[] = [];
  afterEach(async () => {
    for (const link of links.splice(0)) await link.close();
  });

  /**
   * Holder `a` behind a tampering proxy, requester `b`, a client connected directly through `b`
   * with a listing of `count` deployments held at `a` (about 120 bytes each in the result).
   */
  const setup = async (prefix: string, count = 50_000) => {
    const port = await freePort();
    const link = await tamperingLink(port);
    links.push(link);
    const { a, b, url } = await pair(prefix, { direct: { port, advertise: link.address } }, { direct: {} });
    const client = new Client({ name: 'order', version: '1' });
    h.clients.push(client);
    await client.connect(httpTransport(url, 'alice'));
    await untilDirect(client, a);
    // What each end holds with nothing in flight but the client's own stream.
    const idle = { a: a.relay.inFlight(), b: b.relay.inFlight() };
    for (let i = 0; i < count; i++) a.serving.store.deployments.push({ service: `service-${i}`, env: 'staging' });
    const list = () =>
      client
        .callTool({ name: 'deployments', arguments: {} }, { timeout: 20_000 })
        .catch((error: unknown) => error as Error);
    return { a, b, idle, client, list, tamper: (t: Tamper) => (link.state.tamper = t) };
  };

  it('untouched, a listing of several messages arrives whole', async () => {
    const { list, tamper } = await setup('order-ok:');
    const sizes: number[] = [];
    tamper(({ size }) => {
      sizes.push(size);
      return 'pass';
    });
    const result = await list();
    expect(result).not.toBeInstanceOf(Error);
    expect((result as { structuredContent: { deployments: unknown[] } }).structuredContent.deployments).toHaveLength(
      50_000,
    );
    // It went as several large messages: the cases below have one to drop and one to hold back.
    expect(sizes.filter((s) => s > BIG).length).toBeGreaterThanOrEqual(2);
  });

  // The second piece dropped: the stream stops inside the event the first piece began, and the
  // error must still read whole after it.
  for (const [what, verdict, piece] of [
    ['its first piece is dropped', 'drop', 0],
    ['its second piece is dropped', 'drop', 1],
    ['its first piece is held back behind the next', 'hold', 0],
  ] as const) {
    it(`${what}: the call ends with an error, and both ends drop the relay`, async () => {
      const { a, b, idle, client, list, tamper } = await setup(`order-${verdict}${piece}:`);
      let pieces = 0;
      tamper(({ size }) => (size > BIG && pieces++ === piece ? verdict : 'pass'));
      const result = await list();
      expect(pieces).toBeGreaterThan(piece);
      expect(result).toBeInstanceOf(Error);
      expect(String((result as Error).message)).toMatch(
        /did not complete: part of the response was lost on the way between the server instances/,
      );
      await expect.poll(() => b.relay.inFlight()).toBe(idle.b);
      await expect.poll(() => a.relay.inFlight()).toBe(idle.a);
      // The session lives on: the next request goes through whole.
      tamper(() => 'pass');
      const again = await list();
      expect(again).not.toBeInstanceOf(Error);
      expect(await client.listTools()).toMatchObject({ tools: expect.any(Array) });
    });
  }

  it('a JSON reply that loses a piece on the way reaches its client broken, never cut short and whole', async () => {
    // A reply in JSON (a holder's handler may answer so) cannot carry an error after its head: the
    // requester ends its body with one, and its client must see the reply broken off, not a 200
    // whose body stops where the lost piece began.
    const prefix = 'order-json:';
    const port = await freePort();
    const link = await tamperingLink(port);
    links.push(link);
    const redis = new Redis(h.server.url);
    const relay = createRedisRelay(redis, {
      secret: SECRET,
      prefix,
      livenessMs: 100,
      direct: { port, advertise: link.address },
    });
    const serving = await loopback({ authenticated: true, sessions: relay });
    const a = { relay, redis, serving };
    h.replicas.push(a);
    const long = JSON.stringify({ jsonrpc: '2.0', id: 1, result: { x: 'x'.repeat(8 * BIG) } });
    await relay.serve({
      fetch: async (request) =>
        ((await request.clone().json()) as { method?: string }).method === 'tools/list'
          ? new Response(long, { headers: { 'content-type': 'application/json' } })
          : serving.handler.fetch(request),
    });
    const b = await replica(prefix, { direct: {} });
    const client = new Client({ name: 'order', version: '1' });
    h.clients.push(client);
    const transport = httpTransport(serving.url, 'alice');
    await client.connect(transport);
    const sessionId = transport.sessionId as string;
    // Pings through b until one reaches a without a PUBLISH: the direct connection is up.
    await expect
      .poll(async () => {
        const before = await publishes(a.redis);
        await (await postOnSession(b.serving.url, sessionId, { jsonrpc: '2.0', id: 9, method: 'ping' })).text();
        return (await publishes(a.redis)) - before;
      })
      .toBe(0);
    const idle = b.relay.inFlight();
    const sizes: number[] = [];
    let pieces = 0;
    link.state.tamper = ({ size }) => {
      sizes.push(size);
      return size > BIG && pieces++ === 1 ? 'drop' : 'pass';
    };
    const response = await postOnSession(b.serving.url, sessionId, { jsonrpc: '2.0', id: 1, method: 'tools/list' });
    const read = await response.text().then(
      () => 'read as whole',
      () => 'broken off',
    );
    // It went as several large messages, the second of them dropped.
    expect({ status: response.status, dropped: pieces > 1, read }).toEqual({
      status: 200,
      dropped: true,
      read: 'broken off',
    });
    await expect.poll(() => b.relay.inFlight()).toBe(idle);
    // Untouched, the same reply arrives whole.
    link.state.tamper = () => 'pass';
    const whole = await postOnSession(b.serving.url, sessionId, { jsonrpc: '2.0', id: 2, method: 'tools/list' });
    expect((await whole.text()) === long).toBe(true);
  });

  it('a cancel never overtakes its call: while a request through Redis is unanswered, the next to that holder goes behind it, not on a connection that came up meanwhile', async () => {
    const prefix = 'order-cancel:';
    const port = await freePort();
    const link = await tamperingLink(port);
    links.push(link);
    // The holder's Redis behind a gate; its direct port behind the proxy, its greeting held.
    const a = await gated(prefix, { direct: { port, advertise: link.address } });
    const b = await replica(prefix, { direct: {} });
    h.proxy = await startProxy([a.serving.url, b.serving.url], (_req, n) => (n === 0 ? 0 : 1));
    link.pause();
    const { client } = patientClient('quitter');
    h.clients.push(client);
    await client.connect(httpTransport(h.proxy.url, 'alice'));
    // Relayed through Redis; b starts its connection to a, whose greeting waits at the proxy.
    await client.listTools();
    expect(link.count.sent).toBe(1);
    // The call goes out through Redis, and waits there: the holder hears nothing for now.
    a.gate.freeze();
    const before = await publishes(b.redis);
    const controller = new AbortController();
    const call = startDeploy(client, controller.signal);
    await expect.poll(() => publishes(b.redis)).toBeGreaterThan(before);
    // Now the connection comes up: b takes a's greeting (everything runs in this process, so
    // once the proxy carried it, a few turns of the loop see it read).
    link.resume();
    await expect.poll(() => link.count.carried).toBe(1);
    await new Promise((resolve) => setTimeout(resolve, 100));
    // The person gives up: the client sends `notifications/cancelled` for the call.
    controller.abort('the person closed the tab');
    expect(await call).toBeInstanceOf(Error);
    // Whatever b did with it, give it time to have gone out, then let the holder hear Redis.
    await new Promise((resolve) => setTimeout(resolve, 200));
    // Nothing but the greeting went on the connection: the cancel is behind its call.
    expect(link.count.sent).toBe(1);
    a.gate.thaw();
    // The holder ran the call, then its cancel: the question withdrawn, nothing deployed.
    await expect
      .poll(() => a.serving.log.events.find((e) => e.type === 'response' && e.key === 'env'), { timeout: 10_000 })
      .toMatchObject({ action: 'cancel' });
    expect(a.serving.store.deployments).toEqual([]);
    // Once answered, requests take the connection again.
    await untilDirect(client, a);
    expect(link.count.sent).toBeGreaterThan(1);
  });
});
