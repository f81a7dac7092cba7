// uninstall used to write a config that no longer parsed when the entry's separating comma sat at the
// start of the next line (comma-first layout, or a comma on a line of its own). It goes with the entry.
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { uninstall } from '../commands/uninstall.js';

let root = '';
let home = '';
let cwd = '';
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'ek-install-comma-first-'));
  home = join(root, 'home');
  cwd = join(root, 'work');
  await mkdir(home);
  await mkdir(cwd);
});
afterEach(() => rm(root, { recursive: true, force: true }));

async function runUninstall(argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await uninstall(
    argv,
    { out: (l) => out.push(l), err: (l) => err.push(l) },
    { home, cwd, platform: 'linux', appData: undefined },
  );
  return { code, out, err };
}

describe('uninstall keeps the file valid JSON whatever line the comma is on', () => {
  it('comma-first layout: removing the first server leaves no leading comma', async () => {
    const file = join(cwd, '.mcp.json');
    await writeFile(
      file,
      [
        '{',
        '  "mcpServers": {',
        '    "opsdesk": {"command": "node", "args": ["a.js"]}',
        '  , "other": {"command": "x", "args": []}',
        '  }',
        '}',
        '',
      ].join('\n'),
    );
    const { code } = await runUninstall(['claude-code']);
    expect(code).toBe(0);
    const after = await readFile(file, 'utf8');
    // Claude Code reads .mcp.json with JSON.parse: the other server must survive in a file it can read.
    expect(() => JSON.parse(after)).not.toThrow();
    expect(JSON.parse(after)).toEqual({ mcpServers: { other: { command: 'x', args: [] } } });
  });

  it('a comma on a line of its own after the last server does not stay behind', async () => {
    const file = join(cwd, '.mcp.json');
    await writeFile(
      file,
      [
        '{',
        '  "mcpServers": {',
        '    "other": {"command": "x", "args": []},',
        '    "opsdesk": {"command": "node", "args": ["a.js"]}',
        '    ,',
        '    "third": {"command": "y", "args": []}',
        '  }',
        '}',
        '',
      ].join('\n'),
    );
    const { code } = await runUninstall(['claude-code']);
    expect(code).toBe(0);
    const after = await readFile(file, 'utf8');
    expect(() => JSON.parse(after)).not.toThrow();
    expect(Object.keys(JSON.parse(after).mcpServers)).toEqual(['other', 'third']);
  });
});
