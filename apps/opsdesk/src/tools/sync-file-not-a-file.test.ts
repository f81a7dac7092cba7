/**
 * Was: sync_file read both sides with a synchronous readFileSync. A named pipe (FIFO) placed in the
 * workspace — by anyone who may write there, the same people whose file names opsdesk already
 * treats as hostile — makes that read block until some writer opens the pipe: opsdesk's one event
 * loop stops, and with it every tool of every user on that server. A path that is not a regular
 * file is now refused (as a folder is: "the path is a folder, not a file"), judged by what was
 * opened (without waiting), so a file swapped for a pipe after the path was checked is refused too.
 *
 * Over stdio (`elicitkit serve --stdio`) with a real SDK client.
 */
import { execFileSync } from 'node:child_process';
import { closeSync, constants, mkdirSync, openSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callTool } from '../../../../test/support/mcp.js';
import { type Conn, stdioClient, tempDataDir } from '../../test/harness.js';

let data: ReturnType<typeof tempDataDir>;
let c: Conn;
let fifo = '';
beforeAll(async () => {
  data = tempDataDir();
  c = await stdioClient(data.dir, { revision: '2025-11-25', user: 'alice' });
}, 60_000);
afterAll(async () => {
  // Unblock a server stuck reading the pipe, so it can close.
  if (fifo) {
    try {
      closeSync(openSync(fifo, constants.O_WRONLY | constants.O_NONBLOCK));
    } catch {
      // Nobody is reading it: nothing to unblock.
    }
  }
  await c.close();
  data.remove();
});

describe('sync_file: a path that is not a regular file', () => {
  it('a named pipe in the workspace is refused at once, and the server goes on answering', async () => {
    mkdirSync(join(data.dir, 'workspace', 'local', 'notes'), { recursive: true });
    fifo = join(data.dir, 'workspace', 'local', 'notes', 'pipe.md');
    execFileSync('mkfifo', [fifo]);

    // A call stuck on the pipe fails this test by its timeout; one refused lets the next be served.
    const refused = await callTool(c.client, 'sync_file', { path: 'notes/pipe.md' });
    expect(refused.status).toBe('rejected');
    expect(refused.text).toContain('not a regular file');
    expect((await callTool(c.client, 'list_deployments', {})).status).toBe('done');
  }, 30_000);

  it('a file swapped for a pipe while the question is open: the choice is refused, nothing blocks', async () => {
    const path = 'notes/swapped.md';
    const local = join(data.dir, 'workspace', 'local', path);
    const remote = join(data.dir, 'workspace', 'remote', path);
    mkdirSync(join(remote, '..'), { recursive: true });
    writeFileSync(local, 'base\n');
    c.script.splice(0, c.script.length);
    expect((await callTool(c.client, 'sync_file', { path })).status).toBe('done');
    writeFileSync(local, 'local version\n');
    writeFileSync(remote, 'remote version\n');
    c.script.push(async () => {
      rmSync(remote);
      fifo = remote;
      execFileSync('mkfifo', [remote]);
      return { action: 'accept', content: { resolution: 'keep_local' } };
    });
    const r = await callTool(c.client, 'sync_file', { path });
    expect(r.status).toBe('rejected');
    expect(r.text).toContain('not a regular file');
    expect(statSync(remote).isFIFO()).toBe(true);
    expect((await callTool(c.client, 'list_deployments', {})).status).toBe('done');
  }, 30_000);
});
