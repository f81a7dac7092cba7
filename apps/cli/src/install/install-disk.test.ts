import { readFileSync } from 'node:fs';
import { chmod, lstat, mkdir, readdir, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { installSandbox } from '../../test/install-sandbox.js';
import { uninstall } from '../commands/uninstall.js';

const SERVER = ['--', 'node', '/srv/opsdesk.js', '--stdio'];
const read = (name: string) => readFileSync(new URL(name, import.meta.url), 'utf8');

const box = installSandbox([]);
const run = box.run;

/** Every file and folder under the temp root with its content, mode and mtime: "untouched" means equal. */
async function snapshot(): Promise<Record<string, string>> {
  const entries: Record<string, string> = {};
  for (const name of await readdir(box.root, { recursive: true })) {
    const path = join(box.root, name);
    const s = await lstat(path);
    const body = s.isFile() ? await readFile(path, 'utf8') : '';
    entries[relative(box.root, path)] = `${s.mode.toString(8)} ${s.mtimeMs} ${s.ino} ${body}`;
  }
  return entries;
}

describe('idempotence', () => {
  it('a second run writes nothing, backs up nothing and says it is already installed', async () => {
    const file = join(box.env.cwd, '.vscode', 'mcp.json');
    await mkdir(join(box.env.cwd, '.vscode'));
    await writeFile(file, read('./fixtures/vscode-mcp.jsonc.fixture'));
    expect((await run(['vscode', ...SERVER])).code).toBe(0);
    await rm(`${file}.bak`);
    const before = await snapshot();

    const { code, out, err } = await run(['vscode', ...SERVER]);
    expect({ code, out, err }).toEqual({
      code: 0,
      out: [`MCP server "opsdesk" is already installed in ${file} (vscode, project scope); nothing to do.`],
      err: [],
    });
    expect(await snapshot()).toEqual(before);
  });
});

describe('--dry-run', () => {
  it('prints the new file as a diff and creates no file or folder', async () => {
    const before = await snapshot();
    const { code, out } = await run(['cursor', '--dry-run', ...SERVER]);
    const file = join(box.env.cwd, '.cursor', 'mcp.json');
    expect(code).toBe(0);
    expect(out).toEqual([
      `Dry run: would add MCP server "opsdesk" to ${file} (cursor, project scope); nothing was written.`,
      '--- /dev/null',
      `+++ ${file}`,
      '@@ -0,0 +1,11 @@',
      ...read('./golden/cursor.json.golden')
        .trimEnd()
        .split('\n')
        .map((line) => `+${line}`),
    ]);
    expect(await snapshot()).toEqual(before);
  });

  it('prints only the added lines for an existing file and leaves it alone, with no backup', async () => {
    const file = join(box.env.home, '.claude.json');
    await writeFile(file, read('./fixtures/claude.json.fixture'));
    const before = await snapshot();
    const { code, out } = await run(['claude-code', '--scope', 'user', '--dry-run', ...SERVER]);
    expect(code).toBe(0);
    expect(out.slice(0, 3)).toEqual([
      `Dry run: would add MCP server "opsdesk" to ${file} (claude-code, user scope); nothing was written.`,
      `--- ${file}`,
      `+++ ${file}`,
    ]);
    // A unified diff with three lines of context, as `patch` and code review tools read it.
    expect(out.slice(3)).toEqual([
      '@@ -20,8 +20,16 @@',
      '       ],',
      '       "env": {',
      // An env value may be a key: a dry run shows none (dry-run-secrets.test.ts).
      '         "MEMORY_FILE_PATH": "…"',
      '       }',
      '+    },',
      '+    "opsdesk": {',
      '+      "type": "stdio",',
      '+      "command": "node",',
      '+      "args": [',
      '+        "/srv/opsdesk.js",',
      '+        "--stdio"',
      '+      ]',
      '     }',
      '   },',
      '   "projects": {',
      '     "/home/ana/work/shop": {',
      '(header and env values, and URL passwords, query values and fragments, are shown as …)',
    ]);
    expect(await snapshot()).toEqual(before);
  });

  it('shows a replacement as the old entry out and the new one in', async () => {
    const file = join(box.env.cwd, '.mcp.json');
    await writeFile(file, '{\n  "mcpServers": {\n    "opsdesk": {"command": "old"}\n  }\n}\n');
    const before = await snapshot();
    const { code, out } = await run(['claude-code', '--dry-run', ...SERVER]);
    expect(code).toBe(0);
    expect(out[0]).toBe(
      `Dry run: would replace the existing, different MCP server "opsdesk" in ${file} (claude-code, project scope); nothing was written.`,
    );
    expect(out.slice(3)).toEqual([
      '@@ -1,5 +1,12 @@',
      ' {',
      '   "mcpServers": {',
      '-    "opsdesk": {"command": "old"}',
      '+    "opsdesk": {',
      '+      "type": "stdio",',
      '+      "command": "node",',
      '+      "args": [',
      '+        "/srv/opsdesk.js",',
      '+        "--stdio"',
      '+      ]',
      '+    }',
      '   }',
      ' }',
    ]);
    expect(await snapshot()).toEqual(before);
  });

  it('says there are no changes when the entry is already there', async () => {
    expect((await run(['trae', ...SERVER])).code).toBe(0);
    const before = await snapshot();
    const { code, out } = await run(['trae', '--dry-run', ...SERVER]);
    expect({ code, out }).toEqual({
      code: 0,
      out: [
        `Dry run: no changes; MCP server "opsdesk" is already installed in ${join(box.env.cwd, '.trae', 'mcp.json')}.`,
      ],
    });
    expect(await snapshot()).toEqual(before);
  });
});

describe('files install refuses to touch', () => {
  it.each([
    ['a syntax error', '{\n  "mcpServers": {\n    "a": {}\n    "b": {}\n  }\n}\n', '4:5: comma expected'],
    ['an unfinished file', '{"mcpServers": {"a": ', '1:22: value expected'],
    ['a root that is not an object', '["mcpServers"]\n', '1:1: the top-level value is an array, not an object'],
    ['a string root', '"hello"', '1:1: the top-level value is a string, not an object'],
    [
      'a server list that is not an object',
      '{\n  "mcpServers": "none"\n}\n',
      '2:17: "mcpServers" is a string, not an object of servers',
    ],
  ])('%s: exit 1, the file and position named, nothing written', async (_, text, where) => {
    const file = join(box.env.cwd, '.mcp.json');
    await writeFile(file, text);
    const before = await snapshot();
    for (const argv of [
      ['claude-code', ...SERVER],
      ['claude-code', '--dry-run', ...SERVER],
    ]) {
      const { code, out, err } = await run(argv);
      expect({ code, out, err }).toEqual({
        code: 1,
        out: [],
        err: [
          `elicitkit: ${file}:${where}`,
          'The file was left untouched; fix it (or move it aside) and run install again.',
        ],
      });
    }
    expect(await snapshot()).toEqual(before);
    expect(await readFile(file, 'utf8')).toBe(text);
  });

  it('reports a config path it cannot read as a tool error', async () => {
    await mkdir(join(box.env.cwd, '.mcp.json'));
    const { code, err } = await run(['claude-code', ...SERVER]);
    expect(code).toBe(1);
    const file = join(box.env.cwd, '.mcp.json');
    expect(err).toEqual([
      `elicitkit: could not install into ${file}: ${file} is a folder, not a regular file: elicitkit reads and replaces a config only as a regular file. Nothing was read or written. Point it at the client's config file, or move it aside, and run the command again.`,
    ]);
  });
});

describe('writing', () => {
  it('writes through a symlinked config, which stays a symlink', async () => {
    const dotfiles = join(box.root, 'dotfiles');
    await mkdir(dotfiles);
    await writeFile(join(dotfiles, 'claude.json'), '{"theme": "dark"}\n');
    const file = join(box.env.home, '.claude.json');
    await symlink(join(dotfiles, 'claude.json'), file);
    expect((await run(['claude-code', '--scope', 'user', ...SERVER])).code).toBe(0);
    expect((await lstat(file)).isSymbolicLink()).toBe(true);
    expect(await readFile(join(dotfiles, 'claude.json'), 'utf8')).toBe(
      '{"theme": "dark", "mcpServers": {"opsdesk": {"type": "stdio", "command": "node", "args": ["/srv/opsdesk.js", "--stdio"]}}}\n',
    );
    expect(await readFile(`${file}.bak`, 'utf8')).toBe('{"theme": "dark"}\n');
  });

  it('writes through a symlink whose file does not exist yet, creating that file and its folder', async () => {
    const file = join(box.env.home, '.claude.json');
    // Relative, as a dotfiles manager makes it: read from the link's own folder.
    await symlink(join('..', 'dotfiles', 'claude.json'), file);
    const { code, out, err } = await run(['claude-code', '--scope', 'user', ...SERVER]);
    expect({ code, out, err }).toEqual({
      code: 0,
      out: [`Created ${file} with MCP server "opsdesk" (claude-code, user scope).`],
      err: [],
    });
    expect((await lstat(file)).isSymbolicLink()).toBe(true);
    const written = JSON.parse(await readFile(join(box.root, 'dotfiles', 'claude.json'), 'utf8'));
    expect(written.mcpServers.opsdesk).toEqual({
      type: 'stdio',
      command: 'node',
      args: ['/srv/opsdesk.js', '--stdio'],
    });
    expect((await readdir(box.env.home)).sort()).toEqual(['.claude.json']);
  });

  it('leaves no temporary files behind', async () => {
    expect((await run(['vscode', ...SERVER])).code).toBe(0);
    expect((await run(['vscode', '--name', 'second', ...SERVER])).code).toBe(0);
    expect((await readdir(join(box.env.cwd, '.vscode'))).sort()).toEqual(['mcp.json', 'mcp.json.bak']);
    expect((await stat(join(box.env.cwd, '.vscode', 'mcp.json'))).isFile()).toBe(true);
  });
});

describe('a config made read-only', () => {
  it.each([
    ['install', (name: string) => run(['cursor', '--name', name, ...SERVER])],
    [
      'uninstall',
      async (name: string) => {
        const out: string[] = [];
        const err: string[] = [];
        const code = await uninstall(
          ['cursor', '--name', name],
          { out: (l) => out.push(l), err: (l) => err.push(l) },
          box.env,
        );
        return { code, out, err };
      },
    ],
  ])('%s refuses it, says how to go on, and changes nothing', async (_command, act) => {
    const file = join(box.env.cwd, '.cursor', 'mcp.json');
    await mkdir(join(box.env.cwd, '.cursor'), { recursive: true });
    await writeFile(file, '{"mcpServers": {"mine": {"command": "x"}, "theirs": {"command": "y"}}}\n');
    await chmod(file, 0o444);
    const before = await snapshot();
    const { code, err } = await act(_command === 'install' ? 'added' : 'theirs');
    expect(code).toBe(1);
    expect(err).toEqual([expect.stringContaining(`${file} is read-only`)]);
    expect(err[0]).toContain('chmod u+w');
    expect(await snapshot()).toEqual(before);
    await chmod(file, 0o644);
    await rm(file);
  });
});
