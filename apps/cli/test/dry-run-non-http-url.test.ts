/**
 * docs/cli.md promises that a dry run's diff "shows no credential": a URL's `user:password@`,
 * query values and fragment are shown as `…`. Only http(s) URLs were masked (`urlsShown`), so the
 * most common credential-bearing URL in an MCP config — a database URL given to a server as an
 * argument (`@modelcontextprotocol/server-postgres postgresql://user:pw@…`) — was printed with its
 * password into the terminal's scrollback or a CI log, and a new config holding it was not made
 * its owner's alone. Any scheme's URL holding one is masked now.
 */
import { mkdir, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { installSandbox } from './install-sandbox.js';

const box = installSandbox(['node', 'server.js']);
const PASSWORD = 'hunter2pw';

describe('install --dry-run with a database URL', () => {
  it('the new entry: its URL password is shown as …', async () => {
    const { code, out } = await box.run([
      'cursor',
      '--dry-run',
      '--name',
      'pg',
      '--',
      'npx',
      '-y',
      '@modelcontextprotocol/server-postgres',
      `postgresql://admin:${PASSWORD}@db.internal:5432/prod`,
    ]);
    expect(code).toBe(0);
    expect(out.join('\n')).toContain('server-postgres');
    expect(out.join('\n')).not.toContain(PASSWORD);
  });

  it('an existing entry beside the edit: its URL password is shown as …', async () => {
    const dir = join(box.env.cwd, '.cursor');
    await mkdir(dir, { recursive: true });
    await writeFile(
      join(dir, 'mcp.json'),
      `{\n  "mcpServers": {\n    "pg": {\n      "command": "npx",\n      "args": ["-y", "@modelcontextprotocol/server-postgres", "postgresql://admin:${PASSWORD}@db.internal/prod"]\n    }\n  }\n}\n`,
    );
    const { code, out } = await box.run(['cursor', '--dry-run']);
    expect(code).toBe(0);
    expect(out.join('\n')).toContain('server-postgres');
    expect(out.join('\n')).not.toContain(PASSWORD);
  });
});

describe('install (written) with a database URL', () => {
  it('a new config holding the URL password is created readable by its owner alone (0600)', async () => {
    const { code } = await box.run([
      'cursor',
      '--name',
      'pg',
      '--',
      'npx',
      '-y',
      '@modelcontextprotocol/server-postgres',
      `postgresql://admin:${PASSWORD}@db.internal:5432/prod`,
    ]);
    expect(code).toBe(0);
    const mode = (await stat(join(box.env.cwd, '.cursor', 'mcp.json'))).mode & 0o777;
    expect(mode.toString(8)).toBe('600');
  });
});
