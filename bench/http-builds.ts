/**
 * Before/after for opsdesk's sequential HTTP round trip: several builds of `serve` (copies of
 * `apps/cli/dist/bundle`, run as `<dir>/cli.js serve --http 0`, so no staleness check sends one
 * back to `dist/`) and the raw SDK server, each on its own copy of one seeded data directory, one
 * 2025-11-25 client each. Every step calls deploy_service once on each server, the order rotating,
 * a yield after every call, as bench/http-sequential.ts pairs two. Per build: p50 of its per-step
 * ratio to the raw server, and server CPU per call from every thread's /proc schedstat (ns).
 *
 *   cp -r apps/cli/dist/bundle apps/cli/dist/bundle-before   # on the old build, then rebuild
 *   node --import tsx bench/http-builds.ts apps/cli/dist/bundle-before apps/cli/dist/bundle
 *   BENCH_BUILDS_STEPS=400 (default), BENCH_BUILDS_WARMUP=30 (default, as http-sequential.ts)
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { serveOpsdesk } from './support/opsdesk-http.js';
import { iqr, p50, yieldToLoop } from './support/stats.js';

const STEPS = Number(process.env.BENCH_BUILDS_STEPS ?? 400);
const WARMUP = Number(process.env.BENCH_BUILDS_WARMUP ?? 30);
const RAW = resolve('bench/support/raw-http-server.mjs');

/** CPU time of every thread of `pid` so far, ms, at the kernel's ns resolution. */
function threadsCpuMs(pid: number): number {
  let ns = 0;
  for (const task of readdirSync(`/proc/${pid}/task`))
    ns += Number(readFileSync(`/proc/${pid}/task/${task}/schedstat`, 'utf8').split(' ')[0]);
  return ns / 1e6;
}

interface Served {
  name: string;
  child: ChildProcess;
  client: Client;
  dir: string;
}

async function start(name: string, args: string[], token: string, dir: string): Promise<Served> {
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout?.setEncoding('utf8');
  const url = await new Promise<string>((done, fail) => {
    child.stdout?.on('data', (chunk: string) => {
      out += chunk;
      const m = /serving (\S+)/.exec(out);
      if (m?.[1]) done(m[1]);
    });
    child.once('exit', (code) => fail(new Error(`${name} exited with ${code}: ${out}`)));
  });
  const client = new Client({ name: 'builds', version: '1' }, { capabilities: { elicitation: { form: {} } } });
  client.setRequestHandler('elicitation/create', async () => ({ action: 'accept', content: { env: 'dev' } }));
  await client.connect(
    new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { authorization: `Bearer ${token}` } } }),
  );
  return { name, child, client, dir };
}

async function timed(s: Served): Promise<number> {
  const started = performance.now();
  const r = await s.client.callTool({ name: 'deploy_service', arguments: { service: 'order-service' } });
  const ms = performance.now() - started;
  if ((r.structuredContent as { status?: string } | undefined)?.status !== 'done')
    throw new Error(`${s.name}: unexpected result ${JSON.stringify(r)}`);
  await yieldToLoop();
  return ms;
}

const builds = process.argv.slice(2);
if (builds.length === 0) throw new Error('usage: http-builds.ts <bundle dir> [<bundle dir> …]');
const seed = mkdtempSync(join(tmpdir(), 'ek-bench-builds-'));
// Seeded by the first build given (the oldest, say): a newer one migrates it, an older one would refuse a newer schema.
const first = await serveOpsdesk(seed, [], resolve(builds[0] ?? '', 'cli.js')); // seeds the data and prints the tokens
const token = first.tokens.alice ?? '';
await first.stop();
const servers: Served[] = [];
for (const [i, name] of [...builds, 'raw'].entries()) {
  const dir = mkdtempSync(join(tmpdir(), 'ek-bench-builds-'));
  cpSync(seed, dir, { recursive: true });
  const args = name === 'raw' ? [RAW, dir] : [resolve(name, 'cli.js'), 'serve', '--http', '0', '--data', dir];
  servers.push(await start(`${i}:${name}`, args, token, dir));
}
try {
  for (let i = 0; i < WARMUP; i++) for (const s of servers) await timed(s);
  const cpuBefore = servers.map((s) => threadsCpuMs(s.child.pid ?? 0));
  const wall = servers.map((): number[] => []);
  for (let step = 0; step < STEPS; step++) {
    for (let k = 0; k < servers.length; k++) {
      const j = (k + step) % servers.length;
      wall[j]?.push(await timed(servers[j] as Served));
    }
  }
  const raw = servers.length - 1;
  const cpu = servers.map((s, i) => (threadsCpuMs(s.child.pid ?? 0) - (cpuBefore[i] ?? 0)) / STEPS);
  console.log(`Sequential deploys over loopback HTTP, ${STEPS} steps after ${WARMUP}, order rotating`);
  servers.forEach((s, i) => {
    const ratios = (wall[i] ?? []).map((ms, k) => ms / (wall[raw]?.[k] ?? ms));
    console.log(
      `  ${s.name.padEnd(34)} p50 ${p50(wall[i] ?? []).toFixed(2)} ms, to raw ${p50(ratios).toFixed(3)}× (IQR ${iqr(ratios)}); server CPU ${(cpu[i] ?? 0).toFixed(2)} ms per call (${((cpu[i] ?? 0) / (cpu[raw] ?? 1)).toFixed(2)}× raw)`,
    );
  });
} finally {
  for (const s of servers) {
    await s.client.close().catch(() => {});
    const exited = new Promise((done) => s.child.once('exit', done));
    s.child.kill('SIGTERM');
    await exited;
    rmSync(s.dir, { recursive: true, force: true });
  }
  rmSync(seed, { recursive: true, force: true });
}
