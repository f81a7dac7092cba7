/**
 * `npm run bench` runs every part to its goal lines: each part, with knobs turned down to a few
 * calls, in one run of `bench/run.ts` as `npm run bench` starts it. Scripts nothing else runs
 * break unseen (the web part did, for two stops); this checks that each part reported and none
 * crashed — never a figure or a verdict, which a handful of calls on a shared machine cannot give.
 * Without Redis or PostgreSQL their parts say SKIP, which counts as reported.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';

const root = fileURLToPath(new URL('..', import.meta.url));

/** Few of everything: enough for each part to reach its goal lines. */
const TINY = {
  BENCH_PAIRS: '20',
  BENCH_REPEATS: '1',
  BENCH_WARMUP: '20',
  BENCH_COLD_PAIRS: '1',
  BENCH_BURST: '20',
  BENCH_HTTP_PAIRS: '3',
  BENCH_HTTP_WARMUP: '2',
  BENCH_WEB_PAIRS: '1',
  BENCH_DOCTOR_RUNS: '1',
  BENCH_PG_PAIRS: '3',
  BENCH_PG_WARMUP: '2',
  BENCH_SURVIVAL_CALLS: '40',
  BENCH_OPEN: '10',
  BENCH_OPEN_ROUNDS: '1',
  BENCH_CHATS: '20',
  BENCH_REPLICAS_WARMUP: '3',
};

/** A goal line of each part, as the final table names it. */
const PARTS: [string, RegExp][] = [
  ['cold', /cold start/],
  ['ask', /^ask\(\) /],
  ['burst', /^burst of /],
  ['http', /^sequential HTTP round trip/],
  ['web', /^web answer → result/],
  ['doctor', /^doctor opsdesk/],
  ['survival', /^bytes promoted per ask\(\) call/],
  ['pg', /Postgres/],
  ['chats', /^web: (idle chat|memory per chat)/],
  ['open', /^heap (per open|held per pending)/],
  ['replicas', /^replicas: /],
];

it('every part of npm run bench reports its goal lines, none crashes', async () => {
  const child = spawn(process.execPath, ['--expose-gc', '--import', 'tsx', 'bench/run.ts'], {
    cwd: root,
    env: { ...process.env, ...TINY },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout.on('data', (d: Buffer) => {
    out += d;
  });
  child.stderr.on('data', (d: Buffer) => {
    err += d;
  });
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  // 0: every goal passed; 1: some did not (a few calls decide nothing). Anything else is a crash.
  expect([0, 1], `exit ${code}\n${out.slice(-3000)}\n${err.slice(-3000)}`).toContain(code);
  const table = out.slice(out.lastIndexOf('\nGoals ('));
  expect(table.startsWith('\nGoals ('), `no goal table:\n${out.slice(-3000)}\n${err.slice(-3000)}`).toBe(true);
  const lines = table
    .split('\n')
    .map((l) => /^(PASS|FAIL|SKIP|INFO) {2}(.*)$/.exec(l)?.[2])
    .filter((l): l is string => l !== undefined);
  for (const [part, goal] of PARTS)
    expect(
      lines.some((l) => goal.test(l)),
      `${part}: no goal line in\n${lines.join('\n')}`,
    ).toBe(true);
  expect(lines.filter((l) => l.includes('the part reported nothing'))).toEqual([]);
}, 900_000);
