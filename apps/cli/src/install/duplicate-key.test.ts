/**
 * An entry with a key twice (`"env": {…}, "env": {…}`) is refused, the key and where it repeats
 * named, and nothing changed: a client reads only the last, and which of the two the user meant is
 * theirs to say. Was: `install` replaced the whole entry, and both env objects (an API key in one)
 * went without a note, kept only in a .bak the next write replaced. `install` as the CLI runs it.
 */
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { installSandbox } from '../../test/install-sandbox.js';

const box = installSandbox(['node', 'server.js']);

const TEXT = `{
  "mcpServers": {
    "opsdesk": {
      "command": "npx",
      "args": ["opsdesk@1"],
      "env": {"DEBUG": "1"},
      "env": {"API_KEY": "sk-live-123"}
    }
  }
}
`;

describe('an entry with a key twice', () => {
  it('install and its dry run refuse it, naming the key and its line; the file stays as it was', async () => {
    const folder = join(box.env.cwd, '.cursor');
    await mkdir(folder);
    const file = join(folder, 'mcp.json');
    await writeFile(file, TEXT);
    for (const argv of [
      ['cursor', '--dry-run', '--', 'node', 'srv.js'],
      ['cursor', '--', 'node', 'srv.js'],
    ]) {
      expect(await box.run(argv)).toEqual({
        code: 1,
        out: [],
        err: [
          `elicitkit: ${file}:7:7: the entry "opsdesk" has "env" twice (a client reads only the last, and elicitkit does not choose for you): remove one of them`,
          'The file was left untouched; fix it (or move it aside) and run install again.',
        ],
      });
    }
    expect(await readFile(file, 'utf8')).toBe(TEXT);
    expect(await readdir(folder)).toEqual(['mcp.json']);
  });

  it('once the user keeps one, install goes on and keeps it', async () => {
    const folder = join(box.env.cwd, '.cursor');
    await mkdir(folder);
    const file = join(folder, 'mcp.json');
    await writeFile(file, TEXT.replace('      "env": {"DEBUG": "1"},\n', ''));
    const r = await box.run(['cursor', '--', 'node', 'srv.js']);
    expect(r.code, r.err.join('\n')).toBe(0);
    expect(r.err).toEqual([`note: ${file}: kept the entry's own env`]);
    expect(JSON.parse(await readFile(file, 'utf8')).mcpServers.opsdesk.env).toEqual({ API_KEY: 'sk-live-123' });
  });
});
