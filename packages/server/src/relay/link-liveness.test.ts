/**
 * A direct connection between two replicas is trusted as alive only on its peer's word, on that
 * connection: while a relay waits on it (or is held for it) each end pings the other, sealed, and
 * a `pong` not back in time (`timeoutMs` and `livenessMs` more) closes it — its relays ending as
 * when it is lost, the requester's client told only once the holder is sure to have dropped the
 * call. TCP's keepalive is no such word: the network between the two lost one way or both, each
 * still reaching Redis and beating, a connection held by a middlebox (here, a proxy between them
 * that answers keepalive on both sides) stays open as far as either kernel can tell.
 *
 * Only a peer that said it answers is pinged — the holder in its directory entry (an eighth line,
 * `ping`), the requester on its request — so replicas of an earlier version, which refuse the
 * frame, work with this one as before.
 */
import { createConnection, createServer, type Server, type Socket } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { withRedis } from '../../../../test/support/redis-server.js';
import { startProxy } from '../../../../test/support/round-robin-proxy.js';
import { httpTransport, patientClient, startDeploy } from '../../test/loopback.js';
import {
  ANSWER_DEV,
  freePort,
  postOnSession,
  type Replica,
  relayHarness,
  untilDirect,
} from '../../test/relay-harness.js';
import { Link, parseAddress } from './direct.js';
import { type Frame, frameKey, open, sealFrames } from './frames.js';

const REDIS = withRedis('relay/link-liveness.test.ts');
const SECRET = 'relay-link-liveness-secret-0123456789abcdef0';
const keys = frameKey(SECRET);

/** Calls `each` with every whole message of a framed stream (a 4-byte length, then the bytes). */
function unframe(each: (message: string) => void): (chunk: Buffer) => void {
  let buffered = Buffer.alloc(0);
  return (chunk) => {
    buffered = Buffer.concat([buffered, chunk]);
    while (buffered.length >= 4 && buffered.length >= 4 + buffered.readUInt32BE(0)) {
      const length = buffered.readUInt32BE(0);
      each(buffered.toString('utf8', 4, 4 + length));
      buffered = buffered.subarray(4 + length);
    }
  };
}

/** One framed message. */
function framed(message: string): Buffer {
  const body = Buffer.from(message);
  const head = Buffer.alloc(4);
  head.writeUInt32BE(body.length);
  return Buffer.concat([head, body]);
}

/** The frames of `message`, opened as `to` would (it is not taken: a fresh set of nonces). */
function framesOf(message: string, to: string): Frame[] {
  const opened = open(keys, to, message, new Map());
  return 'frames' in opened ? opened.frames : [];
}

/**
 * A TCP proxy in front of a holder's direct port (`port`), advertised in its place: what goes `up`
 * (from the requester) or `down` (from the holder) is carried on, and recorded, until `lose` says
 * to lose it — silently, the connections kept open on both sides, and a close on a side whose
 * bytes are lost not carried either (its FIN is lost with them). Each side's kernel sees a live
 * connection, answered by this one: a middlebox holding it, or a network lost one way.
 */
