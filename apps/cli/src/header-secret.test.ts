/**
 * A `--header` written wrong is refused without printing it: it is most often a credential
 * (`Authorization Bearer ek_…`, the colon forgotten). Was: the usage error quoted the whole
 * header, token and all, into the terminal or a CI log. Every command that takes `--header`,
 * through `main` as the shell runs it; nothing is connected to or written.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli as run } from '../test/run-cli.js';

const SECRET = 'ek_s3cretTOKEN';
const root = mkdtempSync(join(tmpdir(), 'ek-header-secret-'));
const cwd = process.cwd();
afterAll(() => {
  process.chdir(cwd);
  rmSync(root, { recursive: true, force: true });
});

describe('--header written wrong: a usage error that does not show it', () => {
  it.each([
    `Authorization Bearer ${SECRET}`,
    `Bearer ${SECRET}`,
    `Bad Name: ${SECRET}`,
    `Ünïcode: ${SECRET}`,
    `: ${SECRET}`,
  ])('%j', async (header) => {
    process.chdir(root);
    for (const argv of [
      ['tools', 'http://127.0.0.1:1/mcp', '--header', header],
      ['call', 'http://127.0.0.1:1/mcp', 'some_tool', '--header', header],
      ['doctor', 'http://127.0.0.1:1/mcp', '--header', header],
      ['install', 'cursor', '--url', 'http://127.0.0.1:1/mcp', '--header', header],
    ]) {
      const r = await run(argv);
      expect(r.code, argv.join(' ')).toBe(2);
      expect(r.err, argv[0]).toContain('--header');
      expect(`${r.out}\n${r.err}`, argv[0]).not.toContain(SECRET);
    }
    expect(existsSync(join(root, '.cursor')), 'install wrote a config').toBe(false);
  });
});
