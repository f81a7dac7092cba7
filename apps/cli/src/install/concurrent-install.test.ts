// Two installs into the same config at once (a setup script adding two servers in parallel) used to
// each read the old file and rename their own version over it: the last rename won and the other
// server was lost, though both said "Added". The write is planned again and made under a lock.
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { install } from '../commands/install.js';

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
