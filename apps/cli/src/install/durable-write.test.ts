// writeAtomically wrote a temporary file and renamed it over the config, and never flushed either
// to disk: ext4 and XFS may write the rename before the data, so a crash or power loss right after
// an install could leave ~/.claude.json empty or cut short. Now the temporary file is synced before
// the rename and its folder after it. A crash is not simulated here: the test reads the order of
// the system calls the built CLI makes (strace), and that the file it leaves is whole.
import { spawnSync } from 'node:child_process';
import { chmod, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

const BIN = fileURLToPath(new URL('../../bin/elicitkit.js', import.meta.url));
const AS_USER = fileURLToPath(new URL('../../test/as-user.mjs', import.meta.url));
const EXISTING = '{\n  "mcpServers": {\n    "existing": {"command": "x", "args": []}\n  }\n}\n';

// strace traces the CLI's system calls; without it (or where ptrace is not allowed) the order cannot be seen.
const strace = spawnSync('strace', ['-o', '/dev/null', 'true']).status === 0;
if (!strace) console.log('durable-write.test.ts: order test skipped, strace is missing or may not trace here');
const isRoot = process.getuid?.() === 0;
if (!isRoot)
  console.log('durable-write.test.ts: unreadable-folder test skipped, not running as root (to run as nobody)');

let root = '';
let cwd = '';
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'ek-install-durable-'));
  cwd = join(root, 'work');
  await mkdir(join(cwd, '.cursor'), { recursive: true });
  await mkdir(join(root, 'home'));
});
afterEach(() => rm(root, { recursive: true, force: true }));

/** Runs `script` (the built CLI) in `cwd`, with a sandbox HOME, after `prefix` (strace). */
function elicitkit(prefix: string[], args: string[], script = BIN) {
  const [command = 'node', ...rest] = [...prefix, process.execPath, script, ...args];
  const run = spawnSync(command, rest, { cwd, env: { ...process.env, HOME: join(root, 'home') }, encoding: 'utf8' });
  return { code: run.status, out: run.stdout, err: run.stderr };
}

describe('install flushes the new config to disk', () => {
  it.skipIf(!strace)('syncs the new text before the rename, and the folder after it', async () => {
    const file = join(cwd, '.cursor', 'mcp.json');
    await writeFile(file, EXISTING);
    const trace = join(root, 'trace');
    const calls = 'fsync,fdatasync,rename,renameat,renameat2';
    // -y: a descriptor is shown with its path, so a sync names the file it flushes.
    const run = elicitkit(
      ['strace', '-f', '-y', '-qq', '-e', `trace=${calls}`, '-o', trace],
      ['install', 'cursor', '--', 'node', '/srv/x.js'],
    );
    expect(run.code, run.err).toBe(0);

    const lines = (await readFile(trace, 'utf8')).split('\n');
    const temp = /\/\.mcp\.json\.\d+\.[0-9a-f]+\.tmp/;
    const at = (test: (line: string) => boolean) => lines.findIndex(test);
    const syncTemp = at((l) => /\bf(data)?sync\(\d+</.test(l) && temp.test(l));
    const renamed = at((l) => /\brename(at2?)?\(/.test(l) && temp.test(l) && l.includes(`${file}"`));
    const syncFolder = at((l) => /\bfsync\(\d+</.test(l) && l.includes(`<${join(cwd, '.cursor')}>`));
    expect({ syncTemp: syncTemp >= 0, renamed: renamed >= 0, syncFolder: syncFolder >= 0 }, lines.join('\n')).toEqual({
      syncTemp: true,
      renamed: true,
      syncFolder: true,
    });
    expect(syncTemp).toBeLessThan(renamed);
    expect(renamed).toBeLessThan(syncFolder);

    const written = await readFile(file, 'utf8');
    expect(JSON.parse(written).mcpServers).toEqual({
      existing: { command: 'x', args: [] },
      opsdesk: { command: 'node', args: ['/srv/x.js'] },
    });
  });

  // The folder is opened to be synced; one its user may write but not read cannot be, and the
  // install must still succeed (the rename is done; only the flush of the folder is skipped).
  it.skipIf(!isRoot)('installs into a folder it may write but not read, skipping only that flush', async () => {
    const folder = join(cwd, '.cursor');
    await chmod(root, 0o755);
    await chmod(cwd, 0o755);
    await chmod(folder, 0o733);
    // As nobody (its modules loaded as root first: the checkout may be out of nobody's reach).
    const run = elicitkit([], ['65534', '65534', 'install', 'cursor', '--', 'node', '/srv/x.js'], AS_USER);
    expect({ code: run.code, err: run.err }).toEqual({ code: 0, err: '' });
    await chmod(folder, 0o755);
    expect(JSON.parse(await readFile(join(folder, 'mcp.json'), 'utf8')).mcpServers.opsdesk).toEqual({
      command: 'node',
      args: ['/srv/x.js'],
    });
    expect(await readdir(folder)).toEqual(['mcp.json']);
  });
});
