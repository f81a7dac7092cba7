// A lock left by an install that died is taken over by whoever waits on it. Several waiting at
// once all judged it stale, and each removed "the" lock: one that removed it late removed the lock
// another had just made, and two changes ran at once — both writing the config, one entry lost.
// Taking over now goes one waiter at a time, and removes only the file judged stale.
import { mkdtemp, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { withFileLock } from './file-lock.js';

let root = '';
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'ek-stale-lock-'));
});
afterEach(() => rm(root, { recursive: true, force: true }));

describe('a stale lock with several installs waiting on it', () => {
  it('is taken over by one at a time: no two changes ever run together', async () => {
    const file = join(root, 'mcp.json');
    let inside = 0;
    let most = 0;
    const change = async () => {
      inside++;
      most = Math.max(most, inside);
      await new Promise((done) => setTimeout(done, 5));
      inside--;
    };
    for (let round = 0; round < 30; round++) {
      // Left by a process that is gone (no such pid), a minute ago.
      const lock = join(root, 'mcp.json.elicitkit-lock');
      await writeFile(lock, '999999999\nnowhere');
      const minuteAgo = new Date(Date.now() - 60_000);
      await utimes(lock, minuteAgo, minuteAgo);
      await Promise.all(Array.from({ length: 12 }, () => withFileLock(file, true, change, 30_000)));
    }
    expect(most).toBe(1);
  });
});
