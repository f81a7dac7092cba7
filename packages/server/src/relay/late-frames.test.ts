/**
 * A message between replicas that arrives after it expired: one end was paused (its process
 * stopped, its host suspended) or cut off with its connection to Redis kept, for longer than a
 * frame lives, and Redis delivered what it had kept once the end ran again. Such a frame is never
 * acted on as if on time — but the relay it belongs to lost it, and must not wait on it for ever:
 * a requester that missed its holder's `fail`, a holder that missed its requester's `abort`.
 *
 * Both replicas run in this process, so a pause longer than a frame's life is a clock moved past
 * it (`pastFrameLife`): every frame sealed before reads as expired, as it would to a process that
 * stopped that long.
 */
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { withRedis } from '../../../../test/support/redis-server.js';
import { startProxy } from '../../../../test/support/round-robin-proxy.js';
import { httpTransport, patientClient, startDeploy } from '../../test/loopback.js';
import { relayHarness } from '../../test/relay-harness.js';
import { FRAME_TTL_MS, type Frame, frameKey, open, sealUnchecked } from './frames.js';

const REDIS = withRedis('relay/late-frames.test.ts');
const SECRET = 'relay-late-frames-secret-0123456789abcdef01';

describe.skipIf(!REDIS)('frames that arrive after they expired', () => {
  const { h, replica, gated } = relayHarness(SECRET);
  const frozen: (() => void)[] = [];
  afterEach(() => {
    vi.restoreAllMocks();
    for (const cut of frozen.splice(0)) cut();
  });

  /** Every clock in this process moves past a frame's life, as a pause that long would. */
  const pastFrameLife = () => {
    const now = Date.now.bind(Date);
    vi.spyOn(Date, 'now').mockImplementation(() => now() + FRAME_TTL_MS + 5_000);
  };
  const envAnswer = (r: { serving: { log: { events: { type: string; key?: string }[] } } }) =>
    r.serving.log.events.find((e) => e.type === 'response' && e.key === 'env');

  it("a requester paused past its holder's fail is told its call failed once it runs again, not left waiting", async () => {
    const prefix = 'latefail:';
    const a = await replica(prefix);
    // Paused, b gives up on nothing on its own: its Redis commands are not timed out meanwhile
    // (with a ttl that holds together with that: its heartbeat lapsing is its key removed, below).
    const b = await gated(prefix, { sessionTtlMs: 100_000, timeoutMs: 60_000 });
    h.proxy = await startProxy([a.serving.url, b.serving.url], (_req, n) => (n === 0 ? 0 : 1));
    const { client, asked } = patientClient('late');
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
    // Its heartbeat lapses (as it would, a ttl after its last beat).
    await a.redis.del(`${prefix}alive:${b.relay.replica}`);
    // The holder drops the call once b's heartbeat lapsed, and tells b so: a message b, stopped,
    // reads only once it has expired.
    await expect.poll(() => envAnswer(a), { timeout: 5_000 }).toMatchObject({ action: 'cancel' });
    await expect.poll(() => a.relay.inFlight()).toBe(0);
    const expired = b.relay.dropped().expired;
    pastFrameLife();
    b.gate.thaw();
    await expect.poll(() => settled, { timeout: 5_000 }).toBeInstanceOf(Error);
    expect(String((settled as Error).message)).toMatch(
      /did not complete: a message between the server instances arrived after it expired/,
    );
    await call;
    expect(b.relay.dropped().expired).toBeGreaterThan(expired);
    await expect.poll(() => b.relay.inFlight()).toBe(0);
    expect(a.serving.store.deployments).toEqual([]);
  });

  it("a holder paused past its requester's abort drops the call once it runs again: its question withdrawn, nothing done", async () => {
    const prefix = 'lateabort:';
    // Paused, a gives up on nothing on its own: its Redis commands are not timed out meanwhile
    // (with a ttl that holds together with that: its heartbeat lapsing is its key removed, below).
    const a = await gated(prefix, { sessionTtlMs: 100_000, timeoutMs: 60_000 });
    const b = await replica(prefix);
    h.proxy = await startProxy([a.serving.url, b.serving.url], (_req, n) => (n === 0 ? 0 : 1));
    const { client, asked } = patientClient('late');
    h.clients.push(client);
    await client.connect(httpTransport(h.proxy.url, 'alice'));
    const call = startDeploy(client);
    await asked;
    frozen.push(() => {
      a.gate.cut();
      a.redis.disconnect();
    });
    a.gate.freeze();
    await b.redis.del(`${prefix}alive:${a.relay.replica}`);
    // The requester gives up on the stopped holder (its heartbeat lapsed): its client is told the
    // call failed, and the holder to drop it — a message the holder reads only once it expired.
    expect(await call).toBeInstanceOf(Error);
    await expect.poll(() => b.relay.inFlight()).toBe(0);
    expect(envAnswer(a)).toBeUndefined();
    pastFrameLife();
    a.gate.thaw();
    await expect.poll(() => envAnswer(a), { timeout: 5_000 }).toMatchObject({ action: 'cancel' });
    await expect.poll(() => a.relay.inFlight()).toBe(0);
    expect(a.serving.store.deployments).toEqual([]);
  });

  /** Two replicas, a call relayed from b to a waiting on its question, and the relay's id (sniffed). */
  const liveRelay = async (prefix: string) => {
    const sniffer = new Redis(h.server.url);
    h.cleanups.push(async () => sniffer.disconnect());
    const requests: Frame[] = [];
    sniffer.on('pmessage', (_p: string, _c: string, message: string) => {
      const { to } = JSON.parse(message.startsWith('{') ? message : message.slice(message.indexOf('.') + 1)) as {
        to: string;
      };
      const opened = open(frameKey(SECRET), to, message, new Map());
      if ('frames' in opened) requests.push(...opened.frames.filter((f) => f.t === 'request'));
    });
    await sniffer.psubscribe(`${prefix}replica:*`);
    const a = await replica(prefix);
    const b = await replica(prefix);
    h.proxy = await startProxy([a.serving.url, b.serving.url], (_req, n) => (n === 0 ? 0 : 1));
    const { client, asked } = patientClient('late');
    h.clients.push(client);
    await client.connect(httpTransport(h.proxy.url, 'alice'));
    let settled: unknown;
    const call = startDeploy(client).then((outcome) => {
      settled = outcome;
    });
    await asked;
    const relayed = requests.find(
      (f) =>
        f.t === 'request' &&
        Buffer.from(f.body ?? '', 'base64')
          .toString()
          .includes('"tools/call"'),
    );
    expect(relayed).toBeDefined();
    return { a, b, call, r: (relayed as { r: string }).r, settled: () => settled };
  };
  /** A message sealed with the replicas' secret that expired a moment ago. */
  const sealedLate = (from: string, to: string, frame: unknown) =>
    sealUnchecked(
      frameKey(SECRET),
      { from, to, n: randomBytes(16).toString('base64url'), x: Date.now() - 1_000 },
      frame,
    );
  const line = (text: string) => Buffer.from(`data: ${text}\n\n`).toString('base64');

  it('a late piece of a response not taken yet ends its relay with an error; a copy of one taken, or one sealed as another replica, does nothing', async () => {
    const prefix = 'latedata:';
    const { a, b, call, r, settled } = await liveRelay(prefix);
    const data = (i?: number) => ({
      t: 'data',
      r,
      d: line('{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"LATE: deployed"}]}}'),
      ...(i === undefined ? {} : { i }),
    });
    const channel = `${prefix}replica:${b.relay.replica}`;
    const expired = b.relay.dropped().expired;
    const harmless = [
      // Another replica's, for a relay it does not hold.
      sealedLate('not-the-holder', b.relay.replica, data(1_000)),
      // The holder's, in a place already taken (the head's): a replay of an old message.
      sealedLate(a.relay.replica, b.relay.replica, data(0)),
      // Unnumbered, from a holder that numbers every frame.
      sealedLate(a.relay.replica, b.relay.replica, data()),
    ];
    for (const message of harmless) await a.redis.publish(channel, message);
    await expect.poll(() => b.relay.dropped().expired).toBe(expired + harmless.length);
    // Read, and not taken.
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(settled()).toBeUndefined();
    expect(b.relay.inFlight()).toBeGreaterThan(0);
    // One in a place not reached yet: the response lost it.
    await a.redis.publish(channel, sealedLate(a.relay.replica, b.relay.replica, data(1_000)));
    await call;
    expect(settled()).toBeInstanceOf(Error);
    expect(String((settled() as Error).message)).toMatch(/arrived after it expired/);
    expect(JSON.stringify(settled())).not.toContain('LATE: deployed');
    // The holder was told to drop it: the question withdrawn, nothing done.
    await expect.poll(() => envAnswer(a)).toMatchObject({ action: 'cancel' });
    expect(a.serving.store.deployments).toEqual([]);
  });

  it('a late request is answered 503 to send again, numbered when asked, once however often it comes, and never runs', async () => {
    const prefix = 'latereq:';
    const a = await replica(prefix);
    const listener = new Redis(h.server.url);
    h.cleanups.push(async () => listener.disconnect());
    const answers: Frame[] = [];
    listener.on('message', (_c: string, message: string) => {
      const opened = open(frameKey(SECRET), 'ghost', message, new Map());
      if ('frames' in opened) answers.push(...opened.frames);
    });
    await listener.subscribe(`${prefix}replica:ghost`);
    const tools = {
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'deploy', arguments: { service: 'order-service', env: 'prod' } },
    };
    const request = {
      t: 'request',
      r: crypto.randomUUID(),
      method: 'POST',
      url: a.serving.url,
      owner: '0'.repeat(64),
      headers: [
        ['content-type', 'application/json'],
        ['accept', 'application/json, text/event-stream'],
      ],
      body: Buffer.from(JSON.stringify(tools)).toString('base64'),
      seq: true,
    };
    const expired = a.relay.dropped().expired;
    const late = sealedLate('ghost', a.relay.replica, request);
    await a.redis.publish(`${prefix}replica:${a.relay.replica}`, late);
    await expect.poll(() => answers.length).toBe(1);
    // Sent again (a captured message replayed): dropped unopened, answered no more.
    await a.redis.publish(`${prefix}replica:${a.relay.replica}`, late);
    await expect.poll(() => a.relay.dropped().expired).toBe(expired + 2);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(answers).toHaveLength(1);
    const [head] = answers as [Extract<Frame, { t: 'head' }>];
    expect(head).toMatchObject({ t: 'head', r: request.r, status: 503, end: true, i: 0 });
    expect(Buffer.from(head.body ?? '', 'base64').toString()).toMatch(
      /arrived after it expired.*send the request again/,
    );
    expect(a.relay.inFlight()).toBe(0);
    expect(a.serving.store.deployments).toEqual([]);
  });
});
