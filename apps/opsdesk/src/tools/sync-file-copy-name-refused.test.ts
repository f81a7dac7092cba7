/**
 * Was: keep_both's copy goes to the first free name of `<path>.local`, `.local-2` … — but a name
 * that is there and refused (a broken symlink, or one out of the workspace, left at `<path>.local`
 * by anyone who may write the workspace) ended the search: the whole conflict was refused, "no
 * free name for the local copy", while `.local-2` was free, and no choice could be made at all.
 * Now a refused name is passed over like a taken one: the question offers the next free name,
 * and keep_both writes there, the symlink left as it was.
 *
 * In process, with a real SDK client over the in-memory pair.
 */
import { existsSync, lstatSync, mkdirSync, readFileSync, readlinkSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callTool } from '../../../../test/support/mcp.js';
import { type Conn, memoryClient, tempDataDir } from '../../test/harness.js';

let data: ReturnType<typeof tempDataDir>;
let outside: ReturnType<typeof tempDataDir>;
let c: Conn;
beforeAll(async () => {
  data = tempDataDir();
  outside = tempDataDir();
  c = await memoryClient(data.dir);
});
afterAll(async () => {
  await c.close();
  data.remove();
  outside.remove();
});

const side = (s: 'local' | 'remote', path: string) => join(data.dir, 'workspace', s, path);
const write = (file: string, text: string) => {
  mkdirSync(join(file, '..'), { recursive: true });
  writeFileSync(file, text);
};

describe('sync_file: keep_both when <path>.local is a name that is refused', () => {
  it.each([
    ['a broken symlink', () => 'nowhere'],
    ['a symlink out of the workspace', () => join(outside.dir, 'elsewhere.txt')],
  ])('%s: the copy goes to the next free name', async (kind, target) => {
    const path = `copy-${kind.replaceAll(' ', '-')}/notes.txt`;
    write(side('local', path), 'local version\n');
    write(side('remote', path), 'remote version\n');
    symlinkSync(target(), side('local', `${path}.local`));
    c.script.splice(0, c.script.length, { action: 'accept', content: { resolution: 'keep_both' } });
    const asked = c.seen.length;

    const r = await callTool(c.client, 'sync_file', { path });

    // Was: rejected, 'Refused path "….local": no free name for the local copy.', nothing asked.
    expect(r.structured).toMatchObject({ status: 'done', action: 'keep_both' });
    expect(JSON.stringify(c.seen[asked])).toContain(`local saved as ${path}.local-2`);
    expect(readFileSync(side('local', `${path}.local-2`), 'utf8')).toBe('local version\n');
    expect(readFileSync(side('remote', `${path}.local-2`), 'utf8')).toBe('local version\n');
    expect(readFileSync(side('local', path), 'utf8')).toBe('remote version\n');
    expect(lstatSync(side('local', `${path}.local`)).isSymbolicLink()).toBe(true);
    expect(readlinkSync(side('local', `${path}.local`))).toBe(target());
    expect(existsSync(join(outside.dir, 'elsewhere.txt'))).toBe(false);
  });
});
