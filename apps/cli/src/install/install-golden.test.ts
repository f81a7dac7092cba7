import { existsSync, readFileSync } from 'node:fs';
import { mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { installSandbox } from '../../test/install-sandbox.js';
import { CLIENT_IDS, type ClientId, configPath } from './clients.js';

const SERVER = ['--', 'node', '/srv/opsdesk.js', '--stdio'];
const read = (name: string) => readFileSync(new URL(name, import.meta.url), 'utf8');

const box = installSandbox([]);
const run = box.run;

describe('fresh installs match the golden files', () => {
  it.each(CLIENT_IDS)('%s', async (client: ClientId) => {
    const scope = client === 'claude-desktop' ? 'user' : 'project';
    const file = configPath(client, scope, box.env);
    const { code, out, err } = await run([client, ...SERVER]);
    expect({ code, err }).toEqual({ code: 0, err: [] });
    expect(out).toEqual([`Created ${file} with MCP server "opsdesk" (${client}, ${scope} scope).`]);
    expect(await readFile(file, 'utf8')).toBe(read(`./golden/${client}.json.golden`));
    expect(existsSync(`${file}.bak`)).toBe(false);
  });

  it.each(CLIENT_IDS.filter((c) => c !== 'claude-desktop'))('%s in the user scope', async (client) => {
    const { code } = await run([client, '--scope', 'user', ...SERVER]);
    expect(code).toBe(0);
    expect(await readFile(configPath(client, 'user', box.env), 'utf8')).toBe(read(`./golden/${client}.json.golden`));
  });

  it.each([
    ['claude-desktop', 'Library/Application Support/Claude/claude_desktop_config.json'],
    ['vscode', 'Library/Application Support/Code/User/mcp.json'],
  ])('%s on macOS goes under ~/Library/Application Support', async (client, path) => {
    const { code } = await run([client, '--scope', 'user', ...SERVER], { platform: 'darwin' });
    expect(code).toBe(0);
    expect(await readFile(join(box.env.home, path), 'utf8')).toBe(read(`./golden/${client}.json.golden`));
  });

  it.each([
    ['claude-desktop', '.config/Claude/claude_desktop_config.json'],
    ['vscode', '.config/Code/User/mcp.json'],
  ])('%s on Linux goes under ~/.config', async (client, path) => {
    const { code } = await run([client, '--scope', 'user', ...SERVER]);
    expect(code).toBe(0);
    expect(await readFile(join(box.env.home, path), 'utf8')).toBe(read(`./golden/${client}.json.golden`));
  });
});

describe('merging into existing configs', () => {
  it('keeps VS Code’s comments, trailing commas and other servers byte-for-byte', async () => {
    const before = read('./fixtures/vscode-mcp.jsonc.fixture');
    const file = join(box.env.cwd, '.vscode', 'mcp.json');
    await mkdir(join(box.env.cwd, '.vscode'));
    await writeFile(file, before);
    const { code, out, err } = await run(['vscode', ...SERVER]);
    expect({ code, err }).toEqual({ code: 0, err: [] });
    expect(out).toEqual([
      `Added MCP server "opsdesk" to ${file} (vscode, project scope).`,
      `The previous version is saved as ${file}.bak.`,
    ]);
    expect(await readFile(file, 'utf8')).toBe(read('./golden/vscode-merged.jsonc.golden'));
    expect(await readFile(`${file}.bak`, 'utf8')).toBe(before);
  });

  it('keeps every other key of ~/.claude.json, nested mcpServers included', async () => {
    const before = read('./fixtures/claude.json.fixture');
    const file = join(box.env.home, '.claude.json');
    await writeFile(file, before);
    const { code, err } = await run(['claude-code', '--scope', 'user', ...SERVER]);
    expect({ code, err }).toEqual({ code: 0, err: [] });
    expect(await readFile(file, 'utf8')).toBe(read('./golden/claude-merged.json.golden'));
    expect(await readFile(`${file}.bak`, 'utf8')).toBe(before);
  });

  it('adds mcpServers at the end of a ~/.claude.json that has none', async () => {
    const full = read('./fixtures/claude.json.fixture');
    const before = full.replace(/\n {2}"mcpServers": \{\n[\s\S]*?\n {2}\},/, '');
    expect(before).not.toMatch(/^ {2}"mcpServers"/m);
    const file = join(box.env.home, '.claude.json');
    await writeFile(file, before);
    expect((await run(['claude-code', '--scope', 'user', ...SERVER])).code).toBe(0);
    const entry = read('./golden/claude-code.json.golden').slice(1, -3);
    expect(await readFile(file, 'utf8')).toBe(`${before.slice(0, -2)},${entry}\n}`);
  });

  it('replaces a different entry of the same name, says so, and keeps the old file', async () => {
    const file = join(box.env.cwd, '.mcp.json');
    const before =
      '{\n  "mcpServers": {\n    "opsdesk": {"command": "npx", "args": ["opsdesk@0.0.1"]},\n    "git": {"command": "uvx", "args": ["mcp-server-git"]}\n  }\n}\n';
    await writeFile(file, before);
    const { code, out } = await run(['claude-code', ...SERVER]);
    expect(code).toBe(0);
    expect(out[0]).toBe(
      `Replaced the existing, different MCP server "opsdesk" in ${file} (claude-code, project scope).`,
    );
    expect(await readFile(file, 'utf8')).toBe(
      before.replace(
        '{"command": "npx", "args": ["opsdesk@0.0.1"]}',
        '{\n      "type": "stdio",\n      "command": "node",\n      "args": [\n        "/srv/opsdesk.js",\n        "--stdio"\n      ]\n    }',
      ),
    );
    expect(await readFile(`${file}.bak`, 'utf8')).toBe(before);
  });

  it('notes comments in a file whose client reads plain JSON, and still installs', async () => {
    const file = join(box.env.home, '.cursor', 'mcp.json');
    await mkdir(join(box.env.home, '.cursor'));
    await writeFile(file, '{\n  // work servers\n  "mcpServers": {}\n}\n');
    const { code, err } = await run(['cursor', '--scope', 'user', ...SERVER]);
    expect(code).toBe(0);
    expect(err).toEqual([
      `note: ${file}: the file has comments or trailing commas (first at line 2, column 3); this client may not accept them`,
    ]);
    expect(await readFile(file, 'utf8')).toContain('// work servers\n  "mcpServers": {\n    "opsdesk": {');
  });

  it('keeps the file mode of the config and gives the backup the same', async () => {
    const file = join(box.env.home, '.claude.json');
    await writeFile(file, '{"numStartups": 1}', { mode: 0o600 });
    expect((await run(['claude-code', '--scope', 'user', ...SERVER])).code).toBe(0);
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect((await stat(`${file}.bak`)).mode & 0o777).toBe(0o600);
  });
});
