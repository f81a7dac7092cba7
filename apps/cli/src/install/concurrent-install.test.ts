// Two installs into the same config at once (a setup script adding two servers in parallel) used to
// each read the old file and rename their own version over it: the last rename won and the other
// server was lost, though both said "Added". The write is planned again and made under a lock, taken
// by the file written: two paths to one file (symlinks into a dotfiles repo, a symlinked folder)
// take the same one.
import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { install } from '../commands/install.js';
import { uninstall } from '../commands/uninstall.js';

let root = '';
let home = '';
let cwd = '';
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'ek-install-concurrent-'));
  home = join(root, 'home');
  cwd = join(root, 'work');
  await mkdir(home);
  await mkdir(join(cwd, '.cursor'), { recursive: true });
});
afterEach(() => rm(root, { recursive: true, force: true }));

describe('concurrent installs into one file', () => {
  it('keeps every server that an install reported as added', async () => {
    const file = join(cwd, '.cursor', 'mcp.json');
    await writeFile(file, '{\n  "mcpServers": {\n    "existing": {"command": "x", "args": []}\n  }\n}\n');
    const names = ['one', 'two', 'three'];
    const outs: string[][] = names.map(() => []);
    const codes = await Promise.all(
      names.map((name, i) =>
        install(
          ['cursor', '--name', name, '--', 'node', `${name}.js`],
          { out: (l) => outs[i]?.push(l), err: (l) => outs[i]?.push(l) },
          { home, cwd, platform: 'linux', appData: undefined, defaultCommand: [] },
        ),
      ),
    );
    const servers = JSON.parse(await readFile(file, 'utf8')).mcpServers;
    // Every run that exited 0 said it added its server: the file must hold it (or a run must fail).
    names.forEach((name, i) => {
      if (codes[i] === 0) expect(Object.keys(servers), outs[i]?.join('\n')).toContain(name);
    });
    expect(Object.keys(servers)).toContain('existing');
  });
});

const EXISTING = '{\n  "mcpServers": {\n    "existing": {"command": "x", "args": []}\n  }\n}\n';

/** Runs every install (or `uninstall`) at once, each from its `cwd`, as separate commands would. */
async function together(runs: { argv: string[]; cwd: string; uninstall?: boolean }[]) {
  const logs: string[][] = runs.map(() => []);
  const codes = await Promise.all(
    runs.map((run, i) => {
      const io = { out: (l: string) => logs[i]?.push(l), err: (l: string) => logs[i]?.push(l) };
      const env = { home, cwd: run.cwd, platform: 'linux' as const, appData: undefined };
      return run.uninstall ? uninstall(run.argv, io, env) : install(run.argv, io, { ...env, defaultCommand: [] });
    }),
  );
  return { codes, log: logs.flat().join('\n') };
}

describe('concurrent changes to one file through two paths to it', () => {
  it('a dotfiles file linked as both the user and the project config: every server reported added is kept', async () => {
    const dotfiles = join(root, 'dotfiles');
    await mkdir(dotfiles);
    await mkdir(join(home, '.cursor'));
    const real = join(dotfiles, 'mcp.json');
    await writeFile(real, EXISTING);
    await symlink(real, join(home, '.cursor', 'mcp.json'));
    await symlink(real, join(cwd, '.cursor', 'mcp.json'));
    const names = ['project-1', 'user-1', 'project-2', 'user-2', 'project-3', 'user-3'];
    const { codes, log } = await together(
      names.map((name) => ({
        argv: ['cursor', '--scope', name.split('-')[0] as string, '--name', name, '--', 'node', `${name}.js`],
        cwd,
      })),
    );
    const servers = Object.keys(JSON.parse(await readFile(real, 'utf8')).mcpServers);
    const lost = names.filter((name, i) => codes[i] === 0 && !servers.includes(name));
    expect(lost, `reported added, missing from ${real}:\n${log}`).toEqual([]);
    expect(servers).toContain('existing');
  });

  it('a project reached through a symlinked folder and its real one, installs and uninstalls mixed: each did what it said', async () => {
    const link = join(root, 'work-link');
    await symlink(cwd, link);
    const file = join(cwd, '.cursor', 'mcp.json');
    await writeFile(
      file,
      '{\n  "mcpServers": {\n    "gone-1": {"command": "x", "args": []},\n    "gone-2": {"command": "x", "args": []}\n  }\n}\n',
    );
    const { codes, log } = await together([
      { argv: ['cursor', '--name', 'a', '--', 'node', 'a.js'], cwd },
      { argv: ['cursor', '--name', 'gone-1'], cwd: link, uninstall: true },
      { argv: ['cursor', '--name', 'b', '--', 'node', 'b.js'], cwd: link },
      { argv: ['cursor', '--name', 'gone-2'], cwd, uninstall: true },
      { argv: ['cursor', '--name', 'c', '--', 'node', 'c.js'], cwd: link },
    ]);
    expect(codes, log).toEqual([0, 0, 0, 0, 0]);
    expect(Object.keys(JSON.parse(await readFile(file, 'utf8')).mcpServers).sort(), log).toEqual(['a', 'b', 'c']);
  });
});
