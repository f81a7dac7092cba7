/**
 * Was: names near the file system's limit (255 bytes a name on Linux and macOS) ended sync_file
 * with the raw ENAMETOOLONG error, no status, the server's absolute data directory in its text:
 * - a legal name of 240 bytes could never be copied: the temporary file of the write was named
 *   after it (`<name>.<pid>.<ms>.tmp`, 25 bytes more), past the limit;
 * - a name over 255 bytes passed the path checks and failed on open;
 * - a conflict on a name of 255 bytes was asked, and keep_both then failed writing `<name>.local`.
 * Now the temporary name is short whatever the file's, and a path with a name over 255 bytes
 * (UTF-8) is refused with the reason — the copy's too, before any question.
 *
 * In process, with a real SDK client over the in-memory pair.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callTool } from '../../../../test/support/mcp.js';
import { type Conn, memoryClient, tempDataDir } from '../../test/harness.js';

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

const side = (s: 'local' | 'remote', path: string) => join(data.dir, 'workspace', s, path);
const write = (file: string, text: string) => {
  mkdirSync(join(file, '..'), { recursive: true });
  writeFileSync(file, text);
};

describe('sync_file: long names', () => {
  it('a name of 240 bytes is copied like any other', async () => {
    const path = `long/${'a'.repeat(240)}`;
    write(side('local', path), 'hello\n');
    const r = await callTool(c.client, 'sync_file', { path });
    // Was: isError, "ENAMETOOLONG: name too long, open '/tmp/…/workspace/remote/long/aaa…'".
    expect(r.structured).toMatchObject({ status: 'done', action: 'pushed' });
    expect(readFileSync(side('remote', path), 'utf8')).toBe('hello\n');
  });

  it.each([
    ['ASCII', 'b'.repeat(256)],
    ['UTF-8', '文'.repeat(86)],
  ])('a name over 255 bytes (%s) is refused with the reason', async (_kind, name) => {
    const path = `long/${name}`;
    const r = await callTool(c.client, 'sync_file', { path });
    expect(r.status).toBe('rejected');
    // The path is shown shortened (at most 120 characters); the reason in full.
    expect(r.text).toMatch(/^Refused path "long\/.+": a name in the path is longer than 255 bytes\.$/);
    expect(r.text).not.toContain(data.dir);
  });

  it('a conflict on a name of 255 bytes, whose copy would not fit: refused before any question, nothing lost', async () => {
    const path = `long/${'c'.repeat(255)}`;
    write(side('local', path), 'local version\n');
    write(side('remote', path), 'remote version\n');
    c.script.splice(0, c.script.length, { action: 'accept', content: { resolution: 'keep_both' } });
    const asked = c.seen.length;

    const r = await callTool(c.client, 'sync_file', { path });

    expect(r.status).toBe('rejected');
    // The name whole: no two names alike, the middle of a long one too.
    expect(r.text).toBe(`Refused path "${path}.local": no free name for the local copy.`);
    expect(c.seen.length).toBe(asked);
    expect(readFileSync(side('local', path), 'utf8')).toBe('local version\n');
    expect(readFileSync(side('remote', path), 'utf8')).toBe('remote version\n');
  });
});