async function lossyLink(port: number) {
  const losing = { up: false, down: false };
  const carried = { up: [] as string[], down: [] as string[] };
  const sockets = new Set<Socket>();
  const server: Server = createServer((requester) => {
    const holder = createConnection({ host: '127.0.0.1', port });
    for (const s of [requester, holder]) {
      sockets.add(s);
      s.on('error', () => {});
    }
    const up = unframe((m) => carried.up.push(m));
    const down = unframe((m) => carried.down.push(m));
    requester.on('data', (chunk: Buffer) => {
      if (losing.up) return;
      up(chunk);
      holder.write(chunk);
    });
    holder.on('data', (chunk: Buffer) => {
      if (losing.down) return;
      down(chunk);
      if (!requester.destroyed) requester.write(chunk);
    });
    requester.on('close', () => losing.up || holder.destroy());
    holder.on('close', () => losing.down || requester.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    address: `127.0.0.1:${(server.address() as { port: number }).port}`,
    carried,
    /** From now on, what goes that way (or both) is lost. */
    lose(way: 'up' | 'down' | 'both') {
      losing.up ||= way !== 'down';
      losing.down ||= way !== 'up';
    },
    /** How many frames of type `t` went `way`, to `to`, so far. */
    count(way: 'up' | 'down', to: string, t: Frame['t']) {
      return carried[way].flatMap((m) => framesOf(m, to)).filter((f) => f.t === t).length;
    },
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

describe('a Link in use pings its peer, and only then', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  /** Timers and the clock the Link judges by, faked; sockets real. */
  const fake = () =>
    vi.useFakeTimers({
      toFake: [
        'setInterval',
        'clearInterval',
        'setTimeout',
        'clearTimeout',
        'setImmediate',
        'clearImmediate',
        'performance',
      ],
    });

  /** A greeted Link on a real connection (`raw`, its peer's end), its pings counted (`sent`) rather than sealed. */
  const linked = async () => {
    let link!: Link;
    const sent: number[] = [];
    const server = createServer((socket) => {
      link = new Link(socket, true, () => {}, undefined, {
        everyMs: 100,
        withinMs: 250,
        ping: (_peer, p) => {
          sent.push(p);
          return `ping ${p}`;
        },
      });
      link.peer = 'peer';
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const raw = createConnection({ host: '127.0.0.1', port: (server.address() as { port: number }).port });
    raw.on('error', () => {});
    await new Promise((resolve) => raw.once('connect', resolve));
    await expect.poll(() => link).toBeDefined();
    return {
      link,
      sent,
      /** Sends `bytes` from the peer's end; resolves once the Link has read them. */
      fromPeer: async (bytes: Buffer) => {
        const read = new Promise((resolve) => link.socket.once('data', resolve));
        raw.write(bytes);
        await read;
      },
      close: async () => {
        raw.destroy();
        link.close();
        await new Promise((resolve) => server.close(resolve));
      },
    };
  };

  it('idle, or used but its peer never said it answers: no ping; in use: one at once and one every period, answered or not; anything from the peer keeps it open, silence for the bound after a ping closes it', async () => {
    const { link, sent, fromPeer, close } = await linked();
    fake();
    // Idle, though its peer answers.
    link.answering();
    vi.advanceTimersByTime(1_000);
    expect(sent).toEqual([]);
    // In use: the first ping at once (ahead of whatever this side sends next), then every 100 ms.
    const release = link.use();
    expect(sent).toEqual([0]);
    vi.advanceTimersByTime(200);
    expect(sent).toEqual([0, 1, 2]);
    // Anything from the peer within the bound — here two bytes of a message, no pong — is its word.
    vi.advanceTimersByTime(40);
    await fromPeer(Buffer.from([0, 0, 0, 10, 1, 2]));
    vi.advanceTimersByTime(20);
    expect(link.open).toBe(true);
    // Released (twice: once counts), though the message is part way in: still pinged while it is.
    release();
    release();
    vi.advanceTimersByTime(40);
    expect(sent).toEqual([0, 1, 2, 3]);
    // Silent since: counted from the next ping (300 ms), closed once the bound is past (550 ms).
    vi.advanceTimersByTime(240);
    expect(link.open).toBe(true);
    vi.advanceTimersByTime(20);
    expect(link.open).toBe(false);
    vi.useRealTimers();
    await close();
  });

  it('released and nothing part way in, it is idle again: no ping, and nothing closes it', async () => {
    const { link, sent, fromPeer, close } = await linked();
    fake();
    link.answering();
    const release = link.use();
    const second = link.use();
    vi.advanceTimersByTime(100);
    expect(sent).toEqual([0, 1]);
    release();
    vi.advanceTimersByTime(100);
    expect(sent).toEqual([0, 1, 2]);
    second();
    vi.advanceTimersByTime(5_000);
    expect(sent).toEqual([0, 1, 2]);
    expect(link.open).toBe(true);
    // A message part way in from the peer makes it in use; whole, idle again.
    await fromPeer(Buffer.from([0, 0, 0, 3, 1]));
    vi.advanceTimersByTime(100);
    expect(sent).toEqual([0, 1, 2, 3]);
    await fromPeer(Buffer.from([2, 3]));
    vi.advanceTimersByTime(5_000);
    expect(sent).toEqual([0, 1, 2, 3]);
    expect(link.open).toBe(true);
    vi.useRealTimers();
    await close();
  });

  it('a peer that never said it answers is not pinged, however long it is used', async () => {
    const { link, sent, close } = await linked();
    fake();
    link.use();
    vi.advanceTimersByTime(5_000);
    expect(sent).toEqual([]);
    expect(link.open).toBe(true);
    // Told so while in use: pinged from then on, the first at once.
    link.answering();
    expect(sent).toEqual([0]);
    vi.advanceTimersByTime(100);
    expect(sent).toEqual([0, 1]);
    vi.useRealTimers();
    await close();
  });
});

describe.skipIf(!REDIS)('a direct connection that stops carrying, both replicas still on Redis', () => {
  const { h, replica, gated } = relayHarness(SECRET);
  const frozen: (() => void)[] = [];
  afterEach(() => {
    for (const cut of frozen.splice(0)) cut();
  });

  /**
   * Holder `a` (its direct port behind a lossy link), requester `b` (`gatedRequester`: its Redis
   * behind a gate), a balancer — initialize to a, the rest to b — and alice's deploy through it
   * on the direct connection, its question open, pings answered both ways.
   */
  const asking = async (prefix: string, gatedRequester = false) => {
    const port = await freePort();
    const link = await lossyLink(port);
    h.cleanups.push(link.close);
    const a = await replica(prefix, { timeoutMs: 2_000, direct: { port, advertise: link.address } });
    const options = { timeoutMs: 2_000, sessionTtlMs: 3_300, direct: {} };
    const behindGate = gatedRequester ? await gated(prefix, options) : undefined;
    const b = behindGate ?? (await replica(prefix, options));
    h.proxy = await startProxy([a.serving.url, b.serving.url], (_req, n) => (n === 0 ? 0 : 1));
    const { client, asked } = patientClient('lossy');
    h.clients.push(client);
    const transport = httpTransport(h.proxy.url, 'alice');
    await client.connect(transport);
    await untilDirect(client, a);
    const call = startDeploy(client);
    await asked;
    // Each end pings the other while the call waits, and is answered.
    await expect
      .poll(() => link.count('down', b.relay.replica, 'pong') > 0 && link.count('up', a.relay.replica, 'pong') > 0)
      .toBe(true);
    return { a, b, gate: behindGate?.gate, link, call, sessionId: transport.sessionId as string };
  };

  /** The call ended with an error, and the holder had dropped it by then: an answer straight to it does nothing. */
  const endedEverywhere = async (a: Replica, call: Promise<unknown>, sessionId: string) => {
    const error = await call;
    expect(error).toBeInstanceOf(Error);
    expect(String((error as Error).message)).toMatch(/did not complete/);
    await (await postOnSession(a.serving.url, sessionId, ANSWER_DEV)).arrayBuffer();
    expect(a.serving.store.deployments, 'deployed after the call was reported as not completed').toEqual([]);
    expect((await a.serving.log.response('env')).action).toBe('cancel');
  };

  for (const way of ['both', 'down', 'up'] as const)
    it(`lost ${way === 'both' ? 'both ways' : way === 'down' ? "from the holder's side only" : "from the requester's side only, its close lost too"}: the call ends with an error, the holder's relay dropped first`, async () => {
      const { a, link, call, sessionId } = await asking(`lossy${way}:`);
      link.lose(way);
      await endedEverywhere(a, call, sessionId);
    });

  it('the requester cannot reach the holder at all — the connection lost both ways, its own Redis stalled, its heartbeat still current — and the holder drops the call on its own pings', async () => {
    const prefix = 'lossyalone:';
    const { a, b, gate, link, call, sessionId } = await asking(prefix, true);
    // Its abort cannot go out through Redis, and its heartbeat, kept current here, says it lives:
    // only the connection's silence tells the holder.
    const alive = `${prefix}alive:${b.relay.replica}`;
    const beating = setInterval(() => void a.redis.set(alive, '1', 'PX', 60_000).catch(() => {}), 100);
    frozen.push(() => {
      clearInterval(beating);
      gate?.cut();
      b.redis.disconnect();
    });
    gate?.freeze();
    link.lose('both');
    await expect
      .poll(() => a.serving.log.events.find((e) => e.type === 'response' && e.key === 'env'), { timeout: 10_000 })
      .toMatchObject({ action: 'cancel' });
    expect(a.serving.store.deployments).toEqual([]);
    // The requester tells its client once it is sure the holder has dropped it (its own heartbeat
    // lapsed in Redis, as far as it can know).
    await endedEverywhere(a, call, sessionId);
  });

  it('mixed versions: a holder whose entry does not say it answers is never pinged, its requester not asked to answer, and the call goes through', async () => {
    const prefix = 'lossyold:';
    const port = await freePort();
    const link = await lossyLink(port);
    h.cleanups.push(link.close);
    // Its entry written once (its next beat far off), then made as the version before pings writes it.
    const a = await replica(prefix, { sessionTtlMs: 60_000, direct: { port, advertise: link.address } });
    const b = await replica(prefix, { direct: {} });
    let toB = false;
    h.proxy = await startProxy([a.serving.url, b.serving.url], () => (toB ? 1 : 0));
    let release!: () => void;
    const { client, asked } = patientClient('earlier', {
      content: { env: 'dev' },
      release: new Promise<void>((resolve) => {
        release = resolve;
      }),
    });
    h.clients.push(client);
    const transport = httpTransport(h.proxy.url, 'alice');
    await client.connect(transport);
    const key = `${prefix}session:${transport.sessionId}`;
    const entry = String(await a.redis.get(key)).split('\n');
    expect(entry.slice(6)).toEqual(['seq', 'ping', 'ack', 'whole']);
    await a.redis.set(key, entry.slice(0, 7).join('\n'), 'PX', 60_000);
    toB = true;
    await untilDirect(client, a);
    const call = startDeploy(client);
    await asked;
    // The call waits on the connection while each end checks the other's heartbeat a few times
    // over (a ping would have gone with each).
    const checks = async () => Number(/cmdstat_exists:calls=(\d+)/.exec(await a.redis.info('commandstats'))?.[1] ?? 0);
    const before = await checks();
    await expect.poll(checks).toBeGreaterThanOrEqual(before + 6);
    release();
    expect(await call).toMatchObject({ structuredContent: { status: 'done', deployment: { env: 'dev' } } });
    for (const t of ['ping', 'pong'] as const) {
      expect(link.count('up', a.relay.replica, t), `${t} from the requester`).toBe(0);
      expect(link.count('down', b.relay.replica, t), `${t} from the holder`).toBe(0);
    }
    const requests = link.carried.up.flatMap((m) => framesOf(m, a.relay.replica)).filter((f) => f.t === 'request');
    expect(requests.length).toBeGreaterThan(0);
    for (const request of requests) expect(request).not.toHaveProperty('ping');
  });

  describe('pings on the wire', () => {
    /** A holder taking direct connections, and a raw connection to its port. */
    const dialHolder = async (prefix: string) => {
      const a = await replica(prefix, { direct: {} });
      const where = parseAddress(a.relay.address as string) as { host: string; port: number };
      const socket = createConnection(where);
      const heard: string[] = [];
      socket.on(
        'data',
        unframe((m) => heard.push(m)),
      );
      socket.on('error', () => {});
      const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
      await new Promise((resolve) => socket.once('connect', resolve));
      h.cleanups.push(async () => void socket.destroy());
      return { a, socket, heard, closed };
    };
    const sealed = (from: string, to: string, frame: Frame) => sealFrames(keys, from, to, [frame], Date.now(), true);

    it('a ping before the greeting closes the connection unanswered', async () => {
      const { a, socket, heard, closed } = await dialHolder('pingfirst:');
      socket.write(framed(sealed('peer-1', a.relay.replica, { t: 'ping', p: 0 })));
      await closed;
      expect(heard).toEqual([]);
      expect(a.relay.dropped()).toMatchObject({ sender: 1, schema: 0 });
    });

    it('greeted, a ping is answered with a sealed pong of its number, to its sender; the same ping replayed closes the connection', async () => {
      const { a, socket, heard, closed } = await dialHolder('pingreplay:');
      socket.write(framed(sealed('peer-2', a.relay.replica, { t: 'hello' })));
      await expect.poll(() => heard.length).toBe(1);
      const ping = framed(sealed('peer-2', a.relay.replica, { t: 'ping', p: 7 }));
      socket.write(ping);
      await expect.poll(() => heard.length).toBe(2);
      expect(open(keys, 'peer-2', heard[1] as string, new Map())).toEqual({
        from: a.relay.replica,
        frames: [{ t: 'pong', p: 7 }],
      });
      socket.write(ping);
      await closed;
      expect(heard).toHaveLength(2);
      expect(a.relay.dropped()).toMatchObject({ replayed: 1, schema: 0 });
    });
  });
});
