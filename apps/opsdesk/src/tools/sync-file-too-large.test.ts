/**
 * Was: sync_file read each side whole into memory, whatever its size. A file past 2 GiB (anyone
 * who may write the workspace can make one, sparse, in a moment) ended the call with Node's raw
 * ERR_FS_FILE_TOO_LARGE, no status; one below it was read — twice per call, both sides — into the
 * server's memory, shared by every user. Now a side over 64 MiB is refused with its size, judged
 * by what was opened, before anything is read or asked; nothing written.
 *
 * In process, with a real SDK client over the in-memory pair; the big files are sparse.
 */
import { closeSync, existsSync, ftruncateSync, mkdirSync, openSync } from 'node:fs';
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
/** A sparse file of `bytes` (takes no disk). */
function sparse(file: string, bytes: number): void {
  mkdirSync(join(file, '..'), { recursive: true });
  const fd = openSync(file, 'w');
  ftruncateSync(fd, bytes);
  closeSync(fd);
}

describe('sync_file: a file too large to sync', () => {
  it.each([
    ['3 GiB', 3 * 1024 ** 3],
    ['64 MiB and a byte', 64 * 1024 ** 2 + 1],
  ])('%s is refused with its size, nothing copied', async (_size, bytes) => {
    const path = `big/${bytes}.bin`;
    sparse(side('local', path), bytes);

    const r = await callTool(c.client, 'sync_file', { path });

    // Was: isError "File size (3221225472) is greater than 2 GiB", no status; or copied.
    expect(r.status).toBe('rejected');
    expect(r.text).toMatch(/^Refused path "big\/\d+\.bin": the file is larger than 64 MiB \(\d+ bytes\)\.$/);
    expect(existsSync(side('remote', path))).toBe(false);
  });

  it('64 MiB exactly is copied', async () => {
    const path = 'big/limit.bin';
    sparse(side('local', path), 64 * 1024 ** 2);
    const r = await callTool(c.client, 'sync_file', { path });
    expect(r.structured).toMatchObject({ status: 'done', action: 'pushed' });
  });
});
