/**
 * Bursts on one `elicitkit serve --http`, each 2025-11-25 client calling deploy_service without an
 * environment, so each holds one question open on the server; once all are asked, every person
 * answers at once. Measured: results per second from the moment the answers go out to the last
 * result, p50/p99 answer → result, the server's CPU over that window, and that nothing is lost
 * (every call ends `done`, one deployments row each). Two bursts:
 *
 * - BENCH_BURST (1,000) people, each their own identity (a token each, issued before the server
 *   starts): ≥ 1,000 results/s, p99 ≤ 1.5 s. Only the server-wide `--max-sessions` is raised.
 * - One identity at its in-flight cap (opsdesk's default `--max-calls-per-user`, 100), every
 *   question answered at once: the last result within 0.5 s. The defaults are unchanged.
 *
 * Each client has its own connection pool (an undici `Pool`), as 1,000 people's clients would:
 * on the one global pool of this process every request scanned all 1,000+ busy connections for a
 * free one (undici's `Pool` is a linear search), which made the bench, not the server, the
 * bottleneck.
 *
 * The clients (BENCH_BURST_CLIENT): `wire` (default) is bench/support/wire-client.ts, the SDK
 * client's requests byte for byte (initialize, notifications/initialized, the standalone GET,
 * tools/call, the answer) written and read by hand, every message checked; `sdk` is the SDK's
 * `Client` on Node's fetch. The server does the same work for both; the SDK's client costs this
 * process about as much CPU per result as the server spends, so on two cores it, not the server,
 * capped the rate (bench/README.md, issue 12 part O). Both check each result the same way
 * (`checkDeployResult`): done, the deployment asked for, each call its own row.
 * BENCH_BURST_WINDOW=<file> writes the answer window (µs, the monotonic clock of `--cpu-prof`).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import BetterSqlite3 from 'better-sqlite3';
import { Agent } from 'undici';
import { serveOpsdesk } from './support/opsdesk-http.js';
import { quantile, report } from './support/stats.js';
import { openWireSession, type WireSession } from './support/wire-client.js';

const N = Number(process.env.BENCH_BURST ?? 1000);
const CONNECT_CONCURRENCY = 50;
/** `wire` (default): bench/support/wire-client.ts; `sdk`: the SDK's Client on Node's fetch. */
const CLIENT = process.env.BENCH_BURST_CLIENT === 'sdk' ? 'sdk' : 'wire';
const DEPLOY = { service: 'order-service' };
/** BENCH_BURST_SERVE=<a copy of apps/cli/dist/bundle>: another build's `serve`, to alternate builds. */
const SERVE = process.env.BENCH_BURST_SERVE ? resolve(process.env.BENCH_BURST_SERVE, 'cli.js') : undefined;

/** How one call ended: `done` only for the deploy's own result, checked field by field. */
interface Ended {
  status: 'done' | 'wrong';
  /** The deployment row's id (each call must get its own). */
  id?: number;
  why?: string;
  at: number;
}

/** The result of deploy_service to dev: done, not an error, the deployment as asked. */
export function checkDeployResult(result: unknown): Ended {
  const at = performance.now();
  const r = result as { isError?: unknown; structuredContent?: Record<string, unknown> } | undefined;
  const out = r?.structuredContent;
  const deployment = out?.deployment as Record<string, unknown> | undefined;
  if (r?.isError === true || out?.status !== 'done')
    return { status: 'wrong', why: `not done: ${JSON.stringify(result).slice(0, 200)}`, at };
  if (deployment?.service !== DEPLOY.service || deployment.env !== 'dev' || typeof deployment.id !== 'number')
    return { status: 'wrong', why: `another deployment: ${JSON.stringify(deployment)}`, at };
  return { status: 'done', id: deployment.id, at };
}

const ended = (call: Promise<unknown>): Promise<Ended> =>
  call.then(checkDeployResult, (error: unknown) => ({
    status: 'wrong',
    why: error instanceof Error ? error.message : String(error),
    at: performance.now(),
  }));

