/**
 * A direct connection's liveness (`link-liveness.test.ts`) must never take a live peer for dead.
 * The peer is judged on its silence on the connection, over time this replica was listening —
 * not on one `pong`'s lateness:
 *
 * - a `pong` queued behind a long message on a slow network (a large response coming back, or a
 *   large request going out, the other end waiting on a call or on nothing at all) is late, but
 *   the bytes of that message are the peer's word: they keep it alive;
 * - a replica whose own event loop was blocked longer than the bound (a long GC, sync work) wakes
 *   to timers fired late, run before it reads what came meanwhile: the peer is judged only after
 *   that is read, and never on a timer that fired far late — asked again, it is given its time
 *   again. Redis's answers too: one that came meanwhile is no timeout (`claims/bounded.ts`).
 *
 * Two real replicas on a real redis-server, a real SDK client through a balancer, the holder's
 * direct port behind a proxy that carries each way at a set rate (a slow network) and can tap
 * what goes up.
 */
import { createConnection, createServer, type Server, type Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import { withRedis } from '../../../../test/support/redis-server.js';
import { startProxy } from '../../../../test/support/round-robin-proxy.js';
import { legacySession, sseMessages } from '../../../../test/support/sse.js';
import { httpTransport, patientClient, startDeploy } from '../../test/loopback.js';
import { freePort, type Replica, relayHarness, untilDirect } from '../../test/relay-harness.js';
import { Link } from './direct.js';
import { type Frame, frameKey, open } from './frames.js';

const REDIS = withRedis('relay/link-live-peer.test.ts');
const SECRET = 'relay-link-live-peer-secret-0123456789abcdef';
const keys = frameKey(SECRET);

/** Each end's options: pinged every 100 ms (the harness's `livenessMs`), a bound of 1.1 s. */
const TIMEOUT_MS = 1_000;
const BOUND_MS = TIMEOUT_MS + 100;
/** The slow network's rate, bytes a second: a few MB take several bounds to cross. */
const RATE = 1024 * 1024;

type Way = 'up' | 'down';

/**
 * A TCP proxy in front of a holder's direct port (`port`), advertised in its place: what goes
 * `up` (from the requester) or `down` (from the holder) is carried at `rate[way]` bytes a second
 * once set (in order, nothing lost), and `tap`, when set, sees each whole message going up before
 * it is carried (it may block the loop: everything runs in this process).
 */
async function slowLink(port: number) {
  const rate: Record<Way, number> = { up: Number.POSITIVE_INFINITY, down: Number.POSITIVE_INFINITY };
  const carried: Record<Way, number> = { up: 0, down: 0 };
  const state: { tap?: ((message: string) => void) | undefined } = {};
  const sockets = new Set<Socket>();
  let accepted = 0;
  const timers = new Set<ReturnType<typeof setInterval>>();
  const server: Server = createServer((requester) => {
    accepted++;
    const holder = createConnection({ host: '127.0.0.1', port });
    for (const s of [requester, holder]) {
      sockets.add(s);
      s.on('error', () => {});
    }
    const carry = (way: Way, from: Socket, to: Socket) => {
      const queue: Buffer[] = [];
      // Whole messages going up, for the tap: a 4-byte length, then the bytes.
      let pending = Buffer.alloc(0);
      const pump = setInterval(() => {
        let budget = rate[way] === Number.POSITIVE_INFINITY ? Number.POSITIVE_INFINITY : rate[way] / 50;
        while (budget > 0 && queue.length > 0) {
          const chunk = queue[0] as Buffer;
          const n = Math.min(chunk.length, budget);
          if (!to.destroyed) to.write(chunk.subarray(0, n));
          carried[way] += n;
          budget -= n;
          if (n === chunk.length) queue.shift();
          else queue[0] = chunk.subarray(n);
        }
      }, 20);
      timers.add(pump);
      from.on('data', (chunk: Buffer) => {
        if (way === 'up' && state.tap) {
          pending = Buffer.concat([pending, chunk]);
          while (pending.length >= 4 && pending.length >= 4 + pending.readUInt32BE(0)) {
            const length = pending.readUInt32BE(0);
            state.tap(pending.toString('utf8', 4, 4 + length));
            pending = pending.subarray(4 + length);
          }
        }
        if (rate[way] === Number.POSITIVE_INFINITY && queue.length === 0) {
          carried[way] += chunk.length;
          to.write(chunk);
        } else queue.push(chunk);
      });
      from.on('close', () => {
        clearInterval(pump);
        to.destroy();
      });
    };
    carry('up', requester, holder);
    carry('down', holder, requester);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    address: `127.0.0.1:${(server.address() as { port: number }).port}`,
    rate,
    carried,
    state,
    /** How many connections it took (one, unless the first was closed). */
    accepted: () => accepted,
    close: async () => {
      for (const timer of timers) clearInterval(timer);
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** The frames of `message`, opened as `to` would (not taken: a fresh set of nonces). */
function framesOf(message: string, to: string): Frame[] {
  const opened = open(keys, to, message, new Map());
  return 'frames' in opened ? opened.frames : [];
}

/** Blocks this process's event loop (every replica here, the proxy, the client) for `ms`. */
function blockLoop(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until) {
    // Sync work: nothing else runs.
  }
}

/** Whether `call` has ended yet, as a function to poll. */
function endedFlag(call: Promise<unknown>): () => boolean {
  let ended = false;
  void call.then(
    () => {
      ended = true;
    },
    () => {
      ended = true;
    },
  );
  return () => ended;
}

/** How many commands `r`'s Redis connection has sent and not had answered yet. */
function redisInFlight(r: Replica): number {
  return (r.redis as unknown as { commandQueue: { length: number } }).commandQueue.length;
}

describe('a Link judges its peer only once it has read what came', () => {
  it('its time up while this process was blocked, what the peer sent meanwhile is read before the peer is judged', async () => {
    let link!: Link;
    const server = createServer((socket) => {
      // No ping but the first in the way (one a minute); the peer has 200 ms to be heard from.
      link = new Link(socket, true, () => {}, undefined, {
        everyMs: 60_000,
        withinMs: 200,
        ping: (_, p) => `ping ${p}`,
      });
      link.peer = 'peer';
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const raw = createConnection({ host: '127.0.0.1', port: (server.address() as { port: number }).port });
    raw.on('error', () => {});
    await new Promise((resolve) => raw.once('connect', resolve));
    await expect.poll(() => link).toBeDefined();
    link.answering();
    link.use();
    const read = new Promise((resolve) => link.socket.once('data', resolve));
    const closed = new Promise<void>((resolve) => link.closing(resolve));
    // The peer speaks (part of a message) at once; this process, blocked, reads it only once its
    // timers — the peer's, due meanwhile, a little late — have run.
    raw.write(Buffer.from([0, 0, 0, 5, 1]));
    blockLoop(300);
    await Promise.race([read, closed]);
    // Once what is due in this turn ran (the judgement goes first).
    await new Promise((resolve) => setImmediate(resolve));
    expect(link.open).toBe(true);
    raw.destroy();
    link.close();
    await new Promise((resolve) => server.close(resolve));
  });
});

describe.skipIf(!REDIS)('a direct connection never takes a live peer for dead', () => {
  const { h, replica, closeAll } = relayHarness(SECRET);

  /**
   * Holder `a` (its direct port behind a slow link), requester `b`, a balancer — initialize to a,
   * the rest to b — and alice's client on the direct connection, whose person answers `dev` once
   * `release` is called; `listing` deployments at a.
   */
  const linked = async (prefix: string, listing = 0) => {
    const port = await freePort();
    const link = await slowLink(port);
    h.cleanups.push(link.close);
    const a = await replica(prefix, { timeoutMs: TIMEOUT_MS, direct: { port, advertise: link.address } });
    const b = await replica(prefix, { timeoutMs: TIMEOUT_MS, direct: {} });
    h.proxy = await startProxy([a.serving.url, b.serving.url], (_req, n) => (n === 0 ? 0 : 1));
    let release!: () => void;
    const { client, asked } = patientClient('slow', {
      content: { env: 'dev' },
      release: new Promise<void>((resolve) => {
        release = resolve;
      }),
    });
    h.clients.push(client);
    await client.connect(httpTransport(h.proxy.url, 'alice'));
    await untilDirect(client, a);
    for (let i = 0; i < listing; i++) a.serving.store.deployments.push({ service: `service-${i}`, env: 'staging' });
    return { a, b, link, client, asked, release };
  };

  /** The deploy call ended done, deployed once at the holder, on the one connection it had. */
  const deployed = async (a: Replica, call: Promise<unknown>, link: { accepted: () => number }) => {
    expect(await call).toMatchObject({ structuredContent: { status: 'done', deployment: { env: 'dev' } } });
    expect(a.serving.store.deployments).toEqual([{ service: 'order-service', env: 'dev' }]);
    expect(link.accepted()).toBe(1);
  };

  it('a connection lost under a waiting call: once the replicas close, nothing of theirs holds the process open (a replica told to stop exits)', async () => {
    // Timers keeping this process alive. Was: the requester, waiting up to a heartbeat's lapse
    // (30 s) for the holder to be sure to drop the call, kept that timer; `elicitkit serve` took
    // 30 s to exit on SIGTERM after a holder was killed.
    const timers = () => process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;
    const before = timers();
    const { link, client, asked } = await linked('lostthenclosed:');
    const call = startDeploy(client).catch((error: unknown) => error);
    await asked;
    await link.close();
    expect(await call).toBeInstanceOf(Error);
    await closeAll();
    await expect.poll(timers, { timeout: 5_000 }).toBeLessThanOrEqual(before);
  });

  it('a large response on a slow network, every pong behind it for several bounds, arrives whole', async () => {
    const { link, client } = await linked('slowdown:', 20_000);
    link.rate.down = RATE;
    const before = link.carried.down;
    const result = await client
      .callTool({ name: 'deployments', arguments: {} }, { timeout: 60_000 })
      .catch((error: unknown) => error);
    expect(result).not.toBeInstanceOf(Error);
    expect((result as { structuredContent: { deployments: unknown[] } }).structuredContent.deployments).toHaveLength(
      20_000,
    );
    // It took several bounds to cross at that rate: b's pongs waited behind it that long.
    expect(link.carried.down - before).toBeGreaterThan((3 * RATE * BOUND_MS) / 1_000);
    expect(link.accepted()).toBe(1);
  });

  /** About 4 MB sealed, in one message: several bounds at `RATE`. */
  const PAD = 'x'.repeat(3 * 1024 * 1024);

  it('a large request on a slow network while the holder holds a call on the connection: it runs, and the call goes on', async () => {
    const { a, link, client, asked, release } = await linked('slowupheld:');
    const call = startDeploy(client);
    await asked;
    link.rate.up = RATE;
    const before = link.carried.up;
    // Every pong of b's, to the pings of a holding the call, waits behind it.
    const big = await client
      .callTool({ name: 'deployments', arguments: { pad: PAD } }, { timeout: 60_000 })
      .catch((error: unknown) => error);
    expect(big).toMatchObject({ structuredContent: { deployments: [] } });
    expect(link.carried.up - before).toBeGreaterThan((3 * RATE * BOUND_MS) / 1_000);
    link.rate.up = Number.POSITIVE_INFINITY;
    release();
    await deployed(a, call, link);
  });

  it('a large request on a slow network, the first thing on its connection and alone on it (a client keeping no stream open): it runs', async () => {
    const prefix = 'slowupalone:';
    const port = await freePort();
    const link = await slowLink(port);
    h.cleanups.push(link.close);
    const a = await replica(prefix, { timeoutMs: TIMEOUT_MS, direct: { port, advertise: link.address } });
    const b = await replica(prefix, { timeoutMs: TIMEOUT_MS, direct: {} });
    h.proxy = await startProxy([a.serving.url, b.serving.url], (_req, n) => (n === 0 ? 0 : 1));
    // initialize at a; notifications/initialized relayed by b through Redis, starting the connection.
    const { post } = await legacySession(h.proxy.url, { authorization: 'Bearer alice' });
    await expect.poll(() => link.carried.down).toBeGreaterThan(0);
    expect(a.relay.inFlight() + b.relay.inFlight()).toBe(0);
    link.rate.up = RATE;
    const before = link.carried.up;
    // b's pings wait behind it, and a holds nothing: only it, hearing the message come, can speak.
    const response = await post({
      id: 1,
      method: 'tools/call',
      params: { name: 'deployments', arguments: { pad: PAD } },
    });
    expect(response.status).toBe(200);
    const answer = response.headers.get('content-type')?.startsWith('text/event-stream')
      ? await sseMessages(response).next()
      : await response.json();
    expect(answer).toMatchObject({ id: 1, result: { structuredContent: { deployments: [] } } });
    expect(link.carried.up - before).toBeGreaterThan((3 * RATE * BOUND_MS) / 1_000);
    expect(link.accepted()).toBe(1);
  });

  it('a replica whose loop was blocked longer than the bound, its ping awaited, takes not its peer for dead on waking', async () => {
    const { a, b, link, client, asked, release } = await linked('blocked:');
    const call = startDeploy(client);
    await asked;
    // At one of b's pings going up (so it is awaited), with no question to Redis of either
    // replica's in flight, the whole process stops for longer than the bound: every timer due
    // meanwhile fires late, before the loop reads what came while it was blocked.
    let blocked = false;
    let after = 0;
    link.state.tap = (message) => {
      if (!framesOf(message, a.relay.replica).some((f) => f.t === 'ping')) return;
      if (blocked) after++;
      else if (redisInFlight(a) === 0 && redisInFlight(b) === 0) {
        blocked = true;
        blockLoop(BOUND_MS + 500);
      }
    };
    const ended = endedFlag(call);
    // Woken, b goes on pinging on that connection, and the call is still there to answer.
    await expect.poll(() => after >= 3 || ended(), { timeout: 20_000 }).toBe(true);
    link.state.tap = undefined;
    expect(ended(), 'the call ended while its question was open').toBe(false);
    release();
    await deployed(a, call, link);
  });

  it('a replica whose loop was blocked longer than the bound, its ping awaited and its own question to Redis in flight, takes neither its peer nor Redis for dead on waking', async () => {
    const { a, b, link, client, asked, release } = await linked('blockedredis:');
    const call = startDeploy(client);
    await asked;
    // b, requesting on a direct connection, asks Redis every `livenessMs` whether a still beats
    // (EXISTS). Made to coincide, not waited for: b's ping going up is held in the link (awaited,
    // unanswered), and the moment b's next beat question is written the whole process stops for
    // longer than the bound and than Redis is given to answer (`timeoutMs`). Redis answers
    // meanwhile; every timer due fires late, before the loop reads that answer.
    let holding = false;
    let armed = false;
    let blocked = false;
    let after = 0;
    const exists = b.redis.exists.bind(b.redis) as (...args: unknown[]) => Promise<number>;
    (b.redis as { exists: unknown }).exists = (...args: unknown[]) => {
      const asking = exists(...args);
      if (holding && !blocked && !armed) {
        armed = true;
        // After this turn's sockets were read (the loop's check phase): the caller has set its
        // bound on the answer by then, and the timers go first once the loop wakes. Were the answer
        // read already, the ping goes on and the next one is held for the next question.
        setImmediate(() => {
          armed = false;
          if (redisInFlight(b) > 0) {
            blocked = true;
            blockLoop(BOUND_MS + 500);
          }
          holding = false;
          link.rate.up = Number.POSITIVE_INFINITY;
        });
      }
      return asking;
    };
    h.cleanups.push(async () => {
      (b.redis as { exists: unknown }).exists = exists;
    });
    link.state.tap = (message) => {
      if (!framesOf(message, a.relay.replica).some((f) => f.t === 'ping')) return;
      if (blocked) after++;
      else if (!holding) {
        holding = true;
        link.rate.up = 0;
      }
    };
    const ended = endedFlag(call);
    await expect.poll(() => after >= 3 || ended(), { timeout: 20_000 }).toBe(true);
    link.state.tap = undefined;
    expect(ended(), 'the call ended while its question was open').toBe(false);
    release();
    await deployed(a, call, link);
  });
});
