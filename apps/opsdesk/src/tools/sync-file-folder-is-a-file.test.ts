/**
 * Was: a path whose folder is a file on the other side (`x/y.txt` here, a file `x` there) passed
 * the path checks — the file does not exist there, so it looked like a one-sided change — and the
 * copy then failed in mkdir: the call ended with the file system's raw error (`EEXIST: file
 * already exists, mkdir '<the server's absolute data directory>/workspace/remote/x'`), no status,
 * the server's own paths shown to the model. Now a part of the path that is there but is not a
 * folder, on either side, refuses the path (as a folder where the file should be is refused),
 * before any question (and again as the effect starts, where every side is looked at again).
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

describe('sync_file: a folder of the path is a file on one side', () => {
  it.each([
    ['local', 'remote'],
    ['remote', 'local'],
  ] as const)(
    'the file is on the %s side, the folder a file on the %s side: refused, nothing lost',
    async (has, other) => {
      const path = `f-${has}/settings.txt`;
      write(side(has, path), 'the only copy\n');
      writeFileSync(side(other, `f-${has}`), 'a file where the folder would be\n');

      const r = await callTool(c.client, 'sync_file', { path });

      // Was: isError with "EEXIST: file already exists, mkdir '/tmp/…/workspace/…'", no status.
      expect(r.status).toBe('rejected');
      expect(r.text).toBe(`Refused path "${path}": a part of the path is a file, not a folder.`);
      expect(r.text).not.toContain(data.dir);
      expect(readFileSync(side(has, path), 'utf8')).toBe('the only copy\n');
      expect(readFileSync(side(other, `f-${has}`), 'utf8')).toBe('a file where the folder would be\n');
    },
  );
});
