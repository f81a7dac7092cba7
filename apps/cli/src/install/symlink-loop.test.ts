/**
 * A config that is a loop of symlinks (a dotfiles repo gone wrong) is refused by `install` and
 * `uninstall` with what it is — the chain named — not the kernel's "ELOOP: too many symbolic links",
 * and nothing is written or left behind.
 */
import { mkdir, readdir, symlink } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { installSandbox } from '../../test/install-sandbox.js';
import { uninstall } from '../commands/uninstall.js';

const sandbox = installSandbox(['opsdesk']);

async function loop(): Promise<{ folder: string; config: string }> {
  const folder = join(sandbox.env.cwd, '.cursor');
  await mkdir(folder);
  await symlink('b.json', join(folder, 'a.json'));
  await symlink('a.json', join(folder, 'b.json'));
  await symlink('a.json', join(folder, 'mcp.json'));
  return { folder, config: join(folder, 'mcp.json') };
}

describe('a config that is a symlink loop', () => {
  it('install refuses it by name, and writes nothing', async () => {
    const { folder, config } = await loop();
    const { code, out, err } = await sandbox.run(['cursor', '--scope', 'project']);
    expect(code).toBe(1);
    expect(out).toEqual([]);
    expect(err.join('\n')).toContain(
      `${config} is a symlink loop (${config} -> ${join(folder, 'a.json')} -> ${join(folder, 'b.json')} -> ${join(folder, 'a.json')})`,
    );
    expect(err.join('\n')).not.toContain('ELOOP');
    expect((await readdir(folder)).sort()).toEqual(['a.json', 'b.json', 'mcp.json']);
  });

  it('uninstall refuses it by name too', async () => {
    const { folder, config } = await loop();
    const out: string[] = [];
    const err: string[] = [];
    const code = await uninstall(
      ['cursor', '--scope', 'project'],
      { out: (line) => out.push(line), err: (line) => err.push(line) },
      sandbox.env,
    );
    expect(code).toBe(1);
    expect(out).toEqual([]);
    expect(err.join('\n')).toContain(`${config} is a symlink loop`);
    expect(err.join('\n')).not.toContain('ELOOP');
    expect((await readdir(folder)).sort()).toEqual(['a.json', 'b.json', 'mcp.json']);
  });
});
