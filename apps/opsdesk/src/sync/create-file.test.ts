import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { createFile } from './workspace.js';

/**
 * keep_both saves the local version under a name found free on both sides (`notes.md.local`), and
 * wrote it there with a rename, which replaces whatever is at the name: a copy another process
 * made there since — another opsdesk on the same workspace resolving the same conflict, or a
 * person saving a file of that name — was overwritten. `createFile` never replaces a name.
 */
const dir = mkdtempSync(join(tmpdir(), 'opsdesk-create-file-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const noTemporaries = (where: string) => expect(readdirSync(where).filter((n) => n.endsWith('.tmp'))).toEqual([]);

describe('createFile: the name is created, or left as it is', () => {
  it('a free name: created whole, nothing else left beside it', () => {
    const file = join(dir, 'free', 'notes.md.local');
    expect(createFile(file, Buffer.from('mine'))).toBe(true);
    expect(readFileSync(file, 'utf8')).toBe('mine');
    noTemporaries(join(dir, 'free'));
  });

  it.each([
    ['a file', (at: string) => writeFileSync(at, 'theirs')],
    ['a directory', (at: string) => mkdirSync(at)],
    ['a link to a file elsewhere', (at: string) => symlinkSync(join(dir, 'elsewhere.txt'), at)],
    ['a dangling link', (at: string) => symlinkSync(join(dir, 'nowhere', 'x'), at)],
  ])('a name taken by %s: false, and what is there is untouched', (_label, take) => {
    const where = mkdtempSync(join(dir, 'taken-'));
    writeFileSync(join(dir, 'elsewhere.txt'), 'outside');
    const file = join(where, 'notes.md.local');
    take(file);
    expect(createFile(file, Buffer.from('mine'))).toBe(false);
    expect(readFileSync(join(dir, 'elsewhere.txt'), 'utf8')).toBe('outside');
    if (_label === 'a file') expect(readFileSync(file, 'utf8')).toBe('theirs');
    noTemporaries(where);
  });

  it('two processes creating the same 2,000 names at once: each name has one winner, and holds its content', async () => {
    const where = mkdtempSync(join(dir, 'race-'));
    // Both start at the same moment, once both have loaded: their runs overlap name by name.
    const start = Date.now() + 3_000;
    const module = fileURLToPath(new URL('./workspace.ts', import.meta.url));
    const racer = (who: string) =>
      promisify(execFile)(
        process.execPath,
        [
          '--import',
          'tsx',
          '--input-type=module',
          '-e',
          `const { createFile } = await import(${JSON.stringify(module)});
           const won = [];
           while (Date.now() < ${start});
           for (let i = 0; i < 2000; i++) if (createFile(${JSON.stringify(where)} + '/copy-' + i, Buffer.from(${JSON.stringify(who)}))) won.push(i);
           console.log(JSON.stringify(won));`,
        ],
        { cwd: fileURLToPath(new URL('../../../../', import.meta.url)) },
      );
    const [a, b] = await Promise.all([racer('a'), racer('b')]);
    const wonA = JSON.parse(a.stdout) as number[];
    const wonB = JSON.parse(b.stdout) as number[];
    expect([...wonA, ...wonB].sort((x, y) => x - y)).toEqual(Array.from({ length: 2000 }, (_, i) => i));
    for (const i of wonA) expect(readFileSync(join(where, `copy-${i}`), 'utf8')).toBe('a');
    for (const i of wonB) expect(readFileSync(join(where, `copy-${i}`), 'utf8')).toBe('b');
    noTemporaries(where);
  }, 60_000);

  // A write that fails part-way (the disk full; here a file-size limit, EFBIG) left its partial
  // temporary file in the person's folder, in keep_both's copy and every side written alike.
  // Found by an audit helper.
  it.each(['createFile', 'applySide'])(
    '%s, the write failing part-way: the error, and nothing left in the folder',
    async (name) => {
      const where = mkdtempSync(join(dir, 'full-'));
      const module = fileURLToPath(new URL('./workspace.ts', import.meta.url));
      const write =
        name === 'createFile'
          ? `createFile(${JSON.stringify(join(where, 'notes.md.local'))}, content)`
          : `applySide(${JSON.stringify(join(where, 'notes.md'))}, { exists: true, content })`;
      const script = `const { createFile, applySide } = await import(${JSON.stringify(module)});
        const content = Buffer.alloc(4 * 1024 * 1024, 120);
        try { ${write}; console.log('written'); } catch (e) { console.log('threw ' + e.code); }`;
      const { stdout } = await promisify(execFile)(
        'bash',
        ['-c', 'ulimit -f 1024; exec "$0" --import tsx --input-type=module -e "$1"', process.execPath, script],
        { cwd: fileURLToPath(new URL('../../../../', import.meta.url)) },
      );
      expect(stdout.trim()).toBe('threw EFBIG');
      expect(readdirSync(where)).toEqual([]);
    },
    60_000,
  );
});
