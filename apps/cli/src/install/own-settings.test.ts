// An entry's own settings — env with its API keys, cwd, disabled — are the user's: install writes
// how the client reaches the server (type, command, args, url, headers) and nothing else. A second
// install used to replace the whole entry (one with an env was "different" even from the same
// command), so the keys went, kept only in a .bak the next write replaced. Run as the real CLI.
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CLI, nodeArgs } from '../../../opsdesk/test/harness.js';

const run = promisify(execFile);
let root = '';
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'ek-install-own-'));
});
afterEach(() => rm(root, { recursive: true, force: true }));

/** `elicitkit <args>` as a process whose user configs are in the sandbox: its stdout and stderr lines. */
async function cli(args: string[]) {
  const { stdout, stderr } = await run(process.execPath, nodeArgs(CLI, ...args), {
    env: { ...process.env, HOME: root },
    timeout: 60_000,
  });
  return { out: stdout.trim().split('\n'), err: stderr.trim() === '' ? [] : stderr.trim().split('\n') };
}

const cursor = () => join(root, '.cursor', 'mcp.json');
const ENTRY = { command: 'npx', args: ['opsdesk@0.0.1'], env: { OPSDESK_TOKEN: 'k-123' }, disabled: false };

describe("install over an entry with the user's own settings", () => {
  beforeEach(async () => {
    await cli(['install', 'cursor', '--scope', 'user', '--', 'npx', 'opsdesk@0.0.1']);
    // The user adds their token and a switch by hand, as Cursor's docs show.
    await writeFile(cursor(), `${JSON.stringify({ mcpServers: { opsdesk: ENTRY } }, null, 2)}\n`);
  });

  it('the same command again: nothing to do, the token stays', async () => {
    const before = await readFile(cursor(), 'utf8');
    const { out } = await cli(['install', 'cursor', '--scope', 'user', '--', 'npx', 'opsdesk@0.0.1']);
    expect(out[0]).toMatch(/already installed .*nothing to do/);
    expect(await readFile(cursor(), 'utf8')).toBe(before);
  });

  it('another command: it is replaced, the token and the switch kept, and the user told so', async () => {
    const { out, err } = await cli(['install', 'cursor', '--scope', 'user', '--', 'node', '/srv/opsdesk.js']);
    expect(out[0]).toMatch(/^Replaced the existing, different MCP server "opsdesk"/);
    expect(err).toEqual([`note: ${cursor()}: kept the entry's own env, disabled`]);
    expect(JSON.parse(await readFile(cursor(), 'utf8')).mcpServers.opsdesk).toEqual({
      command: 'node',
      args: ['/srv/opsdesk.js'],
      env: { OPSDESK_TOKEN: 'k-123' },
      disabled: false,
    });
  });

  it('a URL instead: the settings for the command go with it, the user is told, and the .bak has them', async () => {
    const { err } = await cli(['install', 'cursor', '--scope', 'user', '--url', 'https://ops.example.com/mcp']);
    expect(err).toEqual([
      `note: ${cursor()}: the entry's own env, disabled went with it: they were for a command it started (the previous version is kept beside the file)`,
    ]);
    expect(JSON.parse(await readFile(cursor(), 'utf8')).mcpServers.opsdesk).toEqual({
      url: 'https://ops.example.com/mcp',
    });
    expect(JSON.parse(await readFile(`${cursor()}.bak`, 'utf8')).mcpServers.opsdesk).toEqual(ENTRY);
  });
});
