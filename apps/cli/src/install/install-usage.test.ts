import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { installSandbox } from '../../test/install-sandbox.js';
import { install } from '../commands/install.js';
import { UsageError } from '../usage.js';

const box = installSandbox(['node', '/srv/opsdesk.js', '--stdio']);
const run = box.run;

describe('install usage errors', () => {
  it.each([
    [[], /install needs a client: one of claude-code, claude-desktop, cursor, vscode, trae/],
    [['vs-code'], /unknown client "vs-code"; choose one of claude-code/],
    [['cursor', 'node', 'server.js'], /unexpected argument "node"; put the server command after --/],
    [['cursor', '--scope', 'global'], /--scope must be project or user, not "global"/],
    [['claude-desktop', '--scope', 'project'], /claude-desktop has no project scope; it only reads its user config/],
    [['cursor', '--name', ''], /--name needs a value, not an empty one/],
    [['cursor', '--name', 'my server'], /--name "my server" may only use letters, digits, "\.", "_" and "-"/],
    [['cursor', '--name', 'a/b'], /may only use letters, digits/],
    [['cursor', '--name', 'opsdésk'], /may only use letters, digits/],
    [['cursor', '--name', '__proto__'], /--name "__proto__" is reserved/],
    [['cursor', '--'], /"--" must be followed by the server command/],
    [['cursor', '--force'], /unknown option --force/],
    [['cursor', '--scope'], /--scope/],
    [['cursor', '--dry-run=yes'], /--dry-run/],
  ])('%j is a usage error and writes nothing', async (argv, message) => {
    const failure = run(argv);
    await expect(failure).rejects.toThrow(UsageError);
    await expect(failure).rejects.toThrow(message);
    expect(await readdir(box.env.home)).toEqual([]);
    expect(await readdir(box.env.cwd)).toEqual([]);
  });
});

describe('install arguments', () => {
  it('installs claude-desktop in its user scope by default', async () => {
    const { code } = await run(['claude-desktop']);
    expect(code).toBe(0);
    expect(await readdir(join(box.env.home, '.config', 'Claude'))).toEqual(['claude_desktop_config.json']);
  });

  it('accepts names of letters, digits, dots, underscores and dashes', async () => {
    const { code, out } = await run(['cursor', '--name', 'Ops.desk_2-b']);
    expect(code).toBe(0);
    expect(out[0]).toContain('MCP server "Ops.desk_2-b"');
    expect(JSON.parse(await readFile(join(box.env.cwd, '.cursor', 'mcp.json'), 'utf8'))).toEqual({
      mcpServers: { 'Ops.desk_2-b': { command: 'node', args: ['/srv/opsdesk.js', '--stdio'] } },
    });
  });

  it('passes everything after the first -- to the server, flags included', async () => {
    const { code } = await run(['cursor', '--scope', 'user', '--', 'uvx', 'srv', '--scope', 'x', '--', '-v']);
    expect(code).toBe(0);
    expect(JSON.parse(await readFile(join(box.env.home, '.cursor', 'mcp.json'), 'utf8'))).toEqual({
      mcpServers: { opsdesk: { command: 'uvx', args: ['srv', '--scope', 'x', '--', '-v'] } },
    });
  });

  it('installs the bundled opsdesk by absolute paths when no command is given', async () => {
    const out: string[] = [];
    const { defaultCommand: _, ...machine } = box.env;
    const code = await install(['trae'], { out: (l) => out.push(l), err: () => {} }, machine);
    expect(code).toBe(0);
    const config = JSON.parse(await readFile(join(box.env.cwd, '.trae', 'mcp.json'), 'utf8'));
    expect(config.mcpServers.opsdesk).toEqual({
      command: process.execPath,
      args: [expect.stringMatching(/^\/.*apps\/cli\/bin\/elicitkit\.js$/), 'serve', '--stdio'],
    });
  });
});