/** Why `params` is not the deploy's form question for the environment (undefined when it is). */
function wrongQuestion(params: Record<string, unknown> | undefined): string | undefined {
  const schema = params?.requestedSchema as { properties?: Record<string, unknown>; required?: unknown } | undefined;
  if ((params?.mode ?? 'form') !== 'form' || schema?.properties?.env === undefined)
    return `not the environment question: ${JSON.stringify(params).slice(0, 200)}`;
  return undefined;
}

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

/** opsdesk's default cap on one identity's calls in flight (`--max-calls-per-user`). */
const ONE_IDENTITY_CAP = 100;

export async function burst(): Promise<void> {
  await burstOf({ n: N, identities: 'distinct' });
  await burstOf({ n: ONE_IDENTITY_CAP, identities: 'one' });
}

/** `count` opsdesk identities with a token each, made in `dataDir` before the server starts. */
async function issueTokens(dataDir: string, count: number): Promise<string[]> {
  const { createOpsdesk, issueToken } = await import('@elicitkit/opsdesk');
  const opsdesk = await createOpsdesk({ dataDir, locale: 'en', identify: () => undefined });
  try {
    const tokens: string[] = [];
    for (let i = 0; i < count; i++) tokens.push(await issueToken(opsdesk.store, `person${i}`));
    return tokens;
  } finally {
    await opsdesk.close();
  }
}

