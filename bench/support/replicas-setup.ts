/**
 * The deployments `replicas.ts` compares, for it and for `replicas-profile.ts`: one process
 * (memory claims) and two replicas (Redis claims and the Redis relay, one shared key) — twice: the
 * relay through Redis, and on direct connections between the replicas — each behind the test
 * balancer, and a real SDK client that answers `dev` and times answer → result.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { type AddressInfo, createConnection, createServer as createTcpServer } from 'node:net';
import { field, form } from '@elicitkit/form';
import { type ClaimStore, createElicitkit, createHttpHandler, defineTool, done } from '@elicitkit/server';
import { toNodeListener } from '@elicitkit/server/node';
import { createRedisClaimStore, createRedisRelay, type RedisRelay } from '@elicitkit/server/redis';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { Redis } from 'ioredis';
import { startRedis, type TestRedis } from '../../test/support/redis-server.js';
import { type Balancer, type Pick, startProxy } from '../../test/support/round-robin-proxy.js';

const SECRET = 'bench-replicas-shared-state-key-0123456789';

const envForm = form({
  env: field.select(
    ['dev', 'staging', 'prod'].map((e) => ({ value: e, title: e })),
    { title: 'Environment' },
  ),
});

let deployed = 0;
const deploy = defineTool({
  name: 'deploy',
  description: 'Deploy; asks for the environment.',
  forms: { env: envForm },
  async run(_args, ctx) {
    const answer = await ctx.ask('env', { message: 'Which environment should order-service be deployed to?' });
    if (answer.action !== 'accept') return answer.result();
    return ctx.commit(() => done(`Deployed to ${answer.value.env} (#${++deployed}).`));
  },
});

interface Upstream {
  url: string;
  close(): Promise<void>;
}

async function upstream(claims: ClaimStore | undefined, relay: RedisRelay | undefined): Promise<Upstream> {
  const kit = createElicitkit({ secret: SECRET, ...(claims ? { claims } : {}) });
  const handler = createHttpHandler(() => kit.createServer({ name: 'bench', version: '1' }, [deploy]), {
    ...(relay ? { sessions: relay } : {}),
  });
  await relay?.serve(handler);
  const node = toNodeListener(handler);
  const server: Server = createServer((req, res) => void node(req, res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`,
    async close() {
      await handler.close();
      server.closeAllConnections();
      server.close();
    },
  };
}

export type Revision = '2025-11-25' | '2026-07-28';

/** One call's answer → result: its wall time, and the CPU this process and Redis spent meanwhile. */
export interface Answered {
  wallMs: number;
  /** This process (every replica, the balancer and the client run in it). */
  cpuMs: number;
  /** Redis's main thread (0 for one process: it does not use Redis). */
  redisCpuMs: number;
}

export interface BenchClient {
  /** One `deploy` call; resolves with its answer → result. */
  call(): Promise<Answered>;
  close(): Promise<void>;
}

/** On-CPU time of a process's main thread, ms (`/proc/<pid>/schedstat`: nanoseconds). */
function threadCpuMs(pid: number): number {
  return Number(readFileSync(`/proc/${pid}/schedstat`, 'utf8').split(' ')[0]) / 1e6;
}

/** Redis's pid, found by the name it gives itself (`redis-server 127.0.0.1:<port>`); undefined without `/proc`. */
function redisPid(port: number): number | undefined {
  try {
    for (const entry of readdirSync('/proc')) {
      if (!/^\d+$/.test(entry)) continue;
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, 'utf8').replaceAll('\0', ' ');
      if (/redis-server\S* 127\.0\.0\.1:(\d+)/.exec(cmdline)?.[1] === String(port)) return Number(entry);
    }
  } catch {}
  return undefined;
}

const ownCpuMs = () => {
  const used = process.cpuUsage();
  return (used.user + used.system) / 1000;
};

/**
 * A connected client that answers `dev` and reports how long each answer took to become a result,
 * and the CPU spent meanwhile (`redis`: the pid whose CPU counts too).
 */
export async function connectClient(url: string, revision: Revision, redis?: number): Promise<BenchClient> {
  const client = new Client(
    { name: 'bench', version: '1' },
    {
      capabilities: { elicitation: { form: {} } },
      ...(revision === '2026-07-28' ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {}),
    },
  );
  const redisCpu = () => (redis === undefined ? 0 : threadCpuMs(redis));
  let answeredAt = 0;
  let cpuAt = 0;
  let redisAt = 0;
  client.setRequestHandler('elicitation/create', async () => {
    redisAt = redisCpu();
    cpuAt = ownCpuMs();
    answeredAt = performance.now();
    return { action: 'accept', content: { env: 'dev' } };
  });
  // Without the transport's long-lived abort signal on every request: undici leaves a listener on
  // it per request until the request is collected, thousands over a run, and each new request
  // lists them (`getEventListeners`): a client cost that grows through the run, on both sides.
  const fetchUnsignalled: typeof fetch = (input, init) => {
    const { signal: _unused, ...rest } = init ?? {};
    return fetch(input, rest);
  };
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { fetch: fetchUnsignalled }));
  return {
    async call(): Promise<Answered> {
      await client.callTool({ name: 'deploy', arguments: {} }, { timeout: 60_000 });
      const wallMs = performance.now() - answeredAt;
      return { wallMs, cpuMs: ownCpuMs() - cpuAt, redisCpuMs: redisCpu() - redisAt };
    },
    close: () => client.close(),
  };
}

