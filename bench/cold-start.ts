/**
 * Cold start: spawn → `tools/list` answered, for `elicitkit serve --stdio` (the built CLI) against
 * the minimal SDK server (`serveStdio` + one tool, bench/support/minimal-server.mjs), both spawned
 * the same way by a real SDK client, with the legacy handshake and with `auto` negotiation.
 * Paired: each pair starts both, in alternating order; the figure is the p50 of the per-pair
 * ratios. Also prints how many module files `serve --stdio` loads against the minimal server.
 *
 *   BENCH_COLD_PAIRS=15 (default)
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { iqr, p50, report } from './support/stats.js';

const PAIRS = Number(process.env.BENCH_COLD_PAIRS ?? 15);
const root = fileURLToPath(new URL('..', import.meta.url));
const dataDir = mkdtempSync(join(tmpdir(), 'ek-bench-cold-'));

interface Spawnable {
  name: string;
  args: string[];
}
export const minimal: Spawnable = {
  name: 'minimal SDK server',
  args: [join(root, 'bench/support/minimal-server.mjs')],
};
/** A user's own server importing @elicitkit/server and @elicitkit/form (not bundled), and its raw-SDK twin. */
export const userKit: Spawnable = {
  name: "a user's server on Elicitkit",
  args: [join(root, 'bench/support/user-kit-server.mjs')],
};
export const userRaw: Spawnable = {
  name: 'the same server on the raw SDK',
  args: [join(root, 'bench/support/user-raw-server.mjs')],
};
export const opsdesk: Spawnable = {
  name: 'elicitkit serve --stdio',
  args: [join(root, 'apps/cli/bin/elicitkit.js'), 'serve', '--stdio', '--data', dataDir],
};

/** Wall time from spawn to the first `tools/list` answer, in ms. */
async function startToList(target: Spawnable, mode: 'legacy' | 'auto'): Promise<number> {
  return (await startAndCpu(target, mode)).wall;
}

/**
 * Wall time from spawn to the first `tools/list` answer, and the CPU the server process had used
 * by then (all its threads, from /proc: steadier than wall time when the machine is shared), in ms.
 */
async function startAndCpu(target: Spawnable, mode: 'legacy' | 'auto'): Promise<{ wall: number; cpu: number }> {
  const started = performance.now();
  const client = new Client({ name: 'bench', version: '1' }, { versionNegotiation: { mode } });
  const transport = new StdioClientTransport({ command: process.execPath, args: target.args, stderr: 'ignore' });
  await client.connect(transport);
  const { tools } = await client.listTools();
  const wall = performance.now() - started;
  const cpu = transport.pid === null ? Number.NaN : cpuMs(transport.pid);
  if (tools.length === 0) throw new Error(`${target.name} listed no tools`);
  await client.close();
  return { wall, cpu };
}

/** CPU time a process has run so far, over all its threads (`schedstat`'s first field is ns). */
function cpuMs(pid: number): number {
  let ns = 0;
  try {
    for (const task of readdirSync(`/proc/${pid}/task`))
      ns += Number(readFileSync(`/proc/${pid}/task/${task}/schedstat`, 'utf8').split(' ')[0]);
  } catch {
    return Number.NaN; // not Linux, or the process is gone
  }
  return ns / 1e6;
}

/** Distinct module files a process loads up to its first answered `tools/list` (legacy handshake). */
function modulesLoaded(target: Spawnable): string[] {
  const log = join(dataDir, `modules-${Math.random().toString(36).slice(2)}.log`);
  const init = JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'bench', version: '1' } },
  });
  const initialized = JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' });
  const list = JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
  // stdin closes after the three lines, which ends both servers (the stdio binding's rule).
  execFileSync(process.execPath, ['--import', join(root, 'bench/support/count-modules.mjs'), ...target.args], {
    input: `${init}\n${initialized}\n${list}\n`,
    env: { ...process.env, BENCH_MODULE_LOG: log },
    stdio: ['pipe', 'ignore', 'ignore'],
  });
  return [...new Set(readFileSync(log, 'utf8').split('\n').filter(Boolean))];
}

export async function coldStart(): Promise<void> {
  console.log(`\nCold start: spawn → tools/list (${PAIRS} pairs per mode, order alternating)`);
  await startToList(opsdesk, 'legacy'); // first start seeds the data directory: not a cold start
  await startToList(minimal, 'legacy');
  for (const mode of ['legacy', 'auto'] as const) {
    const ratios: number[] = [];
    const ours: number[] = [];
    const base: number[] = [];
    for (let i = 0; i < PAIRS; i++) {
      const first = i % 2 === 0;
      const a = first ? await startToList(minimal, mode) : 0;
      const o = await startToList(opsdesk, mode);
      const m = first ? a : await startToList(minimal, mode);
      ours.push(o);
      base.push(m);
      ratios.push(o / m);
    }
    const r = p50(ratios);
    console.log(
      `  ${mode.padEnd(6)}: minimal p50 ${p50(base).toFixed(0)} ms, serve --stdio p50 ${p50(ours).toFixed(0)} ms; paired ratio p50 ${r.toFixed(2)} (IQR ${iqr(ratios)})`,
    );
    report({
      goal: `cold start ≤ 1.3× minimal SDK server (${mode === 'legacy' ? 'legacy handshake' : 'auto negotiation'})`,
      figure: `${r.toFixed(2)}× (p50 of ${PAIRS} paired ratios, IQR ${iqr(ratios)})`,
      pass: r <= 1.3,
    });
  }
  await userServerStart();
  const loaded = modulesLoaded(opsdesk);
  // `serve` runs the one-file build only while it is current (apps/cli/src/current-build.ts).
  const from = loaded.some((f) => f.includes('/apps/cli/dist/bundle/'))
    ? 'the one-file build'
    : 'dist/ (no current one-file build: run `npm run build`)';
  console.log(
    `  modules loaded: serve --stdio ${loaded.length} (from ${from}), minimal SDK server ${modulesLoaded(minimal).length}`,
  );
  rmSync(dataDir, { recursive: true, force: true });
}

/**
 * A user's server that imports the libraries (no bundle) against the same server on the raw SDK:
 * spawn → first `tools/list`, legacy handshake, paired and alternating; and the module files each loads.
 */
async function userServerStart(): Promise<void> {
  await startToList(userKit, 'legacy');
  await startToList(userRaw, 'legacy');
  const ratios: number[] = [];
  const cpuRatios: number[] = [];
  for (let i = 0; i < PAIRS; i++) {
    const kitFirst = i % 2 === 0;
    const a = await startAndCpu(kitFirst ? userKit : userRaw, 'legacy');
    const b = await startAndCpu(kitFirst ? userRaw : userKit, 'legacy');
    const [kit, raw] = kitFirst ? [a, b] : [b, a];
    ratios.push(kit.wall / raw.wall);
    cpuRatios.push(kit.cpu / raw.cpu);
  }
  const r = p50(ratios);
  const cpu = cpuRatios.filter(Number.isFinite);
  console.log(
    `  a user's server: modules loaded ${modulesLoaded(userKit).length} on Elicitkit, ${modulesLoaded(userRaw).length} on the raw SDK` +
      (cpu.length > 0 ? `; server CPU to the first answer ${p50(cpu).toFixed(2)}× (IQR ${iqr(cpu)})` : ''),
  );
  report({
    goal: "a user's server on @elicitkit/server + form starts ≤ 1.1× its raw-SDK twin",
    figure: `${r.toFixed(2)}× (p50 of ${PAIRS} paired ratios, IQR ${iqr(ratios)})`,
    pass: r <= 1.1,
  });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await coldStart();