async function burstOf(options: { n: number; identities: 'distinct' | 'one' }): Promise<void> {
  const N = options.n;
  const distinct = options.identities === 'distinct';
  console.log(
    `\nBurst: ${N} questions open on one serve --http${SERVE ? ` (${SERVE})` : ''}, ${distinct ? `${N} identities` : 'one identity at its cap'}, all answered at once`,
  );
  const dataDir = mkdtempSync(join(tmpdir(), 'ek-bench-burst-'));
  const tokens = distinct ? await issueTokens(dataDir, N) : [];
  const server = await serveOpsdesk(
    dataDir,
    distinct ? ['--max-sessions', String(N + 100)] : [],
    SERVE,
    distinct ? 'serving' : 'tokens',
  );
  const tokenOf = (i: number) => (distinct ? (tokens[i] ?? '') : (server.tokens.alice ?? ''));
  let release!: () => void;
  const gate = new Promise<void>((resolve) => {
    release = resolve;
  });
  let asked = 0;
  let allAsked!: () => void;
  const everyoneAsked = new Promise<void>((resolve) => {
    allAsked = resolve;
  });
  const closers: (() => Promise<unknown>)[] = [];
  const sessions: WireSession[] = [];
  const calls: Promise<Ended>[] = [];
  const question = async (params: Record<string, unknown> | undefined) => {
    const wrong = wrongQuestion(params);
    if (++asked === N) allAsked();
    await gate;
    // A question that is not the deploy's environment question is answered all the same (the
    // call then ends as it ends) and counted as wrong.
    if (wrong) questionsWrong.push(wrong);
    return { action: 'accept', content: { env: 'dev' } };
  };
  const questionsWrong: string[] = [];
  const before = deployments(dataDir);
  const overflowsBefore = listenOverflows();
  try {
    for (let i = 0; i < N; i += CONNECT_CONCURRENCY) {
      await Promise.all(
        Array.from({ length: Math.min(CONNECT_CONCURRENCY, N - i) }, async (_, j) => {
          const token = tokenOf(i + j);
          if (CLIENT === 'sdk') {
            const client = new Client({ name: 'burst', version: '1' }, { capabilities: { elicitation: { form: {} } } });
            client.setRequestHandler('elicitation/create', async (request) => {
              const answer = await question(request.params as Record<string, unknown>);
              return answer as { action: 'accept'; content: { env: string } };
            });
            const pool = new Agent();
            closers.push(() => pool.close());
            await client.connect(
              new StreamableHTTPClientTransport(new URL(server.url), {
                requestInit: { headers: { authorization: `Bearer ${token}` } },
                // Node's own fetch, given this client's pool (`dispatcher` is undici's extension).
                fetch: (url, init) => fetch(url, { ...init, dispatcher: pool } as RequestInit),
              }),
            );
            closers.unshift(() => client.close());
            calls.push(ended(client.callTool({ name: 'deploy_service', arguments: DEPLOY }, { timeout: 600_000 })));
          } else {
            const session = await openWireSession(server.url, token);
            sessions.push(session);
            closers.push(() => session.close());
            calls.push(ended(session.callTool('deploy_service', DEPLOY, question)));
          }
        }),
      );
    }
    await everyoneAsked;
    const cpu = server.cpuMs();
    const ownCpu = process.cpuUsage();
    const t0 = performance.now();
    const from = process.hrtime.bigint() / 1000n;
    release();
    const results = await Promise.all(calls);
    if (process.env.BENCH_BURST_WINDOW)
      writeFileSync(process.env.BENCH_BURST_WINDOW, `${from} ${process.hrtime.bigint() / 1000n}\n`);
    const window = (Math.max(...results.map((r) => r.at)) - t0) / 1000;
    const cpuShare = (server.cpuMs() - cpu) / 1000 / window;
    const own = process.cpuUsage(ownCpu);
    const clientShare = (own.user + own.system) / 1e6 / window;
    const latencies = results.map((r) => r.at - t0);
    const done = results.filter((r) => r.status === 'done').length;
    const ids = new Set(results.map((r) => r.id).filter((id) => id !== undefined)).size;
    const rows = deployments(dataDir) - before;
    const problems = [
      ...results.flatMap((r) => (r.why ? [r.why] : [])),
      ...questionsWrong,
      ...sessions.flatMap((s) => s.problems),
    ];
    for (const why of new Set(problems)) console.log(`  WRONG (${problems.filter((p) => p === why).length}×): ${why}`);
    const overflows = overflowsBefore === undefined ? undefined : (listenOverflows() ?? 0) - overflowsBefore;
    const rate = N / window;
    const p99 = quantile(latencies, 0.99) / 1000;
    console.log(
      `  ${CLIENT} clients: ${done}/${N} done (${ids} distinct deployment ids), ${rows} deployments written; ${rate.toFixed(0)} results/s; answer → result p50 ${(quantile(latencies, 0.5) / 1000).toFixed(2)} s, p99 ${p99.toFixed(2)} s; server CPU ${(cpuShare * 100).toFixed(0)} % of one core (${((cpuShare * window * 1000) / N).toFixed(2)} ms per result), the ${N} clients (this process) ${(clientShare * 100).toFixed(0)} % (${((clientShare * window * 1000) / N).toFixed(2)} ms per result)`,
    );
    if (overflows !== undefined)
      console.log(`  connections dropped by a full listen queue meanwhile (whole machine): ${overflows}`);
    const whole = done === N && ids === N && rows === N && problems.length === 0;
    if (distinct)
      report({
        goal: `burst of ${N} identities: ≥ 1,000 results/s, p99 ≤ 1.5 s, nothing lost`,
        figure: `${rate.toFixed(0)} results/s, p99 ${p99.toFixed(2)} s, ${done}/${N} done, ${rows} rows`,
        pass: rate >= 1000 && p99 <= 1.5 && whole,
      });
    else
      report({
        goal: `one identity's ${N} open questions (its cap), answered at once, drain ≤ 0.5 s, nothing lost`,
        figure: `${window.toFixed(2)} s to the last result (p50 ${(quantile(latencies, 0.5) / 1000).toFixed(2)} s), ${done}/${N} done, ${rows} rows`,
        pass: window <= 0.5 && whole,
      });
  } finally {
    for (const close of closers) await close().catch(() => {});
    await server.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await burst();
