/**
 * sync_file takes each file by one path. Through a symlink inside the workspace (a folder linked
 * to another, a file to another) or a hard link, one file had two paths, each with its own last
 * sync: a conflict resolved under one rewrote the file the question never named, and the next
 * sync of the other path pushed the resolution on as if it were a change, unasked. Now a path
 * through a symlink, or to a file with other names, is refused — before asking, and again as the
 * effect starts (a folder swapped for such a link while the person decides).
 */
import { existsSync, linkSync, mkdirSync, readFileSync, renameSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callTool } from '../../../../test/support/mcp.js';
import { type Conn, memoryClient, peek, tempDataDir } from '../../test/harness.js';

let data: ReturnType<typeof tempDataDir>;
let c: Conn;
beforeAll(async () => {
  data = tempDataDir();
  c = await memoryClient(data.dir);
});
afterAll(async () => {
  await c.close();
  data.remove();
});

type SideName = 'local' | 'remote';
const file = (side: SideName, path: string) => join(data.dir, 'workspace', side, path);
const write = (side: SideName, path: string, text: string) => {
  mkdirSync(join(file(side, path), '..'), { recursive: true });
  writeFileSync(file(side, path), text);
};
const read = (side: SideName, path: string) =>
  existsSync(file(side, path)) ? readFileSync(file(side, path), 'utf8') : undefined;
/** The sync records, by path. */
const records = () => peek(data.dir, 'SELECT path, base_hash FROM sync_state ORDER BY path');
/** Syncs `path`, answering `keep_remote` if asked. */
const sync = async (path: string, onAsk?: () => void) => {
  c.script.splice(0, c.script.length, () => {
    onAsk?.();
    return { action: 'accept' as const, content: { resolution: 'keep_remote' } };
  });
  const asked = c.seen.length;
  const r = await callTool(c.client, 'sync_file', { path });
  c.script.splice(0, c.script.length);
  return { ...r, asked: c.seen.length > asked };
};

describe('sync_file: one file, one path', () => {
  it('a folder linked to another inside the workspace: refused, the file it reaches left as it was', async () => {
    write('local', 'one/plan.md', 'base\n');
    expect((await sync('one/plan.md')).status).toBe('done');
    write('local', 'one/plan.md', 'local edit\n');
    write('remote', 'alias/plan.md', 'remote version\n');
    symlinkSync('one', file('local', 'alias'));
    const before = records();
    const r = await sync('alias/plan.md');
    expect(r).toMatchObject({ status: 'rejected', asked: false });
    expect(r.text).toContain('the path goes through a symlink');
    expect(read('local', 'one/plan.md')).toBe('local edit\n');
    expect(records()).toEqual(before);
    // The file itself, by its one path, syncs as ever: a local change, pushed.
    expect(await sync('one/plan.md')).toMatchObject({ status: 'done', asked: false });
    expect(read('remote', 'one/plan.md')).toBe('local edit\n');
  });

  it.each(['local', 'remote'] as const)('a file linked to another on the %s side: refused', async (side) => {
    write(side, `links-${side}/real.md`, 'real\n');
    symlinkSync('real.md', file(side, `links-${side}/alias.md`));
    const r = await sync(`links-${side}/alias.md`);
    expect(r).toMatchObject({ status: 'rejected', asked: false });
    expect(r.text).toContain('the path goes through a symlink');
  });

  it.each(['local', 'remote'] as const)(
    'a file with a second name (a hard link) on the %s side: refused under either',
    async (side) => {
      write(side, `hard-${side}/a.md`, 'one file\n');
      write(side === 'local' ? 'remote' : 'local', `hard-${side}/a.md`, 'other side\n');
      linkSync(file(side, `hard-${side}/a.md`), file(side, `hard-${side}/b.md`));
      for (const name of ['a.md', 'b.md']) {
        const r = await sync(`hard-${side}/${name}`);
        expect(r).toMatchObject({ status: 'rejected', asked: false });
        expect(r.text).toContain('the file has other names (hard links)');
      }
      expect(read(side, `hard-${side}/a.md`)).toBe('one file\n');
    },
  );

  it('a folder swapped for a link inside the workspace while the person decides: refused as the effect starts, nothing written', async () => {
    write('local', 'swap/doc.md', 'base\n');
    write('local', 'elsewhere/doc.md', 'another file\n');
    expect((await sync('swap/doc.md')).status).toBe('done');
    write('local', 'swap/doc.md', 'local\n');
    write('remote', 'swap/doc.md', 'remote\n');
    const before = records();
    const r = await sync('swap/doc.md', () => {
      renameSync(file('local', 'swap'), file('local', 'swap-moved'));
      symlinkSync('elsewhere', file('local', 'swap'));
    });
    expect(r.asked).toBe(true);
    expect(r.status).toBe('rejected');
    expect(r.text).toContain('the path goes through a symlink');
    expect(read('local', 'elsewhere/doc.md')).toBe('another file\n');
    expect(records()).toEqual(before);
  });
});
