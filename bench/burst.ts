/**
 * A burst on one `elicitkit serve --http`: BENCH_BURST (1,000) 2025-11-25 clients each call
 * deploy_service without an environment, so each holds one question open on the server; once all
 * are asked, every person answers at once. Measured: results per second from the moment the
 * answers go out to the last result, p50/p99 answer → result, the server's CPU over that window,
 * and that nothing is lost (every call ends `done`, one deployments row each).
 *
 * The burst is one identity (alice), so the bench raises opsdesk's per-identity caps explicitly
 * (`--max-sessions-per-user`, `--max-calls-per-user`, `--max-sessions`): the defaults (100, 100,
 * 1000) are meant to stop one identity holding the whole server, which is what a burst does.
 *
 * Each client has its own connection pool (an undici `Agent`), as 1,000 people's clients would:
 * on the one global pool of this process every request scanned all 1,000+ busy connections for a
 * free one (undici's `Pool` is a linear search), which made the bench, not the server, the
 * bottleneck.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import BetterSqlite3 from 'better-sqlite3';
import { Agent } from 'undici';
import { serveOpsdesk } from './support/opsdesk-http.js';
import { quantile, report } from './support/stats.js';

const N = Number(process.env.BENCH_BURST ?? 1000);
const CONNECT_CONCURRENCY = 50;

function deployments(dataDir: string): number {
  const db = new BetterSqlite3(join(dataDir, 'opsdesk.db'), { readonly: true });
  try {
    return db.prepare('SELECT COUNT(*) FROM deployments').pluck().get() as number;
  } finally {
    db.close();
  }
}

/**
 * The kernel's count of connections dropped because a listen queue was full (Linux, all sockets:
 * other processes' overflows count too). Each one costs the client a SYN retransmit, 1 s.
 */
function listenOverflows(): number | undefined {
  try {
    const lines = readFileSync('/proc/net/netstat', 'utf8').split('\n');
    const names = lines.find((l) => l.startsWith('TcpExt:'))?.split(' ') ?? [];
    const values = lines.filter((l) => l.startsWith('TcpExt:'))[1]?.split(' ') ?? [];
    const at = names.indexOf('ListenOverflows');
    return at < 0 ? undefined : Number(values[at]);
  } catch {
    return undefined;
  }
}

export async function burst(): Promise<void> {
  console.log(`\nBurst: ${N} questions open on one serve --http, all answered at once`);
  const dataDir = mkdtempSync(join(tmpdir(), 'ek-bench-burst-'));
  const caps = String(N);
  const server = await serveOpsdesk(dataDir, [
    '--max-sessions',
    String(N + 100),
    '--max-sessions-per-user',
    caps,
    '--max-calls-per-user',
    caps,
  ]);
  const token = server.tokens.alice ?? '';
  let release!: () => void;
  const gate = new Promise<void>((resolve) => {
    release = resolve;
  });
  let asked = 0;
  let allAsked!: () => void;
  const everyoneAsked = new Promise<void>((resolve) => {
    allAsked = resolve;
  });
  const clients: Client[] = [];
  const pools: Agent[] = [];
  const calls: Promise<{ status: string | undefined; at: number }>[] = [];
  const before = deployments(dataDir);
  const overflowsBefore = listenOverflows();
  try {
    for (let i = 0; i < N; i += CONNECT_CONCURRENCY) {
      await Promise.all(
        Array.from({ length: Math.min(CONNECT_CONCURRENCY, N - i) }, async () => {
          const client = new Client({ name: 'burst', version: '1' }, { capabilities: { elicitation: { form: {} } } });
          client.setRequestHandler('elicitation/create', async () => {
            if (++asked === N) allAsked();
            await gate;
            return { action: 'accept', content: { env: 'dev' } };
          });
          const pool = new Agent();
          pools.push(pool);
          await client.connect(
            new StreamableHTTPClientTransport(new URL(server.url), {
              requestInit: { headers: { authorization: `Bearer ${token}` } },
              // Node's own fetch, given this client's pool (`dispatcher` is undici's extension).
              fetch: (url, init) => fetch(url, { ...init, dispatcher: pool } as RequestInit),
            }),
          );
          clients.push(client);
          calls.push(
            client
              .callTool({ name: 'deploy_service', arguments: { service: 'order-service' } }, { timeout: 600_000 })
              .then((r) => ({
                status: (r.structuredContent as { status?: string } | undefined)?.status,
                at: performance.now(),
              })),
          );
        }),
      );
    }
    await everyoneAsked;
    const cpu = server.cpuMs();
    const ownCpu = process.cpuUsage();
    const t0 = performance.now();
    release();
    const results = await Promise.all(calls);
    const window = (Math.max(...results.map((r) => r.at)) - t0) / 1000;
    const cpuShare = (server.cpuMs() - cpu) / 1000 / window;
    const own = process.cpuUsage(ownCpu);
    const clientShare = (own.user + own.system) / 1e6 / window;
    const latencies = results.map((r) => r.at - t0);
    const done = results.filter((r) => r.status === 'done').length;
    const rows = deployments(dataDir) - before;
    const overflows = overflowsBefore === undefined ? undefined : (listenOverflows() ?? 0) - overflowsBefore;
    const rate = N / window;
    const p99 = quantile(latencies, 0.99) / 1000;
    console.log(
      `  ${done}/${N} done, ${rows} deployments written; ${rate.toFixed(0)} results/s; answer → result p50 ${(quantile(latencies, 0.5) / 1000).toFixed(2)} s, p99 ${p99.toFixed(2)} s; server CPU ${(cpuShare * 100).toFixed(0)} % of one core (${((cpuShare * window * 1000) / N).toFixed(2)} ms per result), the ${N} clients (this process) ${(clientShare * 100).toFixed(0)} % (${((clientShare * window * 1000) / N).toFixed(2)} ms per result)`,
    );
    if (overflows !== undefined)
      console.log(`  connections dropped by a full listen queue meanwhile (whole machine): ${overflows}`);
    report({
      goal: `burst of ${N}: ≥ 1,000 results/s, p99 ≤ 1.5 s, nothing lost`,
      figure: `${rate.toFixed(0)} results/s, p99 ${p99.toFixed(2)} s, ${done}/${N} done, ${rows} rows`,
      pass: rate >= 1000 && p99 <= 1.5 && done === N && rows === N,
    });
  } finally {
    await Promise.all(clients.map((c) => c.close().catch(() => {})));
    await Promise.all(pools.map((p) => p.close().catch(() => {})));
    await server.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await burst();
