// A reader that goes away before the CLI is done writing (`elicitkit … | head -1`) made every
// later line an EPIPE, thrown as an unhandled 'error' event: a stack trace on stderr, exit code 1,
// and for an install whose output came before its write, nothing written. Now what is left to say
// there is dropped and the command goes on to its own end and exit code. The built CLI in a child
// process whose stdout reader is closed before it writes anything.
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

const BIN = fileURLToPath(new URL('../bin/elicitkit.js', import.meta.url));

let dir = '';
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ek-closed-stdout-'));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

/** Runs the CLI with `args`, its stdout's reader closed at once; its exit code and stderr. */
function withStdoutClosed(args: string[]): Promise<{ code: number | null; err: string }> {
  const child = spawn(process.execPath, [BIN, ...args], {
    cwd: dir,
    env: { ...process.env, HOME: dir },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout.destroy();
  let err = '';
  child.stderr.on('data', (chunk: Buffer) => {
    err += chunk.toString();
  });
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, err })));
}

describe('stdout whose reader went away', () => {
  it('help: exits 0, no stack trace', async () => {
    expect(await withStdoutClosed(['--help'])).toEqual({ code: 0, err: '' });
  });

  it('install --dry-run: exits 0, writes nothing, no stack trace', async () => {
    expect(await withStdoutClosed(['install', 'cursor', '--dry-run', '--', 'node', '/srv/server.js'])).toEqual({
      code: 0,
      err: '',
    });
    await expect(readFile(join(dir, '.cursor', 'mcp.json'))).rejects.toThrow(/ENOENT/);
  });

  it('install: the file is written, exit 0', async () => {
    expect(await withStdoutClosed(['install', 'cursor', '--', 'node', '/srv/server.js'])).toEqual({ code: 0, err: '' });
    expect(JSON.parse(await readFile(join(dir, '.cursor', 'mcp.json'), 'utf8'))).toEqual({
      mcpServers: { opsdesk: { command: 'node', args: ['/srv/server.js'] } },
    });
  });

  it('a usage mistake still exits 2 and says why on stderr', async () => {
    const { code, err } = await withStdoutClosed(['install', 'nowhere']);
    expect(code).toBe(2);
    expect(err).toMatch(/^elicitkit install: /);
    expect(err).not.toMatch(/EPIPE/);
  });
});
