/**
 * Someone on the network between two replicas — on a direct connection, or between a replica and
 * a Redis without TLS — cannot read, make or change a relayed message (each is sealed), but can
 * drop one, or hold it back and let the next go first. A response's frames are numbered for a
 * requester that asks (`seq`), and one missing or out of order ends the relay with an error its
 * client can act on, never a stream that goes on with a hole in it, or in the wrong order.
 *
 * The holder advertises a proxy in front of its direct port that tampers with the messages it
 * sends back; a listing of a few MB goes as several messages.
 */
import { Client } from '@modelcontextprotocol/client';
import { afterEach, describe, expect, it } from 'vitest';
import { withRedis } from '../../../../test/support/redis-server.js';
import { httpTransport } from '../../test/loopback.js';
import { freePort, relayHarness, type Tamper, tamperingLink, untilDirect } from '../../test/relay-harness.js';

const REDIS = withRedis('relay/frame-order.test.ts');
const SECRET = 'relay-order-test-secret-0123456789abcdef0123';

/** Past this, a message carries a piece of the listing (the rest are a few hundred bytes). */
const BIG = 1024 * 1024;

describe.skipIf(!REDIS)('a relayed response whose messages are dropped or reordered on the way', () => {
  const { h, pair } = relayHarness(SECRET);
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
});
