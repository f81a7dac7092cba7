/**
 * A config that is not a regular file is refused, by name and with what it is, before a byte of it
 * is read or written: `install` and `uninstall` as the CLI runs them, and `writeAtomically` itself.
 * Was: it was read with readFile, which waits forever on a FIFO (even for --dry-run) and read
 * /dev/zero until the process held 7.9 GB, and a write renamed a new config over a device a link
 * led to (a `.bak` left empty). A config past 256 MiB is refused before it is read, too.
 *
 * Never write through a link to the machine's own /dev/null here: run as root, a regression would
 * replace it. Writes go to a FIFO or a device made in the test's own folder (mknod needs root).
 */
import { spawnSync } from 'node:child_process';
import { lstat, mkdir, readdir, stat, symlink, truncate, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { installSandbox } from '../../test/install-sandbox.js';
import { uninstall } from '../commands/uninstall.js';
import { MAX_CONFIG_BYTES } from './regular-file.js';
import { writeAtomically } from './write-file.js';

const box = installSandbox(['node', 'server.js']);
const isRoot = process.getuid?.() === 0;
const REFUSED =
  "not a regular file: elicitkit reads and replaces a config only as a regular file. Nothing was read or written. Point it at the client's config file, or move it aside, and run the command again.";

/** Makes a FIFO at `path` (Node has no mkfifo of its own). */
function mkfifo(path: string): void {
  const made = spawnSync('mkfifo', [path], { encoding: 'utf8' });
  if (made.status !== 0) throw new Error(`mkfifo ${path}: ${made.stderr}`);
}

/** The project's `.cursor` folder, made, and its config's path. */
async function cursorFolder(): Promise<{ folder: string; config: string }> {
  const folder = join(box.env.cwd, '.cursor');
  await mkdir(folder);
  return { folder, config: join(folder, 'mcp.json') };
}

async function uninstallRun(argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await uninstall(argv, { out: (l) => out.push(l), err: (l) => err.push(l) }, box.env);
  return { code, out, err };
}

describe('a config that is not a regular file', () => {
  it('a FIFO: install and its dry run refuse it at once, naming it, and leave it as it was', async () => {
    const { folder, config } = await cursorFolder();
    mkfifo(config);
    for (const argv of [['cursor', '--dry-run'], ['cursor']]) {
      const r = await box.run(argv);
      expect(r).toEqual({
        code: 1,
        out: [],
        err: [`elicitkit: could not install into ${config}: ${config} is a named pipe (FIFO), ${REFUSED}`],
      });
    }
    expect((await lstat(config)).isFIFO()).toBe(true);
    expect(await readdir(folder)).toEqual(['mcp.json']);
  });

  it('uninstall refuses a FIFO too', async () => {
    const { folder, config } = await cursorFolder();
    mkfifo(config);
    for (const argv of [['cursor', '--dry-run'], ['cursor']]) {
      expect(await uninstallRun(argv)).toEqual({
        code: 1,
        out: [],
        err: [`elicitkit: could not uninstall from ${config}: ${config} is a named pipe (FIFO), ${REFUSED}`],
      });
    }
    expect(await readdir(folder)).toEqual(['mcp.json']);
  });

  it('a symlink to a FIFO: named with where it leads', async () => {
    const { folder, config } = await cursorFolder();
    const fifo = join(box.root, 'pipe');
    mkfifo(fifo);
    await symlink(fifo, config);
    const r = await box.run(['cursor']);
    expect(r.err).toEqual([
      `elicitkit: could not install into ${config}: ${config} leads to ${fifo}, a named pipe (FIFO), ${REFUSED}`,
    ]);
    expect((await lstat(fifo)).isFIFO()).toBe(true);
    expect((await lstat(config)).isSymbolicLink()).toBe(true);
    expect(await readdir(folder)).toEqual(['mcp.json']);
  });

  it('a symlink to /dev/null: the dry run refuses it (was: read as an empty file, a new config planned)', async () => {
    const { config } = await cursorFolder();
    await symlink('/dev/null', config);
    const r = await box.run(['cursor', '--dry-run']);
    expect(r).toEqual({
      code: 1,
      out: [],
      err: [
        `elicitkit: could not install into ${config}: ${config} leads to /dev/null, a character device, ${REFUSED}`,
      ],
    });
  });

  it('a symlink to a character device: install refuses, the device stays, no .bak', async (context) => {
    context.skip(!isRoot, 'mknod needs root: the device case is not run as this user');
    const { folder, config } = await cursorFolder();
    await mkdir(join(box.env.cwd, 'dev'));
    const device = join(box.env.cwd, 'dev', 'mynull');
    // 1,3 is /dev/null's number: a device that reads empty, in the test's own folder.
    const made = spawnSync('mknod', [device, 'c', '1', '3'], { encoding: 'utf8' });
    expect(made.status, made.stderr).toBe(0);
    await symlink('../dev/mynull', config);
    for (const argv of [['cursor', '--dry-run'], ['cursor']]) {
      const r = await box.run(argv);
      expect(r).toEqual({
        code: 1,
        out: [],
        err: [
          `elicitkit: could not install into ${config}: ${config} leads to ${device}, a character device, ${REFUSED}`,
        ],
      });
    }
    expect((await lstat(device)).isCharacterDevice()).toBe(true);
    expect(await readdir(folder)).toEqual(['mcp.json']);
    expect(await readdir(join(box.env.cwd, 'dev'))).toEqual(['mynull']);
  });
});

describe('a config larger than 256 MiB', () => {
  it('is refused before it is read, its size said, and left as it was', async () => {
    const { folder, config } = await cursorFolder();
    // Sparse: 300 MiB long, no disk taken. Read, it was a zero-filled config held in memory.
    await writeFile(config, '');
    await truncate(config, 300 * 1024 * 1024);
    expect(MAX_CONFIG_BYTES).toBe(256 * 1024 * 1024);
    for (const argv of [['cursor', '--dry-run'], ['cursor']]) {
      const r = await box.run(argv);
      expect(r).toEqual({
        code: 1,
        out: [],
        err: [
          `elicitkit: could not install into ${config}: ${config} is 300.0 MiB: elicitkit reads no config larger than 256.0 MiB. Check that it is the client's config (Claude Code keeps its project history in ~/.claude.json: removing old projects from it shrinks it), or make the change yourself. Nothing was read or written.`,
        ],
      });
    }
    expect((await stat(config)).size).toBe(300 * 1024 * 1024);
    expect(await readdir(folder)).toEqual(['mcp.json']);
  });
});

describe('writeAtomically over what is not a regular file', () => {
  it('a FIFO: refused before anything is written, no temporary file left', async () => {
    const fifo = join(box.root, 'mcp.json');
    mkfifo(fifo);
    await expect(writeAtomically(fifo, '{}\n', { backup: true })).rejects.toThrow(
      `${fifo} is a named pipe (FIFO), ${REFUSED}`,
    );
    expect((await lstat(fifo)).isFIFO()).toBe(true);
    expect((await readdir(box.root)).sort()).toEqual(['home', 'mcp.json', 'work']);
  });

  it('a character device through a symlink: the device stays', async (context) => {
    context.skip(!isRoot, 'mknod needs root: the device case is not run as this user');
    const device = join(box.root, 'mynull');
    const made = spawnSync('mknod', [device, 'c', '1', '3'], { encoding: 'utf8' });
    expect(made.status, made.stderr).toBe(0);
    const link = join(box.env.cwd, 'mcp.json');
    await symlink(device, link);
    await expect(writeAtomically(link, '{}\n')).rejects.toThrow(
      `${link} leads to ${device}, a character device, ${REFUSED}`,
    );
    expect((await lstat(device)).isCharacterDevice()).toBe(true);
    expect((await readdir(box.root)).sort()).toEqual(['home', 'mynull', 'work']);
    expect(await readdir(box.env.cwd)).toEqual(['mcp.json']);
  });
});
