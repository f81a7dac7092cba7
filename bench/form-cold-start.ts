/**
 * What does `@elicitkit/form` cost a process that starts? Each sample is a fresh Node process that
 * imports the built package (`packages/form/dist`, what users run) and validates one answer to a
 * small form; it reports the time from just before the import to just after that first result,
 * and the process's whole life from spawn to exit.
 *
 * Given `--baseline DIR` (another build of the package, e.g. an older commit's `dist/`), every
 * round runs both, in alternating order, and prints the paired ratio current/baseline.
 *
 *   npm run build && node --import tsx bench/form-cold-start.ts
 *   node --import tsx bench/form-cold-start.ts --baseline /tmp/base/packages/form/dist --rounds 40
 */
import { spawnSync } from 'node:child_process';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: { baseline: { type: 'string' }, rounds: { type: 'string', default: '30' } },
});
const rounds = Number(values.rounds);
const current = resolve('packages/form/dist/index.js');
const baseline = values.baseline ? resolve(values.baseline, 'index.js') : undefined;

// A deploy confirmation: a select, a boolean, a bounded string, an email and a date.
const CHILD = `
const t0 = performance.now();
const { validate } = await import(process.argv[1]);
const schema = {
  type: 'object',
  properties: {
    env: { type: 'string', title: 'Env', oneOf: [{ const: 'dev', title: 'Dev' }, { const: 'prod', title: 'Prod' }] },
    confirmed: { type: 'boolean', title: 'Confirmed', default: false },
    ticket: { type: 'string', title: 'Ticket', minLength: 4 },
    owner: { type: 'string', title: 'Owner', format: 'email' },
    day: { type: 'string', title: 'Day', format: 'date' },
  },
  required: ['env', 'ticket'],
};
const result = validate(schema, { env: 'prod', confirmed: true, ticket: 'REL-1001', owner: 'a@b.co', day: '2026-03-01' });
if (!result.ok) throw new Error(JSON.stringify(result));
process.stdout.write(String(performance.now() - t0));
`;

interface Sample {
  importAndValidate: number;
  process: number;
}

function sample(entry: string): Sample {
  const start = process.hrtime.bigint();
  const child = spawnSync(process.execPath, ['--input-type=module', '-e', CHILD, pathToFileURL(entry).href], {
    encoding: 'utf8',
  });
  const wall = Number(process.hrtime.bigint() - start) / 1e6;
  if (child.status !== 0) throw new Error(`${entry}: ${child.stderr}`);
  return { importAndValidate: Number(child.stdout), process: wall };
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? (s[mid] ?? 0) : ((s[mid - 1] ?? 0) + (s[mid] ?? 0)) / 2;
};

const mine: Sample[] = [];
const theirs: Sample[] = [];
for (let round = 0; round < rounds; round++) {
  // Alternate who goes first, so a warm disk cache or a busy neighbour favours neither side.
  if (baseline && round % 2 === 0) theirs.push(sample(baseline));
  mine.push(sample(current));
  if (baseline && round % 2 === 1) theirs.push(sample(baseline));
}

const fmt = (ms: number) => `${ms.toFixed(1)} ms`;
console.log(`@elicitkit/form cold start, ${rounds} rounds, medians`);
console.log(
  `  current : import + first validate ${fmt(median(mine.map((s) => s.importAndValidate)))}, process ${fmt(median(mine.map((s) => s.process)))}`,
);
if (baseline) {
  console.log(
    `  baseline: import + first validate ${fmt(median(theirs.map((s) => s.importAndValidate)))}, process ${fmt(median(theirs.map((s) => s.process)))}`,
  );
  const ratio = (key: keyof Sample) => median(mine.map((s, i) => s[key] / (theirs[i]?.[key] ?? Number.NaN)));
  console.log(
    `  paired ratio current/baseline: import + first validate ${ratio('importAndValidate').toFixed(2)}×, process ${ratio('process').toFixed(2)}×`,
  );
}
