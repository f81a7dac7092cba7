import { statSync, watch } from 'node:fs';
import { chmod, lstat, mkdir, mkdtemp, readdir, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { writeAtomically } from './write-file.js';

let root = '';
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'elicitkit-write-file-'));
});
afterEach(() => rm(root, { recursive: true, force: true }));

describe('writeAtomically through symlinks', () => {
  it('follows a chain of relative links to a file that does not exist yet, and keeps every link', async () => {
    await mkdir(join(root, 'home'));
    await mkdir(join(root, 'dotfiles'));
    const file = join(root, 'home', 'mcp.json');
    await symlink(join('..', 'dotfiles', 'mcp.json'), file);
    await symlink(join('..', 'store', 'deep', 'mcp.json'), join(root, 'dotfiles', 'mcp.json'));
    await writeAtomically(file, '{}\n');
    expect((await lstat(file)).isSymbolicLink()).toBe(true);
    expect((await lstat(join(root, 'dotfiles', 'mcp.json'))).isSymbolicLink()).toBe(true);
    expect(await readFile(join(root, 'store', 'deep', 'mcp.json'), 'utf8')).toBe('{}\n');
    expect(await readFile(file, 'utf8')).toBe('{}\n');
  });

  it('refuses a symlink loop, says so, and writes nothing', async () => {
    const a = join(root, 'a.json');
    const b = join(root, 'b.json');
    await symlink('b.json', a);
    await symlink('a.json', b);
    await expect(writeAtomically(a, '{}\n')).rejects.toThrow(
      `${a} is a symlink loop (${a} -> ${b} -> ${a}): there is no file to write. Point the link at a file and run the command again.`,
    );
    expect((await readdir(root)).sort()).toEqual(['a.json', 'b.json']);
    expect((await lstat(a)).isSymbolicLink()).toBe(true);
  });
});

describe('writeAtomically and the file mode', () => {
  it('keeps a private file private: the temporary file is never readable by others, even while written', async () => {
    const file = join(root, 'private.json');
    await writeFile(file, '{}\n');
    await chmod(file, 0o600);
    // Every time something appears in the folder, its mode then: the temporary file while it is written.
    const seen: number[] = [];
    const watcher = watch(root, (_event, name) => {
      if (!name?.endsWith('.tmp')) return;
      try {
        seen.push(statSync(join(root, name)).mode & 0o777);
      } catch {
        // Renamed into place already.
      }
    });
    try {
      // Big enough to be written in many steps, so the folder is watched while the text goes in.
      await writeAtomically(file, `{"secret": "${'x'.repeat(16 * 1024 * 1024)}"}\n`);
    } finally {
      watcher.close();
    }
    expect(seen.length).toBeGreaterThan(0);
    expect(seen.map((mode) => mode.toString(8))).toEqual(seen.map(() => '600'));
    expect((await stat(file)).mode & 0o777).toBe(0o600);
  });

  it('gives a new file the usual mode, and an existing one its own even past the umask', async () => {
    const fresh = join(root, 'fresh.json');
    await writeAtomically(fresh, '{}\n');
    expect((await stat(fresh)).mode & 0o777).toBe(0o666 & ~process.umask());
    const shared = join(root, 'shared.json');
    await writeFile(shared, '{}\n');
    await chmod(shared, 0o664);
    await writeAtomically(shared, '{"a": 1}\n');
    expect((await stat(shared)).mode & 0o777).toBe(0o664);
  });
});
