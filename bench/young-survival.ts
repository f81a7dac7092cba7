/**
 * What a 2026-07-28 `ask()` call leaves for the old generation, against the raw SDK doing the same
 * call (information, not a goal): the fixture (support/young-survival-fixture.ts) runs each side in
 * its own `node --trace-gc-nvp` child, and the bytes young-generation collections promoted per
 * measured call are summed from its trace. A closure that holds a request's whole scope past the
 * round shows up here (it did once: ≈ 1.45× the raw SDK's promoted bytes, ≈ 1.05× since).
 *
 *   node --import tsx bench/young-survival.ts        (BENCH_SURVIVAL_CALLS, default 1500)
 */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { report } from './support/stats.js';

const run = promisify(execFile);
const root = fileURLToPath(new URL('..', import.meta.url));
const fixture = fileURLToPath(new URL('./support/young-survival-fixture.ts', import.meta.url));

async function promotedPerCall(side: 'raw' | 'kit', calls: number): Promise<{ perCall: number; scavenges: number }> {
  const { stdout } = await run(process.execPath, ['--trace-gc-nvp', '--import', 'tsx', fixture, side], {
    cwd: root,
    env: { ...process.env, SURVIVAL_CALLS: String(calls) },
    maxBuffer: 64 * 1024 * 1024,
  });
  const measured = stdout.slice(stdout.indexOf('@@start'), stdout.indexOf('@@end'));
  let promoted = 0;
  let scavenges = 0;
  for (const line of measured.split('\n')) {
    if (!line.includes(' gc=s ')) continue;
    scavenges++;
    promoted += Number(/ promoted=(\d+)/.exec(line)?.[1] ?? Number.NaN);
  }
  return { perCall: promoted / calls, scavenges };
}

export async function youngSurvival(): Promise<void> {
  const calls = Number(process.env.BENCH_SURVIVAL_CALLS ?? 1500);
  console.log(`\nyoung-generation survival, ${calls} calls per side (2026-07-28, in-process HTTP)`);
  // One side after the other: two children at once would share the cores unevenly.
  const raw = await promotedPerCall('raw', calls);
  const kit = await promotedPerCall('kit', calls);
  const ratio = kit.perCall / raw.perCall;
  report({
    goal: 'bytes promoted per ask() call vs the raw SDK (information)',
    figure: `${ratio.toFixed(2)}× (${Math.round(kit.perCall)} vs ${Math.round(raw.perCall)} B/call; ${kit.scavenges} and ${raw.scavenges} scavenges)`,
    // Too few collections measure nothing: said as a skip.
    pass: raw.scavenges > 5 && kit.scavenges > 5 ? 'info' : undefined,
  });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await youngSurvival();
