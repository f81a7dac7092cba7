/**
 * A requester that gives up on a relay its holder may still run tells its client the call failed
 * only once the holder says it dropped it (`dropped`, its answer to an `abort` with `ack`): the
 * abort having gone out through Redis is not the holder having read it, and a person told the call
 * failed may answer straight to the holder at once. The word counts only from the replica it is
 * about; an abort that overtook its request (another route) keeps that request from running.
 *
 * Frames are sealed here with the replicas' secret, as a replica of the same deployment would.
 */
import { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { withRedis } from '../../../../test/support/redis-server.js';
import { startProxy } from '../../../../test/support/round-robin-proxy.js';
import { httpTransport, patientClient, startDeploy } from '../../test/loopback.js';
import { ANSWER_DEV, postOnSession, relayHarness } from '../../test/relay-harness.js';
import { type Frame, frameKey, open, seal } from './frames.js';

const REDIS = withRedis('relay/abort-acknowledged.test.ts');
const SECRET = 'relay-abort-acknowledged-secret-0123456789ab';
const KEY = frameKey(SECRET);

interface Seen {
  from: string;
  to: string;
  frame: Frame;
}

describe.skipIf(!REDIS)('an abort the holder acknowledges', () => {
  const { h, replica, gated } = relayHarness(SECRET);

  /** Every frame published on the replicas' channels under `prefix`, opened. */
  const sniff = async (prefix: string): Promise<Seen[]> => {
    const sniffer = new Redis(h.server.url);
    h.cleanups.push(async () => sniffer.disconnect());
    const seen: Seen[] = [];
    sniffer.on('pmessage', (_p: string, channel: string, message: string) => {
      const to = channel.slice(`${prefix}replica:`.length);
      const opened = open(KEY, to, message, new Map());
      if ('frames' in opened) for (const frame of opened.frames) seen.push({ from: opened.from, to, frame });
    });
    await sniffer.psubscribe(`${prefix}replica:*`);
    return seen;
  };
  const deployRequest = (r: string, url: string): Frame => ({
    t: 'request',
    r,
    method: 'POST',
    url,
    owner: '0'.repeat(64),
    headers: [
      ['content-type', 'application/json'],
      ['accept', 'application/json, text/event-stream'],
    ],
    body: Buffer.from(
      JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'deploy', arguments: { service: 'order-service', env: 'prod' } },
      }),
    ).toString('base64'),
  });

  it('answers an abort for a relay it never ran, and does not run that request when it comes after', async () => {
    const prefix = 'ackahead:';
    const a = await replica(prefix);
    const seen = await sniff(prefix);
    const channel = `${prefix}replica:${a.relay.replica}`;
    const toGhost = () => seen.filter((s) => s.to === 'ghost');
    const r = crypto.randomUUID();
    await a.redis.publish(channel, seal(KEY, 'ghost', a.relay.replica, { t: 'abort', r, ack: true }));
    await expect.poll(toGhost).toEqual([{ from: a.relay.replica, to: 'ghost', frame: { t: 'dropped', r } }]);
    // Its request, overtaken on the way by its abort, comes now: not run, not answered.
    await a.redis.publish(channel, seal(KEY, 'ghost', a.relay.replica, deployRequest(r, a.serving.url)));
    // Another request, of a relay nobody gave up on, is run (its unknown session answered so).
    const other = crypto.randomUUID();
    await a.redis.publish(channel, seal(KEY, 'ghost', a.relay.replica, deployRequest(other, a.serving.url)));
    await expect.poll(() => toGhost().some((s) => s.frame.t === 'head' && s.frame.r === other)).toBe(true);
    expect(toGhost().filter((s) => 'r' in s.frame && s.frame.r === r)).toHaveLength(1);
    expect(a.relay.inFlight()).toBe(0);
  });

  it('a requester that lost part of the response tells its client only once the holder dropped the call; the word of another replica counts for nothing either way', async () => {
    const prefix = 'ackgap:';
    const a = await gated(prefix);
    const b = await replica(prefix);
    const seen = await sniff(prefix);
    h.proxy = await startProxy([a.serving.url, b.serving.url], (_req, n) => (n === 0 ? 0 : 1));
    const { client, asked } = patientClient('gap');
    h.clients.push(client);
    const transport = httpTransport(h.proxy.url, 'alice');
    await client.connect(transport);
    let told = false;
    const call = startDeploy(client).then((outcome) => {
      told = true;
      return outcome;
    });
    await asked;
    const relayed = seen.find(
      (s) =>
        s.frame.t === 'request' &&
        Buffer.from(s.frame.body ?? '', 'base64')
          .toString()
          .includes('"tools/call"'),
    );
    expect(relayed).toBeDefined();
    const { r } = (relayed as Seen).frame as { r: string };
    const toA = `${prefix}replica:${a.relay.replica}`;
    const toB = `${prefix}replica:${b.relay.replica}`;
    // Another replica's abort, asking to be told: the call goes on, and nobody is told anything.
    const refusedAtA = a.relay.dropped().sender;
    await b.redis.publish(toA, seal(KEY, 'intruder', a.relay.replica, { t: 'abort', r, ack: true }));
    await expect.poll(() => a.relay.dropped().sender).toBe(refusedAtA + 1);
    expect(seen.filter((s) => s.to === 'intruder')).toEqual([]);
    expect(a.serving.log.events.filter((e) => e.type === 'response')).toEqual([]);
    // The holder now slow to read Redis; a piece of its response lost on the way (a frame far
    // past the next one in its numbering): b gives up on the relay.
    a.gate.freeze();
    h.cleanups.push(async () => a.gate.cut());
    const gap = { t: 'data', r, d: Buffer.from('data: {}\n\n').toString('base64'), i: 1_000 } as const;
    await b.redis.publish(toB, seal(KEY, a.relay.replica, b.relay.replica, gap));
    await expect
      .poll(() => seen.some((s) => s.to === a.relay.replica && s.frame.t === 'abort' && s.frame.ack === true))
      .toBe(true);
    // Another replica saying the holder dropped it is not the holder saying so.
    const refusedAtB = b.relay.dropped().sender;
    await b.redis.publish(toB, seal(KEY, 'intruder', b.relay.replica, { t: 'dropped', r }));
    await expect.poll(() => b.relay.dropped().sender).toBe(refusedAtB + 1);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(told, 'told the call failed while its holder could not have heard').toBe(false);
    a.gate.thaw();
    const error = await call;
    expect(error).toBeInstanceOf(Error);
    expect(String((error as Error).message)).toMatch(/part of the response was lost/);
    // Told it failed, the person answers straight to the holder: nothing is done.
    await (await postOnSession(a.serving.url, transport.sessionId as string, ANSWER_DEV)).arrayBuffer();
    expect(a.serving.store.deployments).toEqual([]);
    expect((await a.serving.log.response('env')).action).toBe('cancel');
  });

  it("a requester shutting down tells its relays' clients once their holders dropped the calls", async () => {
    const prefix = 'ackclose:';
    const a = await gated(prefix);
    const b = await replica(prefix);
    h.proxy = await startProxy([a.serving.url, b.serving.url], (_req, n) => (n === 0 ? 0 : 1));
    const { client, asked } = patientClient('closing');
    h.clients.push(client);
    const transport = httpTransport(h.proxy.url, 'alice');
    await client.connect(transport);
    let told = false;
    const call = startDeploy(client).then((outcome) => {
      told = true;
      return outcome;
    });
    await asked;
    a.gate.freeze();
    h.cleanups.push(async () => a.gate.cut());
    const closed = b.relay.close();
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(told, 'told the call failed while its holder could not have heard').toBe(false);
    a.gate.thaw();
    expect(String(await call)).toMatch(/this replica is shutting down/);
    await closed;
    await (await postOnSession(a.serving.url, transport.sessionId as string, ANSWER_DEV)).arrayBuffer();
    expect(a.serving.store.deployments).toEqual([]);
    expect((await a.serving.log.response('env')).action).toBe('cancel');
  });

  it('a holder whose entry does not say it answers (an earlier version) is never asked: the abort goes as before, and the call ends', async () => {
    const prefix = 'ackearlier:';
    const a = await replica(prefix);
    const b = await replica(prefix);
    const seen = await sniff(prefix);
    let toB = false;
    h.proxy = await startProxy([a.serving.url, b.serving.url], () => (toB ? 1 : 0));
    const { client, asked } = patientClient('earlier');
    h.clients.push(client);
    const transport = httpTransport(h.proxy.url, 'alice');
    await client.connect(transport);
    // Its entry as the version before acknowledgements writes it: eight lines.
    const key = `${prefix}session:${transport.sessionId}`;
    const entry = String(await a.redis.get(key)).split('\n');
    expect(entry.slice(8)).toEqual(['ack', 'whole']);
    await a.redis.set(key, entry.slice(0, 8).join('\n'), 'PX', 60_000);
    toB = true;
    const call = startDeploy(client);
    await asked;
    const relayed = seen.find((s) => s.frame.t === 'request' && s.to === a.relay.replica && s.from === b.relay.replica);
    const { r } = (relayed as Seen).frame as { r: string };
    const gap = { t: 'data', r, d: Buffer.from('data: {}\n\n').toString('base64'), i: 1_000 } as const;
    await b.redis.publish(`${prefix}replica:${b.relay.replica}`, seal(KEY, a.relay.replica, b.relay.replica, gap));
    expect(String(await call)).toMatch(/part of the response was lost/);
    // The abort reaches the sniffer through Redis in its own time: the client may hear of the
    // failure first (was read at once, and found nothing once on CI's Node 24 run).
    const aborts = () => seen.filter((s) => s.frame.t === 'abort' && s.frame.r === r).map((s) => s.frame);
    await expect.poll(() => aborts().length, { timeout: 5_000 }).toBeGreaterThan(0);
    await expect.poll(async () => (await a.serving.log.response('env')).action).toBe('cancel');
    for (const abort of aborts()) expect(abort).not.toHaveProperty('ack');
    expect(a.serving.store.deployments).toEqual([]);
  });
});
