/**
 * `bench/web-answer.ts` runs to its goal line: it drives the web app's route handlers (a chat
 * opened, a question answered, the chat closed as its tab's beacon would) and broke unseen for two
 * stops when the close beacon had to name its page — `npm run bench` stopped there. One pair after
 * its warm-up, in a process of its own (it sets the app's environment); only that it runs and
 * reports is checked, never a time.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { expect, it } from 'vitest';

const root = fileURLToPath(new URL('..', import.meta.url));

it('web-answer.ts answers through the web routes and reports its goal line', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'ek-bench-web-test-'));
  const goals = join(dir, 'goals.jsonl');
  try {
    const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', 'bench/web-answer.ts'], {
      cwd: root,
      env: { ...process.env, BENCH_WEB_PAIRS: '1', BENCH_GOALS_FILE: goals },
      timeout: 120_000,
    });
    expect(stdout).toMatch(/web p50 [\d.]+ ms .* direct stdio client p50 [\d.]+ ms/);
    const lines = readFileSync(goals, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { goal: string; figure: string; pass: unknown });
    expect(lines).toHaveLength(1);
    expect(lines[0]?.goal).toMatch(/^web answer → result p50 ≤ 8 ms/);
    expect(typeof lines[0]?.pass).toBe('boolean');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}, 150_000);
