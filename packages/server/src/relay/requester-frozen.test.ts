/**
 * The other end of `holder-frozen.test.ts`: a requesting replica whose host stops answering
 * without closing its connections — powered off, or cut off by a partition. Redis still counts its
 * subscription, and its direct connection to the holder stays open (until TCP gives up on it,
 * minutes later). Its heartbeat lapses all the same, and the holder drops what it ran for it:
 * the call's question withdrawn, nothing left waiting on an answer that can no longer come
 * through the replica its client was talking to.
 *
 * The requester's Redis (and its direct connection, for that case) go through gates that, frozen,
 * carry nothing more and close nothing.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { withRedis } from '../../../../test/support/redis-server.js';
import { startProxy } from '../../../../test/support/round-robin-proxy.js';
import { httpTransport, patientClient, startDeploy } from '../../test/loopback.js';
import { freePort, gate, listeners, relayHarness, untilDirect } from '../../test/relay-harness.js';

const REDIS = withRedis('relay/requester-frozen.test.ts');
const SECRET = 'relay-requester-frozen-secret-0123456789abcd';

describe.skipIf(!REDIS)('a requester that stops answering without closing its connections', () => {
  const { h, replica, gated } = relayHarness(SECRET);
  const frozen: (() => void)[] = [];
  afterEach(() => {
    for (const cut of frozen.splice(0)) cut();
  });

  for (const direct of [false, true])
    it(`${direct ? 'on a direct connection' : 'through Redis'}: the holder drops the call once the requester's heartbeat lapsed, its question withdrawn`, async () => {
      const prefix = direct ? 'rfrozend:' : 'rfrozen:';
      // The holder's direct port behind a gate, frozen with the requester's Redis: the connection
      // between them carries nothing more, and stays open.
      const port = await freePort();
      const link = direct ? await gate(port) : undefined;
      if (link) h.cleanups.push(() => link.close());
      const a = await replica(prefix, link ? { direct: { port, advertise: new URL(link.url).host } } : {});
      const b = await gated(prefix, { sessionTtlMs: 3_300, timeoutMs: 2_000, ...(direct ? { direct: {} } : {}) });
      h.proxy = await startProxy([a.serving.url, b.serving.url], (_req, n) => (n === 0 ? 0 : 1));
      const { client, asked } = patientClient('frozen');
      h.clients.push(client);
      await client.connect(httpTransport(h.proxy.url, 'alice'));
      if (direct) await untilDirect(client, a);
      void startDeploy(client);
      await asked;
      frozen.push(() => {
        link?.cut();
        b.gate.cut();
        b.redis.disconnect();
      });
      b.gate.freeze();
      link?.freeze();
      // Subscribed as far as Redis can tell, its heartbeat gone (its key lives up to its ttl on,
      // past the poll's default second).
      await expect.poll(() => a.redis.exists(`${prefix}alive:${b.relay.replica}`), { timeout: 10_000 }).toBe(0);
      expect(await listeners(a, prefix, b.relay.replica)).toBe(1);
      // The holder dropped the call: its question withdrawn, nothing done.
      await expect
        .poll(() => a.serving.log.events.find((e) => e.type === 'response' && e.key === 'env'))
        .toMatchObject({ action: 'cancel' });
      expect(a.serving.store.deployments).toEqual([]);
      // Everything it ran for that requester, the client's GET stream too.
      await expect.poll(() => a.relay.inFlight()).toBe(0);
    });

  it('on a direct connection, Redis not answering the holder either: the holder drops the call all the same, its question withdrawn', async () => {
    // The requester frozen — its Redis and its direct connection carry nothing more, nothing
    // closed — and the holder's Redis stalled too: it cannot ask whether the requester's
    // heartbeat is current.
    const prefix = 'rfrozendr:';
    const port = await freePort();
    const link = await gate(port);
    h.cleanups.push(() => link.close());
    const a = await gated(prefix, {
      direct: { port, advertise: new URL(link.url).host },
      sessionTtlMs: 3_300,
      timeoutMs: 2_000,
    });
    const b = await gated(prefix, { direct: {} });
    h.proxy = await startProxy([a.serving.url, b.serving.url], (_req, n) => (n === 0 ? 0 : 1));
    const { client, asked } = patientClient('frozen');
    h.clients.push(client);
    await client.connect(httpTransport(h.proxy.url, 'alice'));
    await untilDirect(client, a);
    void startDeploy(client);
    await asked;
    frozen.push(() => {
      link.cut();
      a.gate.cut();
      b.gate.cut();
      a.redis.disconnect();
      b.redis.disconnect();
    });
    b.gate.freeze();
    link.freeze();
    a.gate.freeze();
    await expect
      .poll(() => a.serving.log.events.find((e) => e.type === 'response' && e.key === 'env'), { timeout: 10_000 })
      .toMatchObject({ action: 'cancel' });
    expect(a.serving.store.deployments).toEqual([]);
    await expect.poll(() => a.relay.inFlight()).toBe(0);
  });

  it('through Redis, a requester that comes back (its process paused, not dead) is told the call failed, not left waiting on it', async () => {
    const prefix = 'rthawed:';
    const a = await replica(prefix);
    const b = await gated(prefix, { sessionTtlMs: 3_300, timeoutMs: 2_000 });
    h.proxy = await startProxy([a.serving.url, b.serving.url], (_req, n) => (n === 0 ? 0 : 1));
    const { client, asked } = patientClient('thawed');
    h.clients.push(client);
    await client.connect(httpTransport(h.proxy.url, 'alice'));
    let settled: unknown;
    const call = startDeploy(client).then((outcome) => {
      settled = outcome;
    });
    await asked;
    frozen.push(() => {
      b.gate.cut();
      b.redis.disconnect();
    });
    b.gate.freeze();
    await expect.poll(() => a.redis.exists(`${prefix}alive:${b.relay.replica}`), { timeout: 10_000 }).toBe(0);
    await expect
      .poll(() => a.serving.log.events.find((e) => e.type === 'response' && e.key === 'env'))
      .toMatchObject({ action: 'cancel' });
    // b runs again, its connections as they were: what Redis kept for it arrives now.
    b.gate.thaw();
    await expect.poll(() => settled, { timeout: 10_000 }).toBeInstanceOf(Error);
    expect(String((settled as Error).message)).toMatch(/did not complete/);
    await call;
    expect(a.serving.store.deployments).toEqual([]);
  });
});
