/**
 * A requesting replica whose own subscription is down (a blip: its subscriber connection killed,
 * coming back) cannot hear a holder's answer: a relay it sent through Redis then would have its
 * response published to nobody and wait for ever — the holder alive, so nothing ends it. Such a
 * request waits for the subscription to be back (a moment), and is answered 503, send again, if it
 * is not; it never hangs.
 *
 * The requester's Redis goes through a gate: shut, its killed subscriber cannot connect again (its
 * other connection stays up), so nothing here depends on timing but the wait's bound, 2 s, against
 * a reconnection every 20 ms.
 */

import { Client } from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import { withRedis } from '../../../../test/support/redis-server.js';
import { startProxy } from '../../../../test/support/round-robin-proxy.js';
import { httpTransport } from '../../test/loopback.js';
import { dropSubscription, listeners, postOnSession, relayHarness } from '../../test/relay-harness.js';

const REDIS = withRedis('relay/requester-resubscribing.test.ts');
const SECRET = 'relay-resubscribe-test-secret-0123456789abcd';

describe.skipIf(!REDIS)("a request relayed while the requester's subscription is down", () => {
  const { h, replica, gated } = relayHarness(SECRET);

  /** Holder `a`, requester `b` behind a gate; alice's session on a; b's subscription killed, kept down. */
  const setup = async (prefix: string) => {
    const a = await replica(prefix);
    const b = await gated(prefix);
    h.proxy = await startProxy([a.serving.url, b.serving.url], (_req, n) => (n === 0 ? 0 : 1));
    const client = new Client({ name: 'resub', version: '1' });
    h.clients.push(client);
    const transport = httpTransport(h.proxy.url, 'alice');
    await client.connect(transport);
    b.gate.shut();
    await dropSubscription(b, prefix);
    await expect.poll(() => listeners(a, prefix, b.relay.replica)).toBe(0);
    // Far past the wait's bound: a request that would hang fails here, not at the suite's timeout.
    const list = () =>
      postOnSession(
        h.proxy?.url ?? '',
        transport.sessionId as string,
        { jsonrpc: '2.0', id: 7, method: 'tools/list' },
        'alice',
        AbortSignal.timeout(15_000),
      );
    return { a, b, list };
  };

  it('its subscription stays down: 503, send again, with the session kept', async () => {
    const { a, b, list } = await setup('resubdown:');
    const response = await list();
    const body = await response.text();
    expect(response.status, body).toBe(503);
    expect(body).toMatch(/send the request again/);
    expect(b.relay.inFlight()).toBe(0);
    // Back: the same request, sent again, is served.
    b.gate.open();
    await expect.poll(() => listeners(a, 'resubdown:', b.relay.replica), { timeout: 10_000 }).toBe(1);
    const again = await list();
    expect(again.status).toBe(200);
    expect(await again.text()).toContain('"deploy"');
  });

  it('its subscription comes back while the request waits: it is served', async () => {
    const { b, list } = await setup('resubback:');
    const pending = list();
    b.gate.open();
    const response = await pending;
    const body = await response.text();
    expect(response.status, body).toBe(200);
    expect(body).toContain('"deploy"');
  });
});
