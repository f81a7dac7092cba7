/**
 * A session that keeps its events (`eventStore`) lets a call outlive its stream: the client comes
 * back with Last-Event-ID. Across replicas that must not outlive a relay given up: the requesting
 * replica then tells its client the call "did not complete", and a call its client was told had
 * failed must never act on a later answer. So a relay dropped because it was given up — the
 * holder's subscription blipped, the requester lost its own, the requester's watch saw nobody — ends
 * the calls it carried even on a resumable session; only a client that went away from the
 * requester, told nothing, leaves its call to be picked up again (the abort's `resume`).
 */
import { describe, expect, it } from 'vitest';
import { startDroppingProxy } from '../../../../test/support/dropping-proxy.js';
import { withRedis } from '../../../../test/support/redis-server.js';
import { startProxy } from '../../../../test/support/round-robin-proxy.js';
import { httpTransport, patientClient, startDeploy } from '../../test/loopback.js';
import {
  ANSWER_DEV,
  dropSubscription,
  listeners,
  postOnSession,
  type ReplicaOptions,
  relayHarness,
} from '../../test/relay-harness.js';
import { createMemoryEventStore } from '../http/event-store.js';

const REDIS = withRedis('relay/relay-resumable.test.ts');
const SECRET = 'relay-resumable-test-secret-0123456789abcdef';

const resumable = (wrapped = false): ReplicaOptions => ({
  wrapped,
  handler: { eventStore: createMemoryEventStore(), retryMs: 20 },
});

describe.skipIf(!REDIS)('a relayed call on a session that keeps its events', () => {
  const { h, replica, gated } = relayHarness(SECRET);

  /** alice's deploy through requester `b` to holder `a`, its question open. */
  const asking = async (url: string) => {
    const { client, asked } = patientClient('resumable');
    h.clients.push(client);
    const transport = httpTransport(url, 'alice');
    await client.connect(transport);
    const call = startDeploy(client);
    await asked;
    return { call, sessionId: transport.sessionId as string };
  };

  /** The call was reported failed: the holder's question ended, and an answer sent later does nothing. */
  const endedForGood = async (
    a: Awaited<ReturnType<typeof replica>>,
    url: string,
    call: Promise<unknown>,
    sessionId: string,
  ) => {
    const error = await call;
    expect(error).toBeInstanceOf(Error);
    expect(String((error as Error).message)).toMatch(/did not complete/);
    const response = await a.serving.log.response('env');
    expect(response.action, 'the holder kept, to be resumed, a call its client was told had failed').toBe('cancel');
    // The session lives on (the client's GET stream may be relayed again): the answer reaches it.
    const late = await postOnSession(url, sessionId, ANSWER_DEV);
    await late.arrayBuffer();
    expect(late.status).toBe(202);
    expect(a.serving.store.deployments, 'deployed after the call was reported as not completed').toEqual([]);
  };

  for (const wrapped of [false, true])
    it(`the holder's subscription drops: the call ends there too (${wrapped ? 'a plain fetch handler' : 'the handler itself'})`, async () => {
      const prefix = `rsh${wrapped ? 'w' : ''}:`;
      const a = await gated(prefix, { sessionTtlMs: 3_300, timeoutMs: 2_000, ...resumable(wrapped) });
      const b = await replica(prefix, resumable());
      h.proxy = await startProxy([a.serving.url, b.serving.url], (_req, n) => (n === 0 ? 0 : 1));
      const { call, sessionId } = await asking(h.proxy.url);
      a.gate.shut();
      await dropSubscription(a, prefix);
      await expect.poll(() => listeners(b, prefix, a.relay.replica)).toBe(0);
      const error = await call;
      a.gate.open();
      await expect.poll(() => listeners(b, prefix, a.relay.replica), { timeout: 10_000 }).toBe(1);
      await endedForGood(a, h.proxy.url, Promise.resolve(error), sessionId);
    });

  it("the requester's subscription drops: its abort ends the call at the holder", async () => {
    const prefix = 'rsr:';
    const a = await replica(prefix, resumable());
    const b = await replica(prefix, resumable());
    h.proxy = await startProxy([a.serving.url, b.serving.url], (_req, n) => (n === 0 ? 0 : 1));
    const { call, sessionId } = await asking(h.proxy.url);
    await dropSubscription(b, prefix);
    await endedForGood(a, h.proxy.url, call, sessionId);
  });

  it('its client only went away from the requester: the call goes on, and is resumed with Last-Event-ID', async () => {
    const prefix = 'rsc:';
    const a = await replica(prefix, resumable());
    const b = await replica(prefix, resumable());
    // Every POST after initialize through the requester, whose call stream drops after its first
    // two events (the priming one and the question); the reconnection (GET) to the holder.
    const front = await startDroppingProxy([a.serving.url, b.serving.url], {
      events: 2,
      route: (req, n) => (n === 0 || req.method === 'GET' ? 0 : 1),
    });
    h.cleanups.push(() => front.stop());
    // The person answers once the holder has dropped the relay its client left: the call must
    // still be there to take it.
    const release = expect
      .poll(() => front.log.some((e) => e.dropped) && a.relay.inFlight() === 0, { timeout: 10_000 })
      .toBe(true);
    const { client } = patientClient('resumer', { content: { env: 'dev' }, release });
    h.clients.push(client);
    await client.connect(httpTransport(front.url, 'alice'));
    const result = await client.callTool({ name: 'deploy', arguments: { service: 'order-service' } });
    expect(result.structuredContent).toMatchObject({ status: 'done', deployment: { env: 'dev' } });
    expect(front.log.some((e) => e.method === 'GET' && e.lastEventId)).toBe(true);
    expect(a.serving.store.deployments).toHaveLength(1);
    expect(b.relay.dropped()).toMatchObject({ schema: 0, sender: 0 });
  });
});
