/**
 * The requesting replica loses Redis (both its connections) while a question it relays is open.
 * Its subscription's drop ends the call for its client ("did not complete"), and the holder must
 * drop the call too, though the `abort` saying so cannot go on the Redis just lost: the requester
 * owes it, and sends it once Redis is back, before anything else to that holder; and the holder,
 * watching that its requester still listens, drops the call on its own when it does not. So an
 * answer sent later — through the same replica, or another — never acts behind a call its client
 * was told had failed.
 *
 * Configured as opsdesk's connectReplicas makes it: no offline queue (a command fails at once while
 * Redis is down), one retry per command.
 */
import { describe, expect, it } from 'vitest';
import { withRedis } from '../../../../test/support/redis-server.js';
import { startProxy } from '../../../../test/support/round-robin-proxy.js';
import { httpTransport, patientClient, startDeploy } from '../../test/loopback.js';
import { ANSWER_DEV, listeners, postOnSession, type ReplicaOptions, relayHarness } from '../../test/relay-harness.js';

const REDIS = withRedis('relay/requester-redis-down.test.ts');
const SECRET = 'relay-reqdown-test-secret-0123456789abcdef0';

describe.skipIf(!REDIS)('the requesting replica loses Redis mid-question', () => {
  const { h, replica, gated } = relayHarness(SECRET);

  /**
   * Holder `a` (`holder`: its options), requester `b` behind a gate, configured as opsdesk's; a
   * balancer: initialize to a, the rest to b; alice's deploy through it, its question open. Then
   * b's Redis is cut, and its client told the call did not complete.
   */
  const cutMidQuestion = async (prefix: string, holder: ReplicaOptions = {}) => {
    const a = await replica(prefix, holder);
    const b = await gated(prefix, {}, { enableOfflineQueue: false, maxRetriesPerRequest: 1 });
    h.proxy = await startProxy([a.serving.url, b.serving.url], (_req, n) => (n === 0 ? 0 : 1));
    const { client, asked } = patientClient('reqdown');
    h.clients.push(client);
    const transport = httpTransport(h.proxy.url, 'alice');
    await client.connect(transport);
    const call = startDeploy(client);
    await asked;
    b.gate.cut();
    const error = await call;
    expect(error).toBeInstanceOf(Error);
    expect(String((error as Error).message)).toMatch(/did not complete/);
    return { a, b, url: h.proxy.url, sessionId: transport.sessionId as string };
  };

  it('Redis back at once: the owed abort reaches the holder before the answer, which does nothing', async () => {
    // The holder's own watch of b is kept out of it (it would notice b's absence only after a minute).
    const { a, b, url, sessionId } = await cutMidQuestion('reqdown:', { livenessMs: 60_000, sessionTtlMs: 100_000 });
    b.gate.open();
    await expect.poll(() => listeners(a, 'reqdown:', b.relay.replica), { timeout: 10_000 }).toBe(1);
    await expect.poll(() => b.redis.ping().catch(() => 'down'), { timeout: 10_000 }).toBe('PONG');
    await (await postOnSession(url, sessionId, ANSWER_DEV)).arrayBuffer();
    const response = await a.serving.log.response('env');
    expect(response.action, 'the holder kept the call the client was told had failed').toBe('cancel');
    expect(a.serving.store.deployments, 'deployed after the call was reported as not completed').toEqual([]);
    await expect.poll(() => a.relay.inFlight()).toBe(0);
  });

  it('Redis back: the owed abort goes as soon as it is, with nothing else to send', async () => {
    const { a, b } = await cutMidQuestion('repay:', { livenessMs: 60_000, sessionTtlMs: 100_000 });
    b.gate.open();
    // Nothing else is sent to a: the abort went on its own once b's Redis was ready again.
    expect((await a.serving.log.response('env')).action).toBe('cancel');
    expect(a.serving.store.deployments).toEqual([]);
  });

  it('Redis stays down: the holder sees its requester no longer listens and drops the call; an answer through another replica does nothing', async () => {
    const { a, sessionId } = await cutMidQuestion('gone:');
    // b is still cut off: no abort can come from it. a's watch of b drops the call.
    expect((await a.serving.log.response('env')).action).toBe('cancel');
    await expect.poll(() => a.relay.inFlight()).toBe(0);
    // The person answers anyway, through a third replica, which relays it to the holder.
    const c = await replica('gone:');
    await (await postOnSession(c.serving.url, sessionId, ANSWER_DEV)).arrayBuffer();
    expect(a.serving.store.deployments, 'deployed after the call was reported as not completed').toEqual([]);
  });
});
