/**
 * Before/after for the burst (bench/burst.ts) under the same load: several builds of `serve`
 * (copies of `apps/cli/dist/bundle`, as bench/http-builds.ts takes them) each serve an equal share
 * of one burst at the same time. Every client is burst.ts's hand-written 2025-11-25 client
 * (support/wire-client.ts) calling deploy_service without an environment; sessions are opened
 * alternating between the servers, and once every question on every server is open all of them
 * are answered at once. Per build and round: the server's CPU per result over the answer window
 * (every thread's /proc schedstat), and that nothing was lost (each call `done`, its own
 * deployment id, one new row each). Both servers run through the same seconds on the same two
 * cores, so load from elsewhere lands on both alike; the burst's own line (one server, 1,000
 * clients) cannot tell a few per cent apart on a shared machine — its CPU per result moves ±20 %
 * from run to run.
 *
 *   cp -r apps/cli/dist/bundle apps/cli/dist/b-before   # on the old build, then rebuild
 *   cp -r apps/cli/dist/bundle apps/cli/dist/b-after
 *   node --import tsx bench/burst-builds.ts apps/cli/dist/b-before apps/cli/dist/b-after
 *   BENCH_BURST_BUILDS_CLIENTS=500 (per build), BENCH_BURST_BUILDS_ROUNDS=5
 *   A build given as `<dir>::<node flags>` (space-separated) runs with those Node flags.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { checkDeployResult } from './burst.js';
import { type ServedOpsdesk, serveOpsdesk } from './support/opsdesk-http.js';
import { p50 } from './support/stats.js';
import { openWireSession, type WireSession } from './support/wire-client.js';

const PER_BUILD = Number(process.env.BENCH_BURST_BUILDS_CLIENTS ?? 500);
const ROUNDS = Number(process.env.BENCH_BURST_BUILDS_ROUNDS ?? 5);
const CONNECT_CONCURRENCY = 50;
const DEPLOY = { service: 'order-service' };

/** CPU time of every thread of `pid` so far, ms, at the kernel's ns resolution. */
function threadsCpuMs(pid: number): number {
  let ns = 0;
  for (const task of readdirSync(`/proc/${pid}/task`)) {
    try {
      ns += Number(readFileSync(`/proc/${pid}/task/${task}/schedstat`, 'utf8').split(' ')[0]);
    } catch {
      // A thread that ended between the listing and the read.
    }
  }
  return ns / 1e6;
}

function rows(dataDir: string): number {
  const db = new BetterSqlite3(join(dataDir, 'opsdesk.db'), { readonly: true });
  try {
    return db.prepare('SELECT COUNT(*) FROM deployments').pluck().get() as number;
  } finally {
    db.close();
  }
}

interface Build {
  name: string;
  cli: string;
  nodeArgs: string[];
}

interface Side {
  build: Build;
  server: ServedOpsdesk;
  dataDir: string;
  sessions: WireSession[];
  calls: Promise<ReturnType<typeof checkDeployResult>>[];
  rowsBefore: number;
}

