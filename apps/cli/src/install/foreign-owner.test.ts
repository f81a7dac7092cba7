// A config another user owns, in a folder this user may write (root's 0644 .cursor/mcp.json in a
// shared project): install replaced it by renaming a new file over it, so a user who could not
// write the file changed it anyway, and it became theirs. Now that is refused and nothing changes.
// Run as root, the owner and group are kept whatever they are: only a file of uid 0 and gid 0 used
// to be left alone, and under a root whose group is not 0 it came back in that group. Run as
// another user they are kept too where the system allows (its own group back from a setgid
// folder), and where it does not (another user's group-writable file), the change is refused.
// The built CLI in a child process, as another user (test/as-user.mjs): the setup needs root.
import { spawnSync } from 'node:child_process';
import { chmod, chown, lstat, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

const AS_USER = fileURLToPath(new URL('../../test/as-user.mjs', import.meta.url));
const NOBODY = 65534;
/** A group nobody is not in (as-user.mjs drops every supplementary group). */
const STAFF = 50;
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

/**
 * Every file under the sandbox with its owner, mode, inode and text: "changed nothing" means equal.
 * `folderTimes`: false for a refusal made under the lock, whose lock file came and went (the names
 * in each folder are still compared).
 */
async function snapshot(folderTimes = true): Promise<Record<string, string>> {
  const entries: Record<string, string> = {};
  for (const name of await readdir(cwd, { recursive: true })) {
    const path = join(cwd, name);
    const s = await lstat(path);
    const body = s.isFile() ? await readFile(path, 'utf8') : '';
    const time = s.isDirectory() && !folderTimes ? '' : s.mtimeMs;
    entries[relative(cwd, path)] = `${s.uid}:${s.gid} ${s.mode.toString(8)} ${s.ino} ${time} ${body}`;
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

  // The rename put nobody's own new file where root's group-writable one was: written by a group
  // member, the file changed hands (nobody could now chmod it, and its group lost nothing only by
  // chance). Only root can give it back to root, so it is refused, and nothing changes.
  it.each([
    ['install', ['install', 'cursor', '--name', 'added', '--', 'node', '/srv/x.js']],
    ['uninstall', ['uninstall', 'cursor']],
  ])(
    '%s refuses root’s file it may write as a group member (mode 664), says why, and changes nothing',
    async (command, args) => {
      const file = join(cwd, '.cursor', 'mcp.json');
      await writeFile(file, TEXT);
      await chmod(file, 0o664);
      await chown(file, 0, NOBODY);
      // An older backup, which a refusal must not replace either.
      await writeFile(`${file}.bak`, '{}\n');
      await chown(`${file}.bak`, 0, NOBODY);
      await chown(join(cwd, '.cursor'), NOBODY, NOBODY);
      const before = await snapshot(false);
      const { code, out, err } = elicitkitAs(NOBODY, NOBODY, args);
      expect({ code, out }).toEqual({ code: 1, out: '' });
      expect(err).toBe(
        `elicitkit: could not ${command} ${command === 'install' ? 'into' : 'from'} ${file}: ${file} is uid 0's (group ${NOBODY}, mode 664), and elicitkit replaces a config by renaming a new file over it, which this user (uid ${NOBODY}) cannot give to uid 0: it would become yours. Nothing was changed. Run the command as the file's owner and in its group, or with sudo (the owner and group are kept), or make the change yourself (--dry-run shows it).\n`,
      );
      expect(await snapshot(false)).toEqual(before);
    },
  );

  it('refuses its own file in a group it is not a member of, and changes nothing', async () => {
    const file = join(cwd, '.cursor', 'mcp.json');
    await writeFile(file, TEXT);
    await chmod(file, 0o664);
    await chown(file, NOBODY, STAFF);
    await chown(join(cwd, '.cursor'), NOBODY, NOBODY);
    const before = await snapshot(false);
    const { code, out, err } = elicitkitAs(NOBODY, NOBODY, ['uninstall', 'cursor']);
    expect({ code, out }).toEqual({ code: 1, out: '' });
    expect(err).toBe(
      `elicitkit: could not uninstall from ${file}: ${file} is in group ${STAFF} (mode 664), and elicitkit replaces a config by renaming a new file over it, which this user (uid ${NOBODY}) cannot put in group ${STAFF}, not being a member: it would move to group ${NOBODY}. Nothing was changed. Run the command as the file's owner and in its group, or with sudo (the owner and group are kept), or make the change yourself (--dry-run shows it).\n`,
    );
    expect(await snapshot(false)).toEqual(before);
  });

  // A setgid folder gives a new file its own group: the config, and its .bak, went to that group.
  // Its owner may give its own group back, so the file keeps it.
  it.each([
    ['install', ['install', 'cursor', '--name', 'added', '--', 'node', '/srv/x.js']],
    ['uninstall', ['uninstall', 'cursor']],
  ])('%s keeps its own file’s group in a setgid folder of another group, and its .bak’s', async (_command, args) => {
    const folder = join(cwd, '.cursor');
    const file = join(folder, 'mcp.json');
    await writeFile(file, TEXT);
    await chown(file, NOBODY, NOBODY);
    await chmod(file, 0o640);
    await chown(cwd, NOBODY, NOBODY);
    await chown(folder, NOBODY, STAFF);
    await chmod(folder, 0o2775);
    const { code, err } = elicitkitAs(NOBODY, NOBODY, args);
    expect({ code, err }).toEqual({ code: 0, err: '' });
    expect(await readFile(file, 'utf8')).not.toBe(TEXT);
    for (const path of [file, `${file}.bak`]) {
      const s = await lstat(path);
      expect({ path, uid: s.uid, gid: s.gid, mode: s.mode & 0o777 }).toEqual({
        path,
        uid: NOBODY,
        gid: NOBODY,
        mode: 0o640,
      });
    }
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
