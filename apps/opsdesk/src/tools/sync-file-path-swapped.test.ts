/**
 * sync_file refuses a path that a symlink takes out of the workspace — but only when the question
 * is asked. On a 2025 connection the choice is applied later, without looking at the path again:
 * a folder on the path swapped for a symlink while the person decides makes "keep local" write
 * outside the workspace. The content hashes the tool compares before acting follow the symlink, so
 * a target holding the same bytes as the side the person saw passes that check.
 *
 * Now each effect resolves the path again as it starts and reads the sides from there: a symlink
 * out of the workspace on the path is refused then, for each choice and whichever side's folder
 * was swapped. Driven over stdio (`elicitkit serve --stdio`) with a real SDK client.
 */
import { mkdirSync, readdirSync, readFileSync, renameSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callTool } from '../../../../test/support/mcp.js';
import { type Conn, stdioClient, tempDataDir } from '../../test/harness.js';

let data: ReturnType<typeof tempDataDir>;
let outside: ReturnType<typeof tempDataDir>;
let c: Conn;
beforeAll(async () => {
  data = tempDataDir();
  outside = tempDataDir();
  c = await stdioClient(data.dir, { revision: '2025-11-25', user: 'alice' });
}, 60_000);
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

/** Swaps folder `dir` of workspace side `s` for a symlink to `to` (its content moved away first). */
function swapForLink(s: 'local' | 'remote', dir: string, to: string): void {
  renameSync(join(data.dir, 'workspace', s, dir), join(outside.dir, `moved-${s}-${dir}`));
  symlinkSync(to, join(data.dir, 'workspace', s, dir));
}

describe('sync_file: the path is checked again when the choice is applied', () => {
  it.each([
    ['keep_local', 'remote'],
    ['keep_remote', 'local'],
    ['keep_both', 'local'],
  ] as const)(
    '%s, the %s folder swapped for a symlink out of the workspace while the question is open: refused, nothing written outside',
    async (resolution, swapped) => {
      const dir = `d-${resolution}`;
      const path = `${dir}/settings.txt`;
      write(side('local', path), 'base\n');
      c.script.splice(0, c.script.length);
      expect((await callTool(c.client, 'sync_file', { path })).status).toBe('done');
      write(side('local', path), 'local version\n');
      write(side('remote', path), 'remote version\n');
      // The folder it will point to holds the very bytes of the side it replaces.
      const victim = join(outside.dir, `victim-${resolution}`);
      const bytes = swapped === 'remote' ? 'remote version\n' : 'local version\n';
      write(join(victim, 'settings.txt'), bytes);
      c.script.push(async () => {
        swapForLink(swapped, dir, victim);
        return { action: 'accept', content: { resolution } };
      });
      const r = await callTool(c.client, 'sync_file', { path });
      expect(r.status).toBe('rejected');
      expect(r.text).toContain('outside the workspace');
      expect(readdirSync(victim)).toEqual(['settings.txt']);
      expect(readFileSync(join(victim, 'settings.txt'), 'utf8')).toBe(bytes);
    },
    60_000,
  );

  it('a folder swapped for a symlink out of the workspace while the question is open: nothing written outside', async () => {
    const path = 'cfg/settings.txt';
    // Synced once, then changed on both sides: a conflict.
    write(side('local', path), 'base\n');
    c.script.splice(0, c.script.length);
    expect((await callTool(c.client, 'sync_file', { path })).status).toBe('done');
    write(side('local', path), 'local: attacker-chosen content\n');
    write(side('remote', path), 'remote version the person compared\n');

    // Outside the workspace: a file with the very bytes of the remote version (say, a copy of a
    // file the attacker wants overwritten, placed as the remote side beforehand).
    const victimDir = join(outside.dir, 'victim');
    write(join(victimDir, 'settings.txt'), 'remote version the person compared\n');

    c.script.push(async () => {
      // While the person decides: the remote folder becomes a symlink out of the workspace.
      renameSync(join(data.dir, 'workspace', 'remote', 'cfg'), join(outside.dir, 'moved-away'));
      symlinkSync(victimDir, join(data.dir, 'workspace', 'remote', 'cfg'));
      return { action: 'accept', content: { resolution: 'keep_local' } };
    });
    const r = await callTool(c.client, 'sync_file', { path });

    // Was: done, and the file outside the workspace then held the local version.
    expect(readFileSync(join(victimDir, 'settings.txt'), 'utf8')).toBe('remote version the person compared\n');
    expect(r.status).toBe('rejected');
  }, 60_000);
});
