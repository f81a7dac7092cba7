// A disk that fails a flush (EIO). After the rename, the config IS replaced: a failed flush of its
// folder used to be reported as "could not install" (exit 1), though the file had changed. Now the
// command says what it did, with one warning line that a crash could still undo it, and exits 0;
// a filesystem that cannot flush a folder at all (EINVAL, ENOTSUP, EISDIR) is not even a warning.
// Before the rename, a failed flush (the backup, its folder, the new text) fails the command and
// the config is left as it was. No real filesystem here can be made to answer EIO, so these pass
// the commands their one seam for it: the fsync call (`Fsync`), failing for one path.
import { lstat, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { install } from '../commands/install.js';
import { uninstall } from '../commands/uninstall.js';
import type { Fsync } from './write-file.js';

const TEXT = '{\n  "mcpServers": {\n    "opsdesk": {"command": "x", "args": []}\n  }\n}\n';

let root = '';
let cwd = '';
let folder = '';
let file = '';
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'ek-install-failing-disk-'));
  cwd = join(root, 'work');
  folder = join(cwd, '.cursor');
  file = join(folder, 'mcp.json');
  await mkdir(folder, { recursive: true });
  await mkdir(join(root, 'home'));
  await writeFile(file, TEXT);
});
afterEach(() => rm(root, { recursive: true, force: true }));

/** An error as node:fs gives it (`code`, and the message's own words). */
function fsError(code: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`${code}: failed, fsync`), { code });
}

/** The real flush, but the `nth` (1-based; every one with 0) whose path `fails` accepts throws `code`. */
function failing(fails: (path: string) => boolean, code: string, nth = 0): Fsync {
  let seen = 0;
  return async (handle, path) => {
    if (fails(path) && (nth === 0 || ++seen === nth)) throw fsError(code);
    await handle.sync();
  };
}

/** Runs `install cursor` (or `uninstall cursor`) in the sandbox with `fsync`: exit code, stdout, stderr. */
async function run(command: 'install' | 'uninstall', fsync: Fsync) {
  const out: string[] = [];
  const err: string[] = [];
  const io = { out: (line: string) => out.push(line), err: (line: string) => err.push(line) };
  const machine = { home: join(root, 'home'), cwd, platform: 'linux' as const, appData: undefined, fsync };
  const code =
    command === 'install'
      ? await install(['cursor', '--name', 'added', '--', 'node', '/srv/x.js'], io, { ...machine, defaultCommand: [] })
      : await uninstall(['cursor'], io, machine);
  return { code, out, err };
}

/** The config's text and inode: the same file, unchanged. */
async function config() {
  return { text: await readFile(file, 'utf8'), ino: (await lstat(file)).ino };
}

describe('the config folder’s flush fails after the rename (EIO)', () => {
  it.each(['install', 'uninstall'] as const)('%s says it is done, warns once, and exits 0', async (command) => {
    const { code, out, err } = await run(
      command,
      failing((path) => path === folder, 'EIO', 2),
    );
    const done =
      command === 'install'
        ? `Added MCP server "added" to ${file} (cursor, project scope).`
        : `Removed MCP server "opsdesk" from ${file} (cursor, project scope).`;
    expect({ code, out, err }).toEqual({
      code: 0,
      out: [done, `The previous version is saved as ${file}.bak.`],
      err: [
        `warning: ${file} was written, but its folder ${folder} could not be flushed to disk (EIO: failed, fsync): a crash or power loss before the system writes it may bring back the previous version (the one saved as ${file}.bak).`,
      ],
    });
    expect(await readFile(file, 'utf8')).not.toBe(TEXT);
    expect(await readFile(`${file}.bak`, 'utf8')).toBe(TEXT);
    expect((await readdir(folder)).sort()).toEqual(['mcp.json', 'mcp.json.bak']);
  });

  it('install of a new file says it may be gone after a crash', async () => {
    await rm(file);
    const { code, err } = await run(
      'install',
      failing((path) => path === folder, 'EIO'),
    );
    expect({ code, err }).toEqual({
      code: 0,
      err: [
        `warning: ${file} was written, but its folder ${folder} could not be flushed to disk (EIO: failed, fsync): a crash or power loss before the system writes it may leave no file.`,
      ],
    });
  });
});

describe('a filesystem that cannot flush a folder', () => {
  it.each(['EINVAL', 'ENOTSUP', 'EISDIR'])('answering %s is no warning: install is done', async (code) => {
    const run1 = await run(
      'install',
      failing((path) => path === folder, code),
    );
    expect({ code: run1.code, err: run1.err }).toEqual({ code: 0, err: [] });
    expect(JSON.parse(await readFile(file, 'utf8')).mcpServers.added).toEqual({ command: 'node', args: ['/srv/x.js'] });
  });
});

describe('a flush fails before the rename (EIO): nothing is replaced', () => {
  /** Which flush fails (the nth of those paths; 0: each), and what the command then says failed. */
  const cases: Record<string, () => { fails: (path: string) => boolean; nth: number; message: string }> = {
    'the backup': () => ({
      fails: (path) => path === `${file}.bak`,
      nth: 0,
      message: `the backup ${file}.bak could not be flushed to disk (EIO: failed, fsync)`,
    }),
    // The first flush of the folder: the backup's name in it (the second, after the rename, is the config's).
    'the backup’s folder': () => ({
      fails: (path) => path === folder,
      nth: 1,
      message: `the backup's folder ${folder} could not be flushed to disk (EIO: failed, fsync)`,
    }),
    'the new text': () => ({
      fails: (path) => path.endsWith('.tmp'),
      nth: 0,
      message: 'the new text could not be flushed to disk (EIO: failed, fsync)',
    }),
  };
  it.each(Object.keys(cases))(
    '%s: install and uninstall fail, saying which, and the config is as it was',
    async (what) => {
      const { fails, nth, message } = (cases[what] as (typeof cases)[string])();
      const before = await config();
      for (const command of ['install', 'uninstall'] as const) {
        const { code, out, err } = await run(command, failing(fails, 'EIO', nth));
        const into = command === 'install' ? 'install into' : 'uninstall from';
        expect({ code, out, err }).toEqual({
          code: 1,
          out: [],
          err: [`elicitkit: could not ${into} ${file}: ${message}`],
        });
        // The config untouched (its text, the same file), no temporary file left; only the .bak, a
        // copy of it — unless its own flush failed: it is put in place only once on disk.
        expect(await config()).toEqual(before);
        if (what === 'the backup') {
          expect(await readdir(folder)).toEqual(['mcp.json']);
          continue;
        }
        expect((await readdir(folder)).sort()).toEqual(['mcp.json', 'mcp.json.bak']);
        expect(await readFile(`${file}.bak`, 'utf8')).toBe(TEXT);
      }
    },
  );
});
