/**
 * What does a second replica cost a person's answer?
 *
 * Answer → result: the time from the client handing its answer to the SDK to the tool's result
 * arriving, for a one-question tool whose effect is committed. Two deployments, both behind the
 * same tiny HTTP balancer (test/support/round-robin-proxy.ts), driven by real SDK clients:
 *
 * - one process: one `createHttpHandler`, memory claims, no Redis;
 * - two replicas: two handlers (own kit, own Redis connections, one shared key), Redis claims and
 *   the Redis relay. On 2025-11-25 the session lives on the first and every later request goes to
 *   the second (the answer and the result are relayed both ways); on 2026-07-28 the rounds
 *   alternate between them.
 *
 * Pairs are interleaved (one call on each, order alternating), with a macrotask yield between
 * calls; the verdict (PASS at ≤ 1.5) is the median of the per-pair ratios, and the ratio of the
 * medians is printed beside it. Both deployments run in
 * this process (so the replicas share one event loop: the figure counts Redis and the relay, not
 * a second core). It runs the built packages (`dist/`); `npm run bench:replicas` builds first.
 *
 *   npm run bench:replicas                   # 300 pairs per revision
 *   BENCH_PAIRS=100 npm run bench:replicas   # quicker
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { field, form } from '@elicitkit/form';
import { type ClaimStore, createElicitkit, createHttpHandler, defineTool, done } from '@elicitkit/server';
import { toNodeListener } from '@elicitkit/server/node';
import { createRedisClaimStore, createRedisRelay, type RedisRelay } from '@elicitkit/server/redis';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { Redis } from 'ioredis';
import { startRedis } from '../test/support/redis-server.js';
import { type Pick, startProxy } from '../test/support/round-robin-proxy.js';

const PAIRS = Number(process.env.BENCH_PAIRS ?? 300);
const WARMUP = 20;
const LIMIT = 1.5;
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

type Revision = '2025-11-25' | '2026-07-28';

/** A connected client that answers `dev` and reports how long each answer took to become a result. */
async function connectClient(url: string, revision: Revision) {
  const client = new Client(
    { name: 'bench', version: '1' },
    {
      capabilities: { elicitation: { form: {} } },
      ...(revision === '2026-07-28' ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {}),
    },
  );
  let answeredAt = 0;
  client.setRequestHandler('elicitation/create', async () => {
    answeredAt = performance.now();
    return { action: 'accept', content: { env: 'dev' } };
  });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  return {
    async call(): Promise<number> {
      await client.callTool({ name: 'deploy', arguments: {} }, { timeout: 60_000 });
      return performance.now() - answeredAt;
    },
    close: () => client.close(),
  };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;
const tick = () => new Promise((resolve) => setImmediate(resolve));

async function main(): Promise<void> {
  const redisServer = await startRedis();
  const connections: Redis[] = [];
  const connect = () => {
    const c = new Redis(redisServer.url);
    connections.push(c);
    return c;
  };
  // Sealed with one shared secret, as replicas of one deployment are.
  const secret = 'bench-replicas-secret-0123456789abcdef0123';
  const relays = [createRedisRelay(connect(), { secret }), createRedisRelay(connect(), { secret })];
  const replicas = [
    // The bench's Redis keeps nothing (it measures the relay): its claims are volatile by choice.
    await upstream(createRedisClaimStore(connect(), { volatile: true }), relays[0]),
    await upstream(createRedisClaimStore(connect(), { volatile: true }), relays[1]),
  ];
  const single = await upstream(undefined, undefined);
  // Sessions open on the first replica; everything after the initialize goes to the second.
  let opened = false;
  const legacyPick: Pick = async (req) => {
    if (!opened && req.method === 'POST' && !req.headers['mcp-session-id']) return 0;
    opened = true;
    return 1;
  };
  const balancers = {
    single: await startProxy([single.url]),
    '2025-11-25': await startProxy(
      replicas.map((r) => r.url),
      legacyPick,
    ),
    '2026-07-28': await startProxy(replicas.map((r) => r.url)),
  };

  console.log(`answer → result, one process vs two replicas (Redis claims + relay), ${PAIRS} interleaved pairs`);
  let pass = true;
  for (const revision of ['2025-11-25', '2026-07-28'] as const) {
    opened = false;
    const one = await connectClient(balancers.single.url, revision);
    const two = await connectClient(balancers[revision].url, revision);
    const ratios: number[] = [];
    const times = { one: [] as number[], two: [] as number[] };
    for (let i = 0; i < WARMUP + PAIRS; i++) {
      // Alternate which goes first, so neither always runs on a warmer loop.
      const first = i % 2 === 0 ? one : two;
      const second = first === one ? two : one;
      const a = await first.call();
      await tick();
      const b = await second.call();
      await tick();
      if (i < WARMUP) continue;
      const [t1, t2] = first === one ? [a, b] : [b, a];
      times.one.push(t1);
      times.two.push(t2);
      ratios.push(t2 / t1);
    }
    await one.close();
    await two.close();
    // The verdict is the median of the per-pair ratios (pairing cancels the machine's drift); the
    // ratio of the medians is printed beside it, since a heavier tail on one side shows there.
    const ratio = median(ratios);
    const ofMedians = median(times.two) / median(times.one);
    const ok = ratio <= LIMIT;
    pass &&= ok;
    console.log(
      `  ${revision}: one process ${median(times.one).toFixed(2)} ms, two replicas ${median(times.two).toFixed(2)} ms` +
        ` — ratio ${ratio.toFixed(2)} ${ok ? 'PASS' : 'FAIL'} (≤ ${LIMIT}; ratio of the medians ${ofMedians.toFixed(2)})`,
    );
  }

  for (const balancer of Object.values(balancers)) await balancer.close();
  for (const u of [...replicas, single]) await u.close();
  for (const relay of relays) await relay.close();
  for (const c of connections) c.disconnect();
  await redisServer.stop();
  process.exitCode = pass ? 0 : 1;
}

await main();
