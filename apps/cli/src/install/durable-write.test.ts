// writeAtomically wrote a temporary file and renamed it over the config, and never flushed either
// to disk: ext4 and XFS may write the rename before the data, so a crash or power loss right after
// an install could leave ~/.claude.json empty or cut short. Now the temporary file is synced before
// the rename and its folder after it. The .bak was not flushed at all, so the same crash could
// leave the new config and an empty backup, or none: now the backup and its name in its folder are
// on disk before the rename. A crash is not simulated here: the test reads the order of the system
// calls the built CLI makes (strace), and that the files it leaves are whole.
import { spawnSync } from 'node:child_process';
import { chmod, mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
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
  // The config as a file, and as a symlink into another folder (a dotfiles repo): the backup is
  // made beside the link, so that folder is the one whose entry must be on disk.
  it.skipIf(!strace).each([
    ['a file', false],
    ['a symlink into another folder', true],
  ])(
    'syncs the backup and its folder, then the new text, before the rename, and the folder after it (%s)',
    async (_kind, linked) => {
      const file = join(cwd, '.cursor', 'mcp.json');
      const real = linked ? join(root, 'dotfiles', 'mcp.json') : file;
      await mkdir(dirname(real), { recursive: true });
      await writeFile(real, EXISTING);
      if (linked) await symlink(real, file);
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
      const syncs = (path: string) => (l: string) => /\bf(data)?sync\(\d+</.test(l) && l.includes(`<${path}>`);
      const all = (test: (line: string) => boolean) => lines.flatMap((l, i) => (test(l) ? [i] : []));
      // The backup is written as a file of its own beside the config's path, then renamed over `.bak`.
      const backupTemp = /\/\.mcp\.json\.bak\.\d+\.[0-9a-f]+\.tmp/;
      const [syncBackup = -1] = all((l) => /\bf(data)?sync\(\d+</.test(l) && backupTemp.test(l));
      const [renamedBackup = -1] = all(
        (l) => /\brename(at2?)?\(/.test(l) && backupTemp.test(l) && l.includes(`${file}.bak"`),
      );
      const [syncTemp = -1] = all((l) => /\bf(data)?sync\(\d+</.test(l) && temp.test(l));
      const [renamed = -1] = all((l) => /\brename(at2?)?\(/.test(l) && temp.test(l) && l.includes(`${real}"`));
      const syncBackupFolder = all(syncs(dirname(file))).find((i) => i > renamedBackup) ?? -1;
      const syncFolder = all(syncs(dirname(real))).find((i) => i > renamed) ?? -1;
      const seen = { syncBackup, renamedBackup, syncBackupFolder, syncTemp, renamed, syncFolder };
      expect(
        Object.values(seen).map((i) => i >= 0),
        lines.join('\n'),
      ).toEqual([true, true, true, true, true, true]);
      // The backup (its data, then its name, then its folder) before the rename: after a crash, a
      // new config always has the previous one beside it. The new text before the rename, the folder after.
      expect(syncBackup, lines.join('\n')).toBeLessThan(renamedBackup);
      expect(renamedBackup).toBeLessThan(syncBackupFolder);
      expect(syncBackupFolder).toBeLessThan(renamed);
      expect(syncTemp).toBeLessThan(renamed);
      expect(renamed).toBeLessThan(syncFolder);

      const written = await readFile(real, 'utf8');
      expect(JSON.parse(written).mcpServers).toEqual({
        existing: { command: 'x', args: [] },
        opsdesk: { command: 'node', args: ['/srv/x.js'] },
      });
      expect(await readFile(`${file}.bak`, 'utf8')).toBe(EXISTING);
    },
  );

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
