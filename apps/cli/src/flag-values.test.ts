/**
 * Every flag of every command given an empty value, or a number flag given a value that is not a
 * whole number as digits spell one, is a usage error naming the flag (exit 2), before anything
 * runs: no data directory made, nothing called. Was: `serve --max-sessions ''` (and its two
 * siblings) and `serve --host ''` were read as not given and served with the defaults; `--data ''`
 * (or `ELICITKIT_DATA=`) put opsdesk's data in the current directory; `audit --limit 1e3` or
 * `0x10` was taken as 1000 or 16. The CLI's `main`, as the shell runs it, and the built CLI where
 * the current directory matters.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli as run } from '../test/run-cli.js';

const BIN = fileURLToPath(new URL('../bin/elicitkit.js', import.meta.url));
const root = mkdtempSync(join(tmpdir(), 'ek-flag-values-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
let n = 0;
const fresh = () => join(root, `data-${n++}`);

/** Every number flag: the command line before it, and its name. */
const NUMBER_FLAGS: [string[], string][] = [
  [['serve'], '--http'],
  [['serve', '--stdio'], '--page-port'],
  [['serve', '--stdio'], '--timeout-ms'],
  [['serve', '--http', '0'], '--max-sessions'],
  [['serve', '--http', '0'], '--max-sessions-per-user'],
  [['serve', '--http', '0'], '--max-calls-per-user'],
  [['call', 'opsdesk', 'list_deployments'], '--timeout-ms'],
  [['doctor', 'opsdesk'], '--timeout-ms'],
  [['doctor', 'opsdesk'], '--concurrency'],
  [['doctor', 'opsdesk'], '--depth'],
  [['doctor', 'opsdesk'], '--budget'],
  [['audit'], '--limit'],
];
const NOT_WHOLE_NUMBERS = ['', '  ', '1e3', '0x10', '-1', 'Infinity', '1.5', '+5', '5 '];

/** Every flag that takes text: the command line before it, and its name. */
const TEXT_FLAGS: [string[], string][] = [
  [['serve', '--stdio'], '--data'],
  [['serve', '--http', '0'], '--host'],
  [['serve', '--stdio'], '--user'],
  [['serve', '--stdio'], '--lang'],
  [['serve', '--http', '0'], '--redis'],
  [['serve', '--stdio'], '--database'],
  [['serve', '--http', '0'], '--relay-listen'],
  [['serve', '--http', '0'], '--state-secret-file'],
  [['reset', '--yes'], '--data'],
  [['reset', '--yes'], '--database'],
  [['tools', 'opsdesk'], '--data'],
  [['tools', 'opsdesk'], '--revision'],
  [['tools', 'opsdesk'], '--era'],
  [['tools', 'http://127.0.0.1:9/mcp'], '--header'],
  [['call', 'opsdesk', 'list_deployments'], '--data'],
  [['call', 'opsdesk', 'list_deployments'], '--args'],
  [['call', 'opsdesk', 'list_deployments'], '--answers'],
  [['call', 'opsdesk', 'list_deployments'], '--secrets'],
  [['doctor', 'opsdesk'], '--fixtures'],
  [['doctor', 'opsdesk'], '--tools'],
  [['doctor', 'opsdesk'], '--skip'],
  [['doctor', 'opsdesk'], '--clients'],
  [['doctor', 'opsdesk'], '--revision'],
  [['audit'], '--data'],
  [['audit'], '--database'],
  [['install', 'cursor', '--dry-run'], '--scope'],
  [['install', 'cursor', '--dry-run'], '--name'],
  [['install', 'cursor', '--dry-run'], '--url'],
  [['install', 'cursor', '--dry-run', '--url', 'http://127.0.0.1:9/mcp'], '--header'],
  [['uninstall', 'cursor', '--dry-run'], '--scope'],
  [['uninstall', 'cursor', '--dry-run'], '--name'],
];

/** `--data DIR` for the commands that read one, so a run that went ahead would leave it behind. */
function withData(before: string[], flag: string): { args: string[]; data: string | undefined } {
  const command = before[0] as string;
  const takesData = ['serve', 'reset', 'tools', 'call', 'audit'].includes(command) && flag !== '--data';
  const data = takesData ? fresh() : undefined;
  return { args: [...before, ...(data ? ['--data', data] : [])], data };
}

describe('a flag given a value it cannot take', () => {
  it.each(NUMBER_FLAGS.flatMap(([before, flag]) => NOT_WHOLE_NUMBERS.map((value) => [before, flag, value] as const)))(
    '%j %s=%j: a usage error naming the flag, nothing run',
    async (before, flag, value) => {
      const { args, data } = withData(before, flag);
      const r = await run([...args, `${flag}=${value}`]);
      expect(r.code, r.err).toBe(2);
      expect(r.err).toContain(flag);
      expect(r.out).toBe('');
      if (data) expect(existsSync(data), 'the data directory was made').toBe(false);
    },
  );

  it.each(TEXT_FLAGS.flatMap(([before, flag]) => ['', '   '].map((value) => [before, flag, value] as const)))(
    '%j %s=%j: a usage error naming the flag, nothing run',
    async (before, flag, value) => {
      const { args, data } = withData(before, flag);
      const r = await run([...args, `${flag}=${value}`]);
      // A blank --data taken as a path would be made in this process's folder (the checkout):
      // removed here, so a regression fails without leaving a folder behind.
      const madeHere = value.trim() === '' && value !== '' && existsSync(value);
      if (madeHere) rmSync(value, { recursive: true, force: true });
      expect(madeHere, `a folder named ${JSON.stringify(value)} was made in the current directory`).toBe(false);
      expect(r.code, r.err).toBe(2);
      expect(r.err).toContain(`${flag} needs a value`);
      expect(r.out).toBe('');
      if (data) expect(existsSync(data), 'the data directory was made').toBe(false);
    },
  );

  it('an empty ELICITKIT_DATA is not set: the data goes to the default place, not the current directory', async () => {
    const cwd = join(root, 'cwd');
    const xdg = join(root, 'xdg');
    mkdirSync(cwd);
    const r = await promisify(execFile)(process.execPath, [BIN, 'reset', '--yes'], {
      cwd,
      env: { ...process.env, ELICITKIT_DATA: '', XDG_DATA_HOME: xdg },
    });
    expect(r.stdout + r.stderr).toContain(join(xdg, 'elicitkit'));
    expect(readdirSync(cwd), 'data was written to the current directory').toEqual([]);
    expect(existsSync(join(xdg, 'elicitkit'))).toBe(true);
  }, 60_000);
});