async function round(builds: Build[], index: number): Promise<{ cpu: number[]; wrong: string[] }> {
  const caps = String(PER_BUILD);
  const sides: Side[] = [];
  // Started in a rotating order, so no build always gets the first process of a round.
  const order = builds.map((_, i) => (i + index) % builds.length);
  const started: Side[] = [];
  for (const i of order) {
    const build = builds[i] as Build;
    const dataDir = mkdtempSync(join(tmpdir(), 'ek-bench-burst-builds-'));
    const previous = process.env.BENCH_SERVER_NODE_ARGS;
    process.env.BENCH_SERVER_NODE_ARGS = build.nodeArgs.join(' ');
    const server = await serveOpsdesk(
      dataDir,
      ['--max-sessions', String(PER_BUILD + 100), '--max-sessions-per-user', caps, '--max-calls-per-user', caps],
      build.cli,
    ).finally(() => {
      if (previous === undefined) delete process.env.BENCH_SERVER_NODE_ARGS;
      else process.env.BENCH_SERVER_NODE_ARGS = previous;
    });
    started[i] = { build, server, dataDir, sessions: [], calls: [], rowsBefore: rows(dataDir) };
  }
  sides.push(...started);
  let release!: () => void;
  const gate = new Promise<void>((resolve) => {
    release = resolve;
  });
  const total = PER_BUILD * sides.length;
  let asked = 0;
  let allAsked!: () => void;
  const everyoneAsked = new Promise<void>((resolve) => {
    allAsked = resolve;
  });
  const wrong: string[] = [];
  try {
    // Sessions alternate between the servers (k-th client → server k mod builds), so the answers,
    // released in that order, interleave too.
    for (let k = 0; k < total; k += CONNECT_CONCURRENCY) {
      await Promise.all(
        Array.from({ length: Math.min(CONNECT_CONCURRENCY, total - k) }, async (_, j) => {
          const side = sides[(k + j) % sides.length] as Side;
          const session = await openWireSession(side.server.url, side.server.tokens.alice ?? '');
          side.sessions.push(session);
          side.calls.push(
            session
              .callTool('deploy_service', DEPLOY, async () => {
                if (++asked === total) allAsked();
                await gate;
                return { action: 'accept', content: { env: 'dev' } };
              })
              .then(checkDeployResult, (error: unknown) => ({
                status: 'wrong' as const,
                why: error instanceof Error ? error.message : String(error),
                at: performance.now(),
              })),
          );
        }),
      );
    }
    await everyoneAsked;
    const before = sides.map((s) => threadsCpuMs(s.server.child.pid ?? 0));
    release();
    const ended = await Promise.all(sides.map((s) => Promise.all(s.calls)));
    const cpu = sides.map((s, i) => (threadsCpuMs(s.server.child.pid ?? 0) - (before[i] as number)) / PER_BUILD);
    for (const [i, side] of sides.entries()) {
      const results = ended[i] ?? [];
      const done = results.filter((r) => r.status === 'done').length;
      const ids = new Set(results.map((r) => r.id).filter((id) => id !== undefined)).size;
      const written = rows(side.dataDir) - side.rowsBefore;
      for (const r of results) if (r.why) wrong.push(`${side.build.name}: ${r.why}`);
      for (const problem of side.sessions.flatMap((s) => s.problems)) wrong.push(`${side.build.name}: ${problem}`);
      if (done !== PER_BUILD || ids !== PER_BUILD || written !== PER_BUILD)
        wrong.push(`${side.build.name}: ${done} done, ${ids} ids, ${written} rows of ${PER_BUILD}`);
    }
    return { cpu: builds.map((b) => cpu[sides.findIndex((s) => s.build === b)] as number), wrong };
  } finally {
    for (const side of sides) for (const session of side.sessions) await session.close().catch(() => {});
    for (const side of sides) {
      await side.server.stop();
      rmSync(side.dataDir, { recursive: true, force: true });
    }
  }
}

const builds: Build[] = process.argv.slice(2).map((arg) => {
  const [dir = '', flags = ''] = arg.split('::');
  return { name: arg, cli: resolve(dir, 'cli.js'), nodeArgs: flags.split(' ').filter(Boolean) };
});
if (builds.length < 2)
  throw new Error('usage: burst-builds.ts <bundle dir>[::<node flags>] <bundle dir>[::<node flags>] …');
console.log(
  `\nBurst, builds side by side: ${PER_BUILD} questions open on each of ${builds.length} serve --http, all answered at once; ${ROUNDS} rounds`,
);
const perBuild: number[][] = builds.map(() => []);
const load = () => readFileSync('/proc/loadavg', 'utf8').split(' ')[0];
for (let r = 0; r < ROUNDS; r++) {
  const { cpu, wrong } = await round(builds, r);
  for (const [i, ms] of cpu.entries()) perBuild[i]?.push(ms);
  for (const why of new Set(wrong)) console.log(`  WRONG (${wrong.filter((w) => w === why).length}×): ${why}`);
  console.log(
    `  round ${r + 1} (load ${load()}): ${cpu.map((ms, i) => `${builds[i]?.name} ${ms.toFixed(3)}`).join(', ')} ms server CPU per result; to the first ${cpu.map((ms) => (ms / (cpu[0] as number)).toFixed(3)).join(' / ')}`,
  );
}
for (const [i, build] of builds.entries()) {
  const mine = perBuild[i] ?? [];
  const ratios = mine.map((ms, r) => ms / (perBuild[0]?.[r] as number));
  console.log(
    `  ${build.name.padEnd(40)} server CPU per result p50 ${p50(mine).toFixed(3)} ms; to the first, per round: p50 ${p50(ratios).toFixed(3)} (${ratios.map((x) => x.toFixed(3)).join(', ')})`,
  );
}
