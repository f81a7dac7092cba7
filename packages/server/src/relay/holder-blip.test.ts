/**
 * A holder whose Redis subscription drops for a moment (a network blip, a Redis failover) is alive,
 * and so are its sessions and the calls running on them. Nobody on its channel is not proof that it
 * is gone: a requester whose call is cut tells the holder to drop it (and the holder drops, on its
 * own, what its lost subscription may have kept from it), and a live session is answered 503 to
 * send again — never "Session not found", its directory entry kept — until the holder's heartbeat
 * has lapsed.
 *
 * The holder's Redis goes through a gate that, shut, refuses new connections: its subscription
 * stays down until the test opens it, and no timing decides the outcome.
 */
import { Client } from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import { withRedis } from '../../../../test/support/redis-server.js';
import { startProxy } from '../../../../test/support/round-robin-proxy.js';
import { httpTransport, patientClient, startDeploy } from '../../test/loopback.js';
import { ANSWER_DEV, dropSubscription, listeners, postOnSession, relayHarness } from '../../test/relay-harness.js';

const REDIS = withRedis('relay/holder-blip.test.ts');
const SECRET = 'relay-blip-test-secret-0123456789abcdef0123';

describe.skipIf(!REDIS)("a holder's Redis subscription drops for a moment", () => {
  const { h, replica, gated } = relayHarness(SECRET);

  /** Holder `a` (its Redis behind a gate), requester `b`, a balancer: initialize to a, the rest to b. */
  const setup = async (prefix: string) => {
    const a = await gated(prefix, { sessionTtlMs: 3_300, timeoutMs: 2_000 });
    const b = await replica(prefix);
    h.proxy = await startProxy([a.serving.url, b.serving.url], (_req, n) => (n === 0 ? 0 : 1));
    const heard = () => listeners(b, prefix, a.relay.replica);
    /** The holder's subscription cut, and kept down until `back()`. */
    const blip = async () => {
      a.gate.shut();
      await dropSubscription(a, prefix);
      await expect.poll(heard).toBe(0);
    };
    const back = async () => {
      a.gate.open();
      await expect.poll(heard, { timeout: 10_000 }).toBe(1);
    };
    return { a, b, url: h.proxy.url, blip, back };
  };
  const listTools = (url: string, sessionId: string, id: number) =>
    postOnSession(url, sessionId, { jsonrpc: '2.0', id, method: 'tools/list' });
  const connected = async (url: string) => {
    const client = new Client({ name: 'blip', version: '1' });
    h.clients.push(client);
    const transport = httpTransport(url, 'alice');
    await client.connect(transport);
    return transport.sessionId as string;
  };

  it('mid-question: the call is reported "did not complete", the holder drops it, and a late answer does nothing', async () => {
    const { a, b, url, blip, back } = await setup('blipq:');
    const { client, asked } = patientClient('blip');
    h.clients.push(client);
    const transport = httpTransport(url, 'alice');
    await client.connect(transport);
    const sessionId = transport.sessionId as string;
    const call = startDeploy(client);
    await asked;
    await blip();
    const error = await call;
    expect(error).toBeInstanceOf(Error);
    expect(String((error as Error).message)).toMatch(/did not complete/);
    // The client was told the call failed: the holder dropped it, its question withdrawn.
    const response = await a.serving.log.response('env');
    expect(response.action, 'the holder kept the call the client was told had failed').toBe('cancel');
    await expect.poll(() => a.relay.inFlight()).toBe(0);
    await back();
    // The entry was never dropped: the session lives on its holder.
    expect(await a.redis.exists(`blipq:session:${sessionId}`)).toBe(1);
    // The person's answer to the question the client was told is over does nothing.
    const late = await postOnSession(url, sessionId, ANSWER_DEV);
    await late.arrayBuffer();
    expect(a.serving.store.deployments, 'deployed after the call was reported as not completed').toEqual([]);
    expect(b.relay.inFlight()).toBe(0);
  });

  it('before the head: a live session is answered 503 to send again, its entry kept, and served once the holder is back', async () => {
    const { a, url, blip, back } = await setup('bliph:');
    const sessionId = await connected(url);
    await blip();
    const during = await listTools(url, sessionId, 41);
    const body = await during.text();
    expect(during.status, `a live session was reported gone: ${body}`).toBe(503);
    expect(during.headers.get('retry-after')).toBe('1');
    expect(body).toMatch(/cut from Redis for a moment; send the request again/);
    expect(await a.redis.exists(`bliph:session:${sessionId}`)).toBe(1);
    await back();
    // Sent again through the same replica, it is served: nothing was forgotten there either.
    const again = await listTools(url, sessionId, 42);
    expect(again.status).toBe(200);
    expect(await again.text()).toContain('"deploy"');
  });

  it('a holder nobody hears whose heartbeat has lapsed is gone: "Session not found", and its entry forgotten', async () => {
    const { a, b, url, blip } = await setup('blipg:');
    const sessionId = await connected(url);
    await blip();
    // As a holder killed without closing leaves it once its liveness lapsed (its key's ttl): its
    // heartbeat cannot write it back, its Redis cut.
    a.gate.cut();
    await b.redis.del(`blipg:alive:${a.relay.replica}`);
    const gone = await listTools(url, sessionId, 43);
    expect(gone.status).toBe(404);
    expect(await gone.json()).toMatchObject({ error: { message: 'Session not found' } });
    expect(await b.redis.exists(`blipg:session:${sessionId}`)).toBe(0);
  });
});
