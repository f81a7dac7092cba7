/**
 * `npm run bench`: every goal of issue 12, measured side by side in one run, one line each with
 * its ratio (or figure) and PASS/FAIL/SKIP. Each part also runs alone (`node --import tsx
 * bench/<part>.ts`). BENCH_ONLY=cold,ask,burst,http,web,doctor,survival,pg,chats,open,replicas picks parts; see each file for
 * its BENCH_* knobs.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { askOverhead } from './ask-overhead.js';
import { burst } from './burst.js';
import { coldStart } from './cold-start.js';
import { doctor } from './doctor.js';
import { httpSequential } from './http-sequential.js';
import { postgresCommit } from './postgres-commit.js';
import { failedGoals, goalTable, recordFrom, report } from './support/stats.js';
import { webAnswer } from './web-answer.js';
import { youngSurvival } from './young-survival.js';

/**
 * A part that measures its own process (its memory, or replicas with their own Redis) runs as a
 * child with `--expose-gc` and nothing else in its heap: its output goes straight through, and its
 * goal lines (written to BENCH_GOALS_FILE) join the table.
 */
function inChild(script: string, goal: string): () => Promise<void> {
  return async () => {
    const path = fileURLToPath(new URL(script, import.meta.url));
    const goals = join(mkdtempSync(join(tmpdir(), 'ek-bench-goals-')), 'goals.jsonl');
    const child = spawn(process.execPath, ['--expose-gc', '--import', 'tsx', path], {
      stdio: ['ignore', 'inherit', 'inherit'],
      env: { ...process.env, BENCH_GOALS_FILE: goals },
    });
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    // A part exits non-zero when a goal fails; only a part that reported nothing is a failure of its own.
    if (recordFrom(goals) === 0) report({ goal, figure: `the part reported nothing (exit code ${code})`, pass: false });
    rmSync(dirname(goals), { recursive: true, force: true });
  };
}

const parts = {
  cold: coldStart,
  ask: askOverhead,
  burst,
  http: httpSequential,
  web: webAnswer,
  doctor,
  survival: youngSurvival,
  pg: postgresCommit,
  chats: inChild('./web-chats.ts', 'web: memory per chat'),
  open: inChild('./open-questions.ts', 'heap per open question'),
  replicas: inChild('./replicas.ts', 'replicas: answer → result'),
};
const only = process.env.BENCH_ONLY?.split(',').map((s) => s.trim());

const started = new Date();
console.log(
  `Elicitkit bench, ${started.toISOString()}: Node ${process.version}, ${cpus().length} × ${cpus()[0]?.model ?? 'CPU'}, load average ${loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')}`,
);
for (const [name, run] of Object.entries(parts)) {
  if (only && !only.includes(name)) continue;
  await run();
}
console.log(
  `\nGoals (${((Date.now() - started.getTime()) / 1000).toFixed(0)} s, load average now ${loadavg()[0]?.toFixed(2)})`,
);
console.log(goalTable());
const failed = failedGoals();
if (failed > 0) console.log(`\n${failed} goal line${failed === 1 ? '' : 's'} FAIL: exit code 1`);
// The web part's chats keep opsdesk children and registries alive; the run is over. A failed goal
// fails the run, so a script or CI step running the bench sees it.
process.exit(failed > 0 ? 1 : 0);
