/**
 * Was: a path holding a lone UTF-16 surrogate (JSON carries one: "\ud800") was taken. The file
 * system gets it as U+FFFD, so `a\ud800.txt` and `a\ufffd.txt` are one file under two names — and
 * the last sync's state is kept by name, so each name had its own: a change on one side was
 * judged against the other name's state and copied over, or lost. Shown here: a remote change
 * made after syncing through one name is overwritten, unasked, by a sync through the other. Now
 * a path that is not well-formed Unicode is refused with the reason, nothing written.
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

describe('sync_file: a path that is not well-formed Unicode', () => {
  it('is refused, so one file never has two states', async () => {
    const lone = 'u/a\ud800.txt';
    const onDisk = 'u/a\ufffd.txt';
    write(side('local', onDisk), 'A\n');
    write(side('remote', onDisk), 'A\n');
    c.script.splice(0, c.script.length);
    // Was: done, both sides in sync recorded under the lone-surrogate name.
    const first = await callTool(c.client, 'sync_file', { path: lone });
    expect(first.status).toBe('rejected');
    expect(first.text).toBe('Refused path "u/a\ud800.txt": the path is not well-formed Unicode (a lone surrogate).');

    // Was (done above): later both sides synced to B through the other name, the remote reverted
    // to A, and a sync through the first name pushed B over it unasked (its state still said A).
    write(side('local', onDisk), 'B\n');
    write(side('remote', onDisk), 'B\n');
    expect((await callTool(c.client, 'sync_file', { path: onDisk })).status).toBe('done');
    write(side('remote', onDisk), 'A\n');
    const later = await callTool(c.client, 'sync_file', { path: lone });
    expect(later.status).toBe('rejected');
    expect(readFileSync(side('remote', onDisk), 'utf8')).toBe('A\n');
    expect(readFileSync(side('local', onDisk), 'utf8')).toBe('B\n');
  });
});
