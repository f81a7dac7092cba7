/**
 * The backup install and uninstall keep (`<config>.bak`) is written as a new file and renamed into
 * place: whatever the name holds now — a symlink (dangling or not), a hard link, a folder — nothing
 * is written through it. A project's folder is anyone's to fill: a cloned repository can ship
 * `.cursor/mcp.json.bak` as a link to the user's `~/.ssh/authorized_keys`.
 */
import { chmod, link, lstat, mkdir, readdir, readFile, stat, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { installSandbox } from '../../test/install-sandbox.js';
import { uninstall } from '../commands/uninstall.js';

const SERVER = ['--', 'node', '/srv/opsdesk.js', '--stdio'];
const CONFIG = '{\n  "mcpServers": {\n    "theirs": { "command": "y" }\n  }\n}\n';
const box = installSandbox([]);

const uninstalling = async (argv: string[]) => {
  const err: string[] = [];
  const code = await uninstall(argv, { out: () => {}, err: (l) => err.push(l) }, box.env);
  return { code, err };
};

/** The project's Cursor config holding CONFIG, and a private file of the user's elsewhere. */
async function project(): Promise<{ file: string; victim: string }> {
  await mkdir(join(box.env.cwd, '.cursor'));
  const file = join(box.env.cwd, '.cursor', 'mcp.json');
  await writeFile(file, CONFIG);
  await mkdir(join(box.env.home, '.ssh'));
  const victim = join(box.env.home, '.ssh', 'authorized_keys');
  await writeFile(victim, 'ssh-ed25519 AAAA mine\n');
  await chmod(victim, 0o600);
  return { file, victim };
}

async function expectUntouched(victim: string): Promise<void> {
  expect(await readFile(victim, 'utf8')).toBe('ssh-ed25519 AAAA mine\n');
  expect((await stat(victim)).mode & 0o777).toBe(0o600);
}

async function expectBackupOf(file: string, text: string): Promise<void> {
  const backup = await lstat(`${file}.bak`);
  expect(backup.isFile()).toBe(true);
  expect(backup.nlink).toBe(1);
  expect(await readFile(`${file}.bak`, 'utf8')).toBe(text);
}

describe('the backup, whatever <config>.bak is now', () => {
  it('a symlink to a file of the user’s: install replaces the link, and the file is as it was', async () => {
    const { file, victim } = await project();
    await symlink(join('..', '..', 'home', '.ssh', 'authorized_keys'), `${file}.bak`);
    expect((await box.run(['cursor', ...SERVER])).code).toBe(0);
    await expectUntouched(victim);
    await expectBackupOf(file, CONFIG);
  });

  it('a symlink to a file of the user’s: uninstall replaces the link, and the file is as it was', async () => {
    const { file, victim } = await project();
    await symlink(victim, `${file}.bak`);
    expect((await uninstalling(['cursor', '--name', 'theirs'])).code).toBe(0);
    await expectUntouched(victim);
    await expectBackupOf(file, CONFIG);
  });

  it('a dangling symlink: nothing is created where it points', async () => {
    const { file } = await project();
    const pointed = join(box.env.home, '.bashrc.d', 'evil.sh');
    await mkdir(join(box.env.home, '.bashrc.d'));
    await symlink(pointed, `${file}.bak`);
    expect((await box.run(['cursor', ...SERVER])).code).toBe(0);
    expect(await readdir(join(box.env.home, '.bashrc.d'))).toEqual([]);
    await expectBackupOf(file, CONFIG);
  });

  it('a hard link to a file of the user’s: the file is as it was', async () => {
    const { file, victim } = await project();
    await link(victim, `${file}.bak`);
    expect((await box.run(['cursor', ...SERVER])).code).toBe(0);
    await expectUntouched(victim);
    await expectBackupOf(file, CONFIG);
  });

  it('a folder: refused, saying so, with the config and the folder as they were and no file left behind', async () => {
    const { file } = await project();
    await mkdir(`${file}.bak`);
    await writeFile(join(`${file}.bak`, 'inside'), 'x');
    const { code, err } = await box.run(['cursor', ...SERVER]);
    expect(code).toBe(1);
    expect(err.join('\n')).toContain(
      `${file}.bak is a folder, so the previous version cannot be kept there: move it away and run the command again. Nothing was changed.`,
    );
    expect(await readFile(file, 'utf8')).toBe(CONFIG);
    expect(await readdir(`${file}.bak`)).toEqual(['inside']);
    expect((await readdir(join(box.env.cwd, '.cursor'))).sort()).toEqual(['mcp.json', 'mcp.json.bak']);
  });
});

describe('a config with other hard links', () => {
  it('is replaced under its own name; the other names keep the previous version, and a note says so', async () => {
    const { file } = await project();
    await mkdir(join(box.env.home, 'dotfiles'));
    const other = join(box.env.home, 'dotfiles', 'cursor-mcp.json');
    await link(file, other);
    const { code, err } = await box.run(['cursor', ...SERVER]);
    expect(code).toBe(0);
    expect(err).toContain(
      `note: ${file} had 1 other hard link: it keeps the previous version, and ${file} is now a file of its own (a symlink would have stayed one)`,
    );
    expect(await readFile(other, 'utf8')).toBe(CONFIG);
    expect(await readFile(file, 'utf8')).toContain('"opsdesk"');
    expect((await lstat(file)).nlink).toBe(1);
  });

  it('says nothing of links for a config with none', async () => {
    const { file } = await project();
    const { code, err } = await box.run(['cursor', ...SERVER]);
    expect(code).toBe(0);
    expect(err.filter((line) => line.includes('hard link'))).toEqual([]);
    expect(await readFile(`${file}.bak`, 'utf8')).toBe(CONFIG);
  });
});
