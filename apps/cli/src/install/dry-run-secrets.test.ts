/**
 * `install --dry-run` and `uninstall --dry-run` print the change as a diff without the credentials
 * in it: a header's value (`--header "Authorization: Bearer …"`), an `env` value (an API key), a
 * URL's `user:password@` and its query values are shown as `…`. Was: the diff printed them as
 * written, into a terminal's scrollback or a CI log. What is written (without --dry-run) is
 * unchanged: the file holds them. `install` and `uninstall` as the CLI runs them, in a sandbox home.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { installSandbox } from '../../test/install-sandbox.js';
import { uninstall } from '../commands/uninstall.js';

const box = installSandbox(['node', 'server.js']);
const SECRETS = ['pa55word', 'qtok3n', 's3cretTOKEN', 'sk-live-KEY', 'old-bearer', 'inline-k3y'];
const leaked = (lines: string[]) => SECRETS.filter((s) => lines.join('\n').includes(s));

const REMOTE = [
  '--url',
  'https://alice:pa55word@mcp.example.com/mcp?token=qtok3n&v=2',
  '--header',
  'Authorization: Bearer s3cretTOKEN',
];

/** A config already holding servers with credentials. */
async function existing(): Promise<string> {
  const file = join(box.env.cwd, '.cursor', 'mcp.json');
  await box.run(['cursor', '--name', 'other', '--', 'node', 'x.js']);
  await writeFile(
    file,
    `{
  "mcpServers": {
    "other": { "command": "node", "args": ["x.js"], "env": { "OPENAI_API_KEY": "sk-live-KEY" } },
    "opsdesk": {
      "url": "https://ops.example.com/mcp",
      "headers": {
        "Authorization": "Bearer old-bearer"
      }
    },
    // A comment, as a JSONC config may hold.
    "oneLine": {"url": "https://h.example/mcp", "headers": {"X-Key": "inline-k3y"}},
  }
}
`,
  );
  return file;
}

describe('a dry run prints no credential', () => {
  it('install --dry-run --url … --header …: the diff shows them as …, says so, writes nothing', async () => {
    const r = await box.run(['cursor', '--dry-run', ...REMOTE]);
    expect(r.code, r.err.join('\n')).toBe(0);
    expect(leaked([...r.out, ...r.err])).toEqual([]);
    const text = r.out.join('\n');
    expect(text).toContain('"url": "https://mcp.example.com/mcp?token=…&v=…"');
    expect(text).toContain('"Authorization": "…"');
    expect(text).toContain('shown as …');
  });

  it('install --dry-run replacing an entry: neither the old nor the new credentials, nor other entries’ env', async () => {
    const file = await existing();
    const r = await box.run(['cursor', '--dry-run', ...REMOTE]);
    expect(r.code, r.err.join('\n')).toBe(0);
    // The header's new value is hidden, but the diff still says that it changes.
    expect(r.out).toContain('-        "Authorization": "…"');
    expect(r.out).toContain('+        "Authorization": "… (another value)"');
    expect(leaked([...r.out, ...r.err])).toEqual([]);
    // Written for real, the file holds what was given.
    const written = await box.run(['cursor', ...REMOTE]);
    expect(written.code).toBe(0);
    expect(leaked([...written.out, ...written.err])).toEqual([]);
    const text = await readFile(file, 'utf8');
    for (const s of ['pa55word', 'qtok3n', 's3cretTOKEN', 'sk-live-KEY']) expect(text).toContain(s);
  });

  it('uninstall --dry-run of entries with credentials: shown as …', async () => {
    await existing();
    for (const name of ['opsdesk', 'other', 'oneLine']) {
      const out: string[] = [];
      const err: string[] = [];
      const code = await uninstall(
        ['cursor', '--dry-run', '--name', name],
        { out: (l) => out.push(l), err: (l) => err.push(l) },
        box.env,
      );
      expect(code, err.join('\n')).toBe(0);
      expect(out.join('\n')).toContain(`"${name}"`);
      expect(leaked([...out, ...err])).toEqual([]);
    }
  });
});
