/**
 * `elicitkit install` on a full disk fails saying why, and leaves no lock behind. Was: the lock
 * beside the config file was created, its holder's line failed to write (EFBIG, ENOSPC), and the
 * empty lock stayed: the next install, the disk freed, waited 10 s and blamed "another elicitkit
 * install or uninstall" that did not exist. The CLI as a process with no file allowed to grow
 * (`ulimit -f 0`, its signal ignored as a full disk sends none), then again without.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CLI, nodeArgs } from '../../../opsdesk/test/harness.js';

const SERVER = ['--', 'node', '/srv/opsdesk.js', '--stdio'];
let root = '';
/** Cursor's user-scope config folder in the sandbox's home. */
const cursor = () => join(root, 'home', '.cursor');
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'elicitkit-install-full-'));
  await mkdir(join(root, 'home'));
});
afterEach(() => rm(root, { recursive: true, force: true }));

/** `elicitkit install cursor --scope user …` in the sandbox's home, as a process; `full`: no file may grow. */
function install(full: boolean): Promise<{ code: number; err: string }> {
  const command = [process.execPath, ...nodeArgs(CLI, 'install', 'cursor', '--scope', 'user', ...SERVER)]
    .map((word) => `'${word.replaceAll("'", "'\\''")}'`)
    .join(' ');
  const script = full ? `trap '' XFSZ; ulimit -f 0; exec ${command}` : `exec ${command}`;
  return new Promise((resolve) => {
    execFile(
      'bash',
      ['-c', script],
      { env: { ...process.env, HOME: join(root, 'home') }, timeout: 60_000, killSignal: 'SIGKILL' },
      (error, _out, stderr) =>
        resolve({ code: error ? (typeof error.code === 'number' ? error.code : -1) : 0, err: stderr }),
    );
  });
}

describe.skipIf(process.platform === 'win32' || !existsSync('/bin/bash'))('install on a full disk', () => {
  it('exit 1 saying why, no lock left: the next install, the disk freed, goes through', async () => {
    const failed = await install(true);
    expect(failed.code, failed.err).toBe(1);
    expect(failed.err).toContain('EFBIG');
    expect((await readdir(cursor())).filter((name) => name.includes('elicitkit-lock'))).toEqual([]);
    const again = await install(false);
    expect(again.code, again.err).toBe(0);
    expect(existsSync(join(cursor(), 'mcp.json'))).toBe(true);
  }, 120_000);
});
