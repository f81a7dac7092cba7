// The lock that makes two installs take turns was taken over once it was 30 s old, whoever held
// it: an install still working (a ~/.claude.json of many megabytes on a busy machine takes that
// long) lost its lock to the next one, both wrote, and a server reported added was gone. A lock
// whose process is alive on this machine is never stale. Run as the real CLI.
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CLI, nodeArgs } from '../../../opsdesk/test/harness.js';

const run = promisify(execFile);
let root = '';
let holder: ChildProcess | undefined;
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'ek-install-live-lock-'));
  await mkdir(join(root, '.cursor'));
});
afterEach(async () => {
  holder?.kill('SIGKILL');
  await rm(root, { recursive: true, force: true });
});

/** `elicitkit <args>` as a process whose home is the sandbox: its exit code and stderr. */
async function cli(args: string[]): Promise<{ code: number; err: string }> {
  try {
    const { stderr } = await run(process.execPath, nodeArgs(CLI, ...args), {
      env: { ...process.env, HOME: root },
      timeout: 60_000,
    });
    return { code: 0, err: stderr };
  } catch (error) {
    const e = error as { code?: number; stderr?: string };
    return { code: typeof e.code === 'number' ? e.code : -1, err: e.stderr ?? '' };
  }
}

const BEFORE = '{\n  "mcpServers": {\n    "existing": {"command": "x", "args": []}\n  }\n}\n';

describe('a lock held by a process that is still running', () => {
  it('is not taken over however old it is: the install waits, then says who holds the file, and writes nothing', async () => {
    const file = join(root, '.cursor', 'mcp.json');
    await writeFile(file, BEFORE);
    // Another install, still at work: its lock holds its process id, as every install writes it.
    holder = spawn(process.execPath, ['-e', 'setInterval(() => {}, 60_000)'], { stdio: 'ignore' });
    const lock = `${file}.elicitkit-lock`;
    await writeFile(lock, String(holder.pid));
    const longAgo = new Date(Date.now() - 10 * 60_000);
    await utimes(lock, longAgo, longAgo);

    const { code, err } = await cli(['install', 'cursor', '--scope', 'user', '--', 'node', 'srv.js']);
    expect(err).toContain('another elicitkit install or uninstall is changing');
    expect(code).toBe(1);
    expect(await readFile(file, 'utf8')).toBe(BEFORE);
    expect((await stat(lock)).isFile()).toBe(true);
  });
});
