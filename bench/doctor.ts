/**
 * `elicitkit doctor opsdesk` as a user runs it (the built CLI, a throw-away data directory),
 * timed from spawn to exit. Issue 14 owns making it faster; this only measures it.
 *
 *   BENCH_DOCTOR_RUNS=3 (default)
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { p50, report } from './support/stats.js';

const RUNS = Number(process.env.BENCH_DOCTOR_RUNS ?? 3);
const bin = join(fileURLToPath(new URL('..', import.meta.url)), 'apps/cli/bin/elicitkit.js');

async function once(): Promise<{ ms: number; code: number | null }> {
  const started = performance.now();
  const child = spawn(process.execPath, [bin, 'doctor', 'opsdesk'], { stdio: 'ignore' });
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  return { ms: performance.now() - started, code };
}

export async function doctor(): Promise<void> {
  console.log(`\nelicitkit doctor opsdesk, wall time (${RUNS} runs)`);
  const runs: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const { ms, code } = await once();
    console.log(`  run ${i + 1}: ${(ms / 1000).toFixed(2)} s (exit ${code})`);
    runs.push(ms);
  }
  const median = p50(runs) / 1000;
  report({
    goal: 'doctor opsdesk ≤ 5 s wall',
    figure: `${median.toFixed(2)} s (p50 of ${RUNS}; runs ${runs.map((m) => (m / 1000).toFixed(2)).join(', ')} s)`,
    pass: median <= 5,
  });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await doctor();
