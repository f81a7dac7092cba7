// --header checks the header's value as well as its name: a value holding a line break (a token
// pasted across two lines; \r\n is a header-injection shape) is a usage error, and nothing is
// written. Fetch refuses such a value, so no client could have sent it.
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { install } from '../commands/install.js';

let root = '';
let home = '';
let cwd = '';
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'ek-install-header-'));
  home = join(root, 'home');
  cwd = join(root, 'work');
  await mkdir(home);
  await mkdir(cwd);
});
afterEach(() => rm(root, { recursive: true, force: true }));

describe('--header values', () => {
  it('refuses a value with a line break and writes nothing', async () => {
    const run = () =>
      install(
        ['cursor', '--url', 'https://x.example/mcp', '--header', 'Authorization: Bearer abc\r\nX-Injected: 1'],
        { out: () => {}, err: () => {} },
        { home, cwd, platform: 'linux', appData: undefined, defaultCommand: [] },
      );
    // A UsageError thrown (main turns it into exit 2) or a non-zero exit: either way, no file.
    const code = await run().catch(() => 2);
    expect(code).not.toBe(0);
    expect(existsSync(join(cwd, '.cursor', 'mcp.json'))).toBe(false);
  });

  it('creates a file holding a credential readable by its owner alone, any other new file as usual', async () => {
    const io = { out: () => {}, err: () => {} };
    const env = { home, cwd, platform: 'linux' as const, appData: undefined, defaultCommand: [] };
    expect(
      await install(
        ['cursor', '--url', 'https://x.example/mcp', '--header', 'Authorization: Bearer ek_secret'],
        io,
        env,
      ),
    ).toBe(0);
    expect((await stat(join(cwd, '.cursor', 'mcp.json'))).mode & 0o777).toBe(0o600);
    expect(await install(['trae', '--url', 'https://x.example/mcp'], io, env)).toBe(0);
    expect((await stat(join(cwd, '.trae', 'mcp.json'))).mode & 0o077).toBe(0o666 & ~process.umask() & 0o077);
  });

  // Was: only a --header counted, so a token in the URL was written world-readable (0644).
  it('creates a file whose URL holds a credential (a password, a query, a fragment) readable by its owner alone', async () => {
    const io = { out: () => {}, err: () => {} };
    const env = { home, cwd, platform: 'linux' as const, appData: undefined, defaultCommand: [] };
    const cases: [string, string][] = [
      ['cursor', 'https://alice:s3cretpw@mcp.example.com/mcp'],
      ['trae', 'https://mcp.example.com/mcp?token=abc123'],
      ['vscode', 'https://mcp.example.com/mcp#key=abc123'],
    ];
    for (const [client, url] of cases) {
      expect(await install([client, '--url', url], io, env)).toBe(0);
      const folder = client === 'vscode' ? '.vscode' : `.${client}`;
      expect((await stat(join(cwd, folder, 'mcp.json'))).mode & 0o777, url).toBe(0o600);
    }
    // A URL a dry run shows whole holds none: created as any other file.
    expect(await install(['claude-code', '--url', 'https://mcp.example.com/mcp'], io, env)).toBe(0);
    expect((await stat(join(cwd, '.mcp.json'))).mode & 0o077).toBe(0o666 & ~process.umask() & 0o077);
  });

  it("sanity: fetch's Headers rejects such a value, so no client could send it", () => {
    expect(() => new Headers({ Authorization: 'Bearer abc\r\nX-Injected: 1' })).toThrow();
  });
});
