// A config another user owns, in a folder this user may write (root's 0644 .cursor/mcp.json in a
// shared project): install replaced it by renaming a new file over it, so a user who could not
// write the file changed it anyway, and it became theirs. Now that is refused and nothing changes.
// Run as root, the owner and group are kept whatever they are: only a file of uid 0 and gid 0 used
// to be left alone, and under a root whose group is not 0 it came back in that group.
// The built CLI in a child process, as another user (test/as-user.mjs): the setup needs root.
import { spawnSync } from 'node:child_process';
import { chmod, chown, lstat, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

const AS_USER = fileURLToPath(new URL('../../test/as-user.mjs', import.meta.url));
const NOBODY = 65534;
const TEXT = '{\n  "mcpServers": {\n    "opsdesk": {"command": "x", "args": []}\n  }\n}\n';

const isRoot = process.getuid?.() === 0;
if (!isRoot) console.log('foreign-owner.test.ts: skipped, it needs root (to chown files and run as another user)');

let root = '';
let cwd = '';
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'ek-install-foreign-'));
  cwd = join(root, 'work');
  await mkdir(join(cwd, '.cursor'), { recursive: true });
  await mkdir(join(root, 'home'));
  await chmod(root, 0o755);
});
afterEach(() => rm(root, { recursive: true, force: true }));

/** The built CLI in `cwd` with a sandbox HOME, as `uid`/`gid` (its modules loaded as root first: the checkout may be out of their reach). */
function elicitkitAs(uid: number, gid: number, args: string[]) {
  const run = spawnSync(process.execPath, [AS_USER, String(uid), String(gid), ...args], {
    cwd,
    env: { ...process.env, HOME: join(root, 'home') },
    encoding: 'utf8',
  });
  return { code: run.status, out: run.stdout, err: run.stderr };
}

/** Every file under the sandbox with its owner, mode, inode and text: "changed nothing" means equal. */
async function snapshot(): Promise<Record<string, string>> {
  const entries: Record<string, string> = {};
  for (const name of await readdir(cwd, { recursive: true })) {
    const path = join(cwd, name);
    const s = await lstat(path);
    const body = s.isFile() ? await readFile(path, 'utf8') : '';
    entries[relative(cwd, path)] = `${s.uid}:${s.gid} ${s.mode.toString(8)} ${s.ino} ${s.mtimeMs} ${body}`;
  }
  return entries;
}

describe.skipIf(!isRoot)('a config this user may not write', () => {
  it.each([
    ['install', ['install', 'cursor', '--name', 'added', '--', 'node', '/srv/x.js']],
    ['uninstall', ['uninstall', 'cursor']],
  ])(
    '%s refuses root’s 0644 file in a folder nobody may write, says why, and changes nothing',
    async (command, args) => {
      const file = join(cwd, '.cursor', 'mcp.json');
      await writeFile(file, TEXT, { mode: 0o644 });
      await chown(cwd, NOBODY, NOBODY);
      await chown(join(cwd, '.cursor'), NOBODY, NOBODY);
      const before = await snapshot();
      const { code, out, err } = elicitkitAs(NOBODY, NOBODY, args);
      expect({ code, out }).toEqual({ code: 1, out: '' });
      expect(err).toBe(
        `elicitkit: could not ${command} ${command === 'install' ? 'into' : 'from'} ${file}: ${file} is not writable by this user (uid ${NOBODY}; the file is uid 0's, mode 644): elicitkit does not replace a file you may not change, which would also make it yours. Run ${command} as a user who may write it (run with sudo, the owner is kept), or make the change yourself (--dry-run shows it).\n`,
      );
      expect(await snapshot()).toEqual(before);
    },
  );

  it('still changes one it may write (its group’s, mode 664)', async () => {
    const file = join(cwd, '.cursor', 'mcp.json');
    await writeFile(file, TEXT);
    await chmod(file, 0o664);
    await chown(file, 0, NOBODY);
    await chown(join(cwd, '.cursor'), NOBODY, NOBODY);
    const { code, err } = elicitkitAs(NOBODY, NOBODY, ['uninstall', 'cursor']);
    expect({ code, err }).toEqual({ code: 0, err: '' });
    expect(await readFile(file, 'utf8')).toBe('{\n  "mcpServers": {\n  }\n}\n');
  });
});

describe.skipIf(!isRoot)('run as root whose group is not 0', () => {
  it.each([
    ['install', ['install', 'cursor', '--name', 'added', '--', 'node', '/srv/x.js']],
    ['uninstall', ['uninstall', 'cursor']],
  ])('%s keeps root’s own file in group 0, and its .bak', async (_command, args) => {
    const file = join(cwd, '.cursor', 'mcp.json');
    await writeFile(file, TEXT);
    await chmod(file, 0o640);
    await chown(file, 0, 0);
    const { code, err } = elicitkitAs(0, 50, args);
    expect({ code, err }).toEqual({ code: 0, err: '' });
    for (const path of [file, `${file}.bak`]) {
      const s = await lstat(path);
      expect({ path, uid: s.uid, gid: s.gid, mode: s.mode & 0o777 }).toEqual({ path, uid: 0, gid: 0, mode: 0o640 });
    }
  });
});
