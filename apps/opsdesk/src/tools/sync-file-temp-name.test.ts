/**
 * Was: sync_file wrote each side through a temporary file beside it named
 * `<file>.<pid>.<Date.now()>.tmp`, opened with a plain write (follows symlinks, creates or
 * truncates). Anyone who may write the workspace (whose file names opsdesk already treats as
 * hostile) can guess that name — the pid and a millisecond clock — and plant a symlink there: the
 * sync then wrote the synced content through it, to a file outside the workspace, before renaming
 * the link into place. Now the temporary name is random and created exclusively (`wx`: a name
 * already there, a symlink included, is never written through).
 *
 * In process (the clock is held still for the call, so the planted name is the one it would use),
 * with a real SDK client over the in-memory pair.
 */
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
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
afterEach(() => vi.restoreAllMocks());
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

describe('sync_file: the temporary file of a write', () => {
  it('a symlink planted at the name it would use is not written through', async () => {
    const path = 'planted/settings.txt';
    write(side('local', path), 'base\n');
    expect((await callTool(c.client, 'sync_file', { path })).status).toBe('done');
    write(side('local', path), 'local edit\n');
    const victim = join(outside.dir, 'victim.txt');
    writeFileSync(victim, 'outside the workspace\n');
    const still = Date.now();
    vi.spyOn(Date, 'now').mockReturnValue(still);
    symlinkSync(victim, `${side('remote', path)}.${process.pid}.${still}.tmp`);

    const r = await callTool(c.client, 'sync_file', { path });

    // Was: done, and the file outside the workspace then held 'local edit'.
    expect(readFileSync(victim, 'utf8')).toBe('outside the workspace\n');
    expect(r.status).toBe('done');
    expect(readFileSync(side('remote', path), 'utf8')).toBe('local edit\n');
  });
});
