/**
 * `npm run bench`: every goal of issue 12, measured side by side in one run, one line each with
 * its ratio (or figure) and PASS/FAIL/SKIP. Each part also runs alone (`node --import tsx
 * bench/<part>.ts`). BENCH_ONLY=cold,ask,burst,http,web,doctor,survival,pg picks parts; see each file for
 * its BENCH_* knobs.
 */
import { cpus, loadavg } from 'node:os';
import { askOverhead } from './ask-overhead.js';
import { burst } from './burst.js';
import { coldStart } from './cold-start.js';
import { doctor } from './doctor.js';
import { httpSequential } from './http-sequential.js';
import { postgresCommit } from './postgres-commit.js';
import { goalTable } from './support/stats.js';
import { webAnswer } from './web-answer.js';
import { youngSurvival } from './young-survival.js';

const parts = {
  cold: coldStart,
  ask: askOverhead,
  burst,
  http: httpSequential,
  web: webAnswer,
  doctor,
  survival: youngSurvival,
  pg: postgresCommit,
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
// The web part's chats keep opsdesk children and registries alive; the run is over.
process.exit(0);
