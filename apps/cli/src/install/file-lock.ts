import type { Stats } from 'node:fs';
import { type FileHandle, mkdir, open, readFile, realpath, rm, stat } from 'node:fs/promises';
import { hostname } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { linkTarget } from './link-target.js';

/** A lock older than this, whose process does not run here, was left by one that died mid-change: taken over. */
const STALE_LOCK_MS = 30_000;

/**
 * Runs `change` (read, plan, write) while holding `<file>.elicitkit-lock`, so that two installs or
 * uninstalls of one config at once do not each write their own version over the other's (one
 * entry reported added, then lost). The lock is a file created exclusively beside the file the
 * config is (through its symlinks and symlinked folders, so every path to it takes the same lock)
 * and removed after; one older than 30 s is taken over, unless its process still runs here.
 * `create`: make the config's folder for the lock (install, which creates it anyway); otherwise a
 * missing folder means no config and no lock.
 * @example await withFileLock('/work/.cursor/mcp.json', true, () => installInto(file))
 */
export async function withFileLock<T>(
  file: string,
  create: boolean,
  change: () => Promise<T>,
  waitMs = 10_000,
): Promise<T> {
  // Beside the file written, by its real path: two paths to one file (a symlink to a dotfiles repo
  // from both ~/.cursor and a project, a symlinked folder) take one lock.
  const target = await linkTarget(file);
  if (create) await mkdir(dirname(target), { recursive: true });
  else if (
    !(await stat(dirname(target)).then(
      (s) => s.isDirectory(),
      () => false,
    ))
  )
    return change();
  const lock = join(await realpath(dirname(target)), `${basename(target)}.elicitkit-lock`);
  const started = Date.now();
  for (;;) {
    try {
      const handle = await open(lock, 'wx', 0o600);
      try {
        await handle.writeFile(`${process.pid}\n${hostname()}`);
      } catch (error) {
        // Taken, but not written (a full disk): let go again, not left to make the next install
        // wait out a lock nobody holds.
        await handle.close().catch(() => {});
        await rm(lock, { force: true }).catch(() => {});
        throw error;
      }
      await handle.close();
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const judged = await stat(lock).catch(() => undefined);
      const age = judged ? Date.now() - judged.mtimeMs : 0;
      // However old, the lock of a process still running here is held: it may be slow (a huge file).
      // Removed by this waiter: try for it again at once. Otherwise wait (another is taking it over).
      if (judged && age > STALE_LOCK_MS && !(await holderRuns(lock)) && (await takeOver(lock, judged))) continue;
      if (Date.now() - started > waitMs)
        throw new Error(
          `another elicitkit install or uninstall is changing ${file} (${lock} exists); if none is running, remove ${lock} and run the command again`,
        );
      await new Promise((done) => setTimeout(done, 20));
    }
  }
  try {
    return await change();
  } finally {
    await rm(lock, { force: true });
  }
}

/**
 * Removes `lock`, judged stale as `judged` — only that file. Every waiter may judge one lock stale
 * at once; removing it blindly, a late one removed the lock another had just made, and two changes
 * ran together. So waiters take over one at a time (`<lock>.takeover`, created exclusively), and
 * the lock is removed only while it is still the file judged (its inode and time: a new lock may
 * reuse the inode, never the old time). A guard left by a waiter that died in these few
 * statements is itself taken as stale after 30 s. True when this waiter removed it.
 */
async function takeOver(lock: string, judged: Stats): Promise<boolean> {
  const guard = `${lock}.takeover`;
  let handle: FileHandle;
  try {
    handle = await open(guard, 'wx', 0o600);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    const left = await stat(guard).then(
      (s) => Date.now() - s.mtimeMs > STALE_LOCK_MS,
      () => false,
    );
    if (left) await rm(guard, { force: true });
    return false;
  }
  try {
    await handle.close();
    const now = await stat(lock).catch(() => undefined);
    if (now?.ino !== judged.ino || now.mtimeMs !== judged.mtimeMs) return false;
    await rm(lock, { force: true });
    return true;
  } finally {
    await rm(guard, { force: true });
  }
}

/**
 * Whether the process that wrote `lock` (`pid`, then the host's name) is running on this machine.
 * A lock from another host, or one not written yet, does not say: false.
 */
async function holderRuns(lock: string): Promise<boolean> {
  const [pid = '', host] = (await readFile(lock, 'utf8').catch(() => '')).split('\n');
  if (!/^[1-9]\d*$/.test(pid) || (host !== undefined && host !== hostname())) return false;
  try {
    process.kill(Number(pid), 0);
    return true;
  } catch (error) {
    // EPERM: it runs, as another user.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** What a change's unlocked first pass returns when it has something to write (`changeOnce`). */
export const TO_WRITE = Symbol('to write');

/**
 * Runs `attempt(false)`: reading, planning, and ending there when nothing is to be written (a
 * refusal, no change, a dry run), which then takes no lock and touches nothing. When it returns
 * `TO_WRITE`, runs `attempt(true)` under the file's lock, which reads and plans again and writes.
 * @example return changeOnce(file, true, async (locked) => { …; if (!locked) return TO_WRITE; await writeAtomically(file, text); return 0; })
 */
export async function changeOnce(
  file: string,
  create: boolean,
  attempt: (locked: boolean) => Promise<number | typeof TO_WRITE>,
): Promise<number> {
  const first = await attempt(false);
  if (first !== TO_WRITE) return first;
  const locked = await withFileLock(file, create, () => attempt(true));
  if (locked === TO_WRITE) throw new Error(`changing ${file}: the locked pass wrote nothing`);
  return locked;
}
