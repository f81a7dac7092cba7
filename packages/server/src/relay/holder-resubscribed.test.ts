/**
 * A request relayed through Redis can be lost on its way: pub/sub delivers at most once, and a
 * message Redis was pushing to the holder when the holder's connection dropped is gone, though
 * PUBLISH counted the holder as a listener. The requester then waited on it for ever — its watch
 * took "Redis counts a subscriber on the holder's channel" for "the holder has it", and the holder,
 * subscribed again a moment later (or anyone who subscribed to its channel meanwhile), was counted.
 * Now a holder names each of its subscriptions in its liveness, the requester reads which one its
 * request went to, and a holder subscribed again since ends the relay: dropped at the holder first
 * (if it reached the new subscription), then 503 to send again. Real Redis, real SDK client.
 */
import { Client } from '@modelcontextprotocol/client';
import { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { withRedis } from '../../../../test/support/redis-server.js';
import { startProxy } from '../../../../test/support/round-robin-proxy.js';
import { httpTransport } from '../../test/loopback.js';
import { dropSubscription, listeners, postOnSession, relayHarness } from '../../test/relay-harness.js';

const REDIS = withRedis('relay/holder-resubscribed.test.ts');
const SECRET = 'relay-resubscribed-test-secret-0123456789abcd';

describe.skipIf(!REDIS)('a relayed request lost on its way to the holder', () => {
  const { h, replica, gated } = relayHarness(SECRET);

  /**
   * Holder `a` (its Redis behind a gate), requester `b`, a balancer: initialize to a, the rest to b.
   * `b` checks on its holder every `checkMs`: a check that falls in the holder's reconnect gap sees
   * nobody listening and ends the relay on that ground ("cut from Redis"), the case before this one.
   */
  const setup = async (prefix: string, checkMs = 100) => {
    const a = await gated(prefix, { livenessMs: 100 });
    const b = await replica(prefix, { livenessMs: checkMs });
    h.proxy = await startProxy([a.serving.url, b.serving.url], (_req, n) => (n === 0 ? 0 : 1));
    const client = new Client({ name: 'resubscribed', version: '1' });
    h.clients.push(client);
    const transport = httpTransport(h.proxy.url, 'alice');
    await client.connect(transport);
    return { a, b, url: h.proxy.url, sessionId: transport.sessionId as string };
  };
  const listTools = (url: string, sessionId: string, id: number) =>
    postOnSession(url, sessionId, { jsonrpc: '2.0', id, method: 'tools/list' });

  it('dropped with the connection that carried it, the holder back at once: 503 to send again, then served', async () => {
    // Its first check a second after the PUBLISH: long after the holder is back (it reconnects every
    // 20 ms), so only the new subscription can tell the request was lost.
    const { a, b, url, sessionId } = await setup('lostq:', 1_000);
    expect((await listTools(url, sessionId, 1)).status).toBe(200);
    // The next message Redis pushes to the holder's channel is lost with its connection.
    a.gate.swallow(`lostq:replica:${a.relay.replica}`);
    const lost = await listTools(url, sessionId, 2);
    const body = await lost.text();
    expect(lost.status, body).toBe(503);
    expect(body).toMatch(/lost its Redis subscription for a moment; send the request again/);
    await expect.poll(() => b.relay.inFlight()).toBe(0);
    const again = await listTools(url, sessionId, 3);
    expect(again.status).toBe(200);
    expect(await again.text()).toContain('"deploy"');
  });

  it('while the holder is cut, someone else subscribed to its channel: ended once the holder is back', async () => {
    const { a, b, url, sessionId } = await setup('lostr:');
    a.gate.shut();
    await dropSubscription(a, 'lostr:');
    // Redis counts a subscriber on the holder's channel that is not the holder.
    const eavesdropper = new Redis(h.server.url);
    h.cleanups.push(async () => void eavesdropper.disconnect());
    await eavesdropper.subscribe(`lostr:replica:${a.relay.replica}`);
    await expect.poll(() => listeners(b, 'lostr:', a.relay.replica)).toBe(1);
    const waiting = listTools(url, sessionId, 4);
    await expect.poll(() => b.relay.inFlight()).toBe(1);
    a.gate.open();
    const ended = await waiting;
    const body = await ended.text();
    expect(ended.status, body).toBe(503);
    expect(body).toMatch(/send the request again/);
    await expect.poll(() => listeners(b, 'lostr:', a.relay.replica)).toBe(2);
    const again = await listTools(url, sessionId, 5);
    expect(again.status).toBe(200);
  });
});
