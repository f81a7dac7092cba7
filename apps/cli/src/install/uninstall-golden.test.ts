import { existsSync, readFileSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { installSandbox } from '../../test/install-sandbox.js';
import { uninstall } from '../commands/uninstall.js';
import { CLIENT_IDS, type ClientId, configPath } from './clients.js';
import { planRemove } from './plan-edit.js';

const SERVER = ['--', 'node', '/srv/opsdesk.js', '--stdio'];
const REMOTE = ['--url', 'http://127.0.0.1:7777/mcp', '--header', 'Authorization=Bearer ek_test'];
const read = (name: string) => readFileSync(new URL(name, import.meta.url), 'utf8');

const box = installSandbox([]);

async function remove(argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await uninstall(argv, { out: (s) => out.push(s), err: (s) => err.push(s) }, box.env);
  return { code, out, err };
}

describe('install --url writes each client’s own remote entry (golden files)', () => {
  it.each(CLIENT_IDS.filter((c) => c !== 'claude-desktop'))('%s', async (client: ClientId) => {
    const file = configPath(client, 'project', box.env);
    const { code, err } = await box.run([client, ...REMOTE]);
    expect({ code, err }).toEqual({ code: 0, err: [] });
    expect(await readFile(file, 'utf8')).toBe(read(`./golden/${client}-http.json.golden`));
  });

  it('leaves headers out when none are given', async () => {
    expect((await box.run(['cursor', '--url', 'https://ops.example.com/mcp'])).code).toBe(0);
    expect(JSON.parse(await readFile(configPath('cursor', 'project', box.env), 'utf8'))).toEqual({
      mcpServers: { opsdesk: { url: 'https://ops.example.com/mcp' } },
    });
  });

  it('refuses Claude Desktop clearly (its config file takes only stdio servers) and writes nothing', async () => {
    const { code, err } = await box.run(['claude-desktop', ...REMOTE]);
    expect(code).toBe(2);
    expect(err.join('\n')).toContain('claude-desktop cannot take a remote server');
    expect(err.join('\n')).toContain('Settings → Connectors');
    expect(existsSync(configPath('claude-desktop', 'user', box.env))).toBe(false);
  });

  it.each([
    [['cursor', '--header', 'A=b'], '--header needs --url'],
    [['cursor', '--url', 'not a url'], 'is not a URL'],
    [['cursor', '--url', 'ftp://h/mcp'], '--url must be http or https, not ftp:'],
    [['cursor', '--url', 'http://h/mcp', '--header', 'no separator here'], 'must be "Name: value"'],
    [['cursor', '--url', 'http://h/mcp', '--header', 'A=1', '--header', 'A=2'], '--header A is given twice'],
    [['cursor', '--url', 'http://h/mcp', '--', 'node', 's.js'], 'give --url or a command after --, not both'],
  ])('refuses %j: %s', async (argv, message) => {
    await expect(box.run(argv)).rejects.toThrow(message);
  });
});

describe('uninstall keeps the rest of the file byte for byte', () => {
  it('gives back the VS Code file exactly as it was before install (comments, trailing commas)', async () => {
    const before = read('./fixtures/vscode-mcp.jsonc.fixture');
    const file = join(box.env.cwd, '.vscode', 'mcp.json');
    await mkdir(dirname(file));
    await writeFile(file, before);
    expect((await box.run(['vscode', ...SERVER])).code).toBe(0);
    const { code, out, err } = await remove(['vscode']);
    expect({ code, err }).toEqual({ code: 0, err: [] });
    expect(out).toEqual([
      `Removed MCP server "opsdesk" from ${file} (vscode, project scope).`,
      `The previous version is saved as ${file}.bak.`,
    ]);
    expect(await readFile(file, 'utf8')).toBe(before);
    expect(await readFile(`${file}.bak`, 'utf8')).toBe(read('./golden/vscode-merged.jsonc.golden'));
  });

  it('gives back ~/.claude.json exactly as it was before install, local or remote', async () => {
    const before = read('./fixtures/claude.json.fixture');
    const file = join(box.env.home, '.claude.json');
    for (const how of [SERVER, REMOTE]) {
      await writeFile(file, before);
      expect((await box.run(['claude-code', '--scope', 'user', ...how])).code).toBe(0);
      expect((await remove(['claude-code', '--scope', 'user'])).code).toBe(0);
      expect(await readFile(file, 'utf8')).toBe(before);
    }
  });

  it('removes a server by --name from the middle, keeping its neighbours and their comments', async () => {
    const file = join(box.env.cwd, '.cursor', 'mcp.json');
    await mkdir(dirname(file));
    await writeFile(file, read('./fixtures/vscode-mcp.jsonc.fixture').replace('"servers"', '"mcpServers"'));
    expect((await remove(['cursor', '--name', 'github'])).code).toBe(0);
    expect(await readFile(file, 'utf8')).toBe(read('./golden/cursor-uninstalled.jsonc.golden'));
  });

  it('leaves a file without the entry untouched, and creates none', async () => {
    const file = join(box.env.cwd, '.mcp.json');
    const { code, out } = await remove(['claude-code']);
    expect(code).toBe(0);
    expect(out[0]).toContain('is not in');
    expect(existsSync(file)).toBe(false);
    await writeFile(file, '{"mcpServers": {"git": {}}}');
    expect((await remove(['claude-code'])).code).toBe(0);
    expect(await readFile(file, 'utf8')).toBe('{"mcpServers": {"git": {}}}');
    expect(existsSync(`${file}.bak`)).toBe(false);
  });

  it('refuses a file it cannot parse, and leaves it alone', async () => {
    const file = join(box.env.cwd, '.mcp.json');
    await writeFile(file, '{"mcpServers": {"opsdesk": {}');
    const { code, err } = await remove(['claude-code']);
    expect(code).toBe(1);
    expect(err[0]).toMatch(/\.mcp\.json:1:\d+: /);
    expect(await readFile(file, 'utf8')).toBe('{"mcpServers": {"opsdesk": {}');
  });

  it('--dry-run prints the diff and writes nothing', async () => {
    const file = join(box.env.cwd, '.mcp.json');
    await writeFile(file, '{\n  "mcpServers": {\n    "opsdesk": {},\n    "git": {}\n  }\n}\n');
    const { code, out } = await remove(['claude-code', '--dry-run']);
    expect(code).toBe(0);
    expect(out).toContain('-    "opsdesk": {},');
    expect(await readFile(file, 'utf8')).toBe('{\n  "mcpServers": {\n    "opsdesk": {},\n    "git": {}\n  }\n}\n');
  });
});

describe('planRemove', () => {
  const cases: [string, string, string][] = [
    ['one line, first', '{"mcpServers": {"opsdesk": {}, "git": {}}}', '{"mcpServers": {"git": {}}}'],
    ['one line, last', '{"mcpServers": {"git": {}, "opsdesk": {"a": [1]}}}', '{"mcpServers": {"git": {}}}'],
    ['one line, only', '{"mcpServers": {"opsdesk": {}}}', '{"mcpServers": {}}'],
    [
      'last of several lines: the comma before it goes',
      '{\n  "mcpServers": {\n    "git": {},\n    "opsdesk": {\n      "url": "x"\n    }\n  }\n}\n',
      '{\n  "mcpServers": {\n    "git": {}\n  }\n}\n',
    ],
    [
      'last with a trailing comma (JSONC): the previous comma stays',
      '{\n  "servers": {\n    "git": {},\n    "opsdesk": {}, // mine\n  },\n}\n',
      '{\n  "servers": {\n    "git": {},\n  },\n}\n',
    ],
    [
      'CRLF line ends',
      '{\r\n  "mcpServers": {\r\n    "opsdesk": {},\r\n    "git": {}\r\n  }\r\n}\r\n',
      '{\r\n  "mcpServers": {\r\n    "git": {}\r\n  }\r\n}\r\n',
    ],
    [
      'a duplicate key: every copy goes (clients read the last)',
      '{"mcpServers": {"opsdesk": {}, "git": {}, "opsdesk": {"b": 1}}}',
      '{"mcpServers": {"git": {}}}',
    ],
    ['a byte-order mark stays', '\uFEFF{"mcpServers": {"opsdesk": {}, "git": 1}}', '\uFEFF{"mcpServers": {"git": 1}}'],
  ];
  it.each(cases)('%s', (_name, before, after) => {
    const root = before.includes('"servers"') ? 'servers' : 'mcpServers';
    expect(planRemove(before, root, 'opsdesk')).toEqual({ kind: 'remove', text: after });
  });

  it('does not touch a key of the same name outside the servers object', () => {
    expect(planRemove('{"opsdesk": 1, "mcpServers": {"git": {}}}', 'mcpServers', 'opsdesk')).toEqual({
      kind: 'absent',
    });
  });
});