export interface Deployments {
  redis: TestRedis;
  /** Redis's pid, when `/proc` shows it (for its CPU). */
  redisPid: number | undefined;
  /** The relays of the replicas (their drop counters, in flight). */
  relays: RedisRelay[];
  /**
   * The balancer's URL for each side of a revision's comparison; `direct`: the two replicas whose
   * relay runs on direct connections (2025 only: 2026 rounds relay nothing).
   */
  url(side: 'one' | 'two', revision: Revision, direct?: boolean): string;
  /**
   * Before connecting a 2025 client to the two replicas: its session opens on the first replica,
   * and every request after its initialize goes to the second.
   */
  resetLegacyRouting(): void;
  /**
   * What Redis alone adds to one answer on the two replicas, in ms, with nothing of ours around
   * it: for 2025-11-25 the answer's two hops (a PUBLISH to the holder's channel, and on its
   * arrival a PUBLISH back, payloads the size of the sealed request and of the batched reply), for
   * 2026-07-28 the final round's three claim calls (read, claim, complete) on the Redis claim store.
   */
  redisFloor(revision: Revision): Promise<number>;
  /** The same two hops as the 2025 floor on a TCP connection in this process, no Redis between. */
  directFloor(): Promise<number>;
  close(): Promise<void>;
}

/** Starts Redis, the two replicas, the single process and their balancers. */
export async function startDeployments(): Promise<Deployments> {
  const redis = await startRedis();
  const connections: Redis[] = [];
  const connect = () => {
    const c = new Redis(redis.url);
    connections.push(c);
    return c;
  };
  // Sealed with one shared secret, as replicas of one deployment are.
  const secret = 'bench-replicas-secret-0123456789abcdef0123';
  const relays = [
    createRedisRelay(connect(), { secret }),
    createRedisRelay(connect(), { secret }),
    createRedisRelay(connect(), { secret, direct: {} }),
    createRedisRelay(connect(), { secret, direct: {} }),
  ];
  // The bench's Redis keeps nothing (it measures the relay): its claims are volatile by choice.
  const claims = () => createRedisClaimStore(connect(), { volatile: true });
  const replicas = [await upstream(claims(), relays[0]), await upstream(claims(), relays[1])];
  const directReplicas = [await upstream(claims(), relays[2]), await upstream(claims(), relays[3])];
  const single = await upstream(undefined, undefined);
  // The floor's own connections and channels, beside the replicas' (same Redis, same sizes).
  const floorStore = createRedisClaimStore(connect(), { volatile: true, prefix: 'bench-floor:' });
  const [toHolder, toRequester, holderSub, requesterSub] = [connect(), connect(), connect(), connect()];
  await holderSub.subscribe('bench-floor:holder');
  await requesterSub.subscribe('bench-floor:requester');
  const request = 'r'.repeat(900);
  const reply = 'b'.repeat(1_100);
  let back: (() => void) | undefined;
  holderSub.on('message', () => void toRequester.publish('bench-floor:requester', reply));
  requesterSub.on('message', () => back?.());
  let floorId = 0;
  const redisFloor = async (revision: Revision): Promise<number> => {
    const started = performance.now();
    if (revision === '2025-11-25') {
      await new Promise<void>((resolve) => {
        back = resolve;
        void toHolder.publish('bench-floor:holder', request);
      });
    } else {
      const id = `floor-${++floorId}`;
      await floorStore.read(id);
      await floorStore.claim(id, 'bench', { leaseMs: 30_000, ttlMs: 60_000 });
      await floorStore.complete(id, 'bench', '{"content":[]}');
    }
    return performance.now() - started;
  };
  // A raw TCP round trip of the same sizes, for the direct relay's floor.
  const echo = createTcpServer((socket) => {
    socket.setNoDelay(true);
    let got = 0;
    socket.on('data', (d) => {
      got += d.length;
      if (got < request.length) return;
      got = 0;
      socket.write(reply);
    });
  });
  await new Promise<void>((resolve) => echo.listen(0, '127.0.0.1', resolve));
  const hop = createConnection((echo.address() as AddressInfo).port, '127.0.0.1');
  hop.setNoDelay(true);
  await new Promise((resolve) => hop.once('connect', resolve));
  let heard = 0;
  let answered: (() => void) | undefined;
  hop.on('data', (d) => {
    heard += d.length;
    if (heard < reply.length) return;
    heard = 0;
    answered?.();
  });
  const directFloor = async (): Promise<number> => {
    const started = performance.now();
    await new Promise<void>((resolve) => {
      answered = resolve;
      hop.write(request);
    });
    return performance.now() - started;
  };
  const opened = [false, false];
  const legacyPick =
    (which: number): Pick =>
    async (req) => {
      if (!opened[which] && req.method === 'POST' && !req.headers['mcp-session-id']) return 0;
      opened[which] = true;
      return 1;
    };
  const balancers: Record<'single' | 'direct' | Revision, Balancer> = {
    single: await startProxy([single.url]),
    '2025-11-25': await startProxy(
      replicas.map((r) => r.url),
      legacyPick(0),
    ),
    direct: await startProxy(
      directReplicas.map((r) => r.url),
      legacyPick(1),
    ),
    '2026-07-28': await startProxy(replicas.map((r) => r.url)),
  };
  return {
    redis,
    redisPid: redisPid(redis.port),
    relays: relays as RedisRelay[],
    url: (side, revision, direct) =>
      side === 'one' ? balancers.single.url : balancers[direct ? 'direct' : revision].url,
    resetLegacyRouting: () => {
      opened.fill(false);
    },
    redisFloor,
    directFloor,
    async close() {
      for (const balancer of Object.values(balancers)) await balancer.close();
      hop.destroy();
      await new Promise((resolve) => echo.close(resolve));
      for (const u of [...replicas, ...directReplicas, single]) await u.close();
      for (const relay of relays) await relay?.close();
      for (const c of connections) c.disconnect();
      await redis.stop();
    },
  };
}
