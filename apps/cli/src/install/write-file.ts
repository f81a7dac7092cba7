import { randomBytes } from 'node:crypto';
import type { Stats } from 'node:fs';
import {
  access,
  chown,
  constants,
  copyFile,
  type FileHandle,
  lstat,
  mkdir,
  open,
  readFile,
  readlink,
  realpath,
  rename,
  rm,
  stat,
} from 'node:fs/promises';
import { hostname } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';

/**
 * The file's text, or `undefined` when it does not exist. Any other failure (a folder in the way, no
 * permission) is thrown: installing must not mistake an unreadable config for a missing one.
 * @example await readIfExists('/home/ana/.cursor/mcp.json') // undefined on a fresh machine
 */
export async function readIfExists(file: string): Promise<string | undefined> {
  let bytes: Buffer;
  try {
    bytes = await readFile(file);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return undefined;
    // A loop of symlinks (or a chain too long to follow) is named as such, not as the kernel's ELOOP.
    if (code === 'ELOOP') await linkTarget(file);
    throw error;
  }
  // Decoded strictly: a byte that is not UTF-8 (a Latin-1 "é" in a path) would come back as U+FFFD
  // in every rewrite, changing what the other servers' entries say. A byte-order mark is kept in
  // the text (the decoder drops it by default), so the edits can write it back.
  try {
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    const at = firstInvalidUtf8(bytes);
    throw new Error(
      `${file} is not UTF-8 text (byte 0x${(bytes[at] ?? 0).toString(16).padStart(2, '0')} at offset ${at}): elicitkit does not rewrite it, since every such byte would be changed. Save it as UTF-8 and run the command again.`,
    );
  }
}

/** The offset of the first byte that does not decode as UTF-8. */
function firstInvalidUtf8(bytes: Uint8Array): number {
  const decodes = (n: number, stream: boolean) => {
    try {
      new TextDecoder('utf-8', { fatal: true }).decode(bytes.subarray(0, n), { stream });
      return true;
    } catch {
      return false;
    }
  };
  // The longest prefix that decodes in stream mode, which lets a character cut short through: it
  // ends at most 3 bytes past the first bad sequence's start, the last whole-character prefix.
  let low = 0;
  let high = bytes.length;
  while (low < high) {
    const mid = Math.ceil((low + high) / 2);
    if (decodes(mid, true)) low = mid;
    else high = mid - 1;
  }
  for (let n = low; n > low - 4 && n > 0; n--) if (decodes(n, false)) return n;
  return 0;
}

/**
 * Throws when the existing `file` (through a symlink, the file it points to) has no write
 * permission for anyone: someone made it read-only on purpose, and replacing it by a rename would
 * go around that. Likewise, except for root, when this user may not write it (another user's
 * 0644 file in a folder this one can write): the rename would replace a file they could not
 * change, and make it theirs. Nothing is written; the message says how to go on.
 * @example await refuseReadOnly('/work/.cursor/mcp.json')
 */
export async function refuseReadOnly(file: string, command: 'install' | 'uninstall'): Promise<void> {
  const found = await stat(file).catch(() => undefined);
  if (found === undefined) return;
  const mode = (found.mode & 0o777).toString(8);
  if ((found.mode & 0o222) === 0)
    throw new Error(
      `${file} is read-only (mode ${mode}): elicitkit does not change a file someone made read-only. Make it writable (chmod u+w ${file}) and run ${command} again, or make the change yourself (--dry-run shows it).`,
    );
  const uid = process.getuid?.();
  if (uid === undefined || uid === 0 || (await writable(file))) return;
  throw new Error(
    `${file} is not writable by this user (uid ${uid}; the file is uid ${found.uid}'s, mode ${mode}): elicitkit does not replace a file you may not change, which would also make it yours. Run ${command} as a user who may write it (run with sudo, the owner is kept), or make the change yourself (--dry-run shows it).`,
  );
}

/** Whether this process may write `file`; only a refusal (EACCES) says no, other failures are the write's to report. */
async function writable(file: string): Promise<boolean> {
  return access(file, constants.W_OK).then(
    () => true,
    (error: NodeJS.ErrnoException) => error.code !== 'EACCES',
  );
}

/**
 * Copies `file` to `<file>.bak`, replacing an older backup; resolves with the backup's path.
 * @example await backUp('/work/.mcp.json') // '/work/.mcp.json.bak'
 */
export async function backUp(file: string): Promise<string> {
  const backup = `${file}.bak`;
  // copyFile carries the mode over, so a private config does not leave a world-readable copy.
  await copyFile(file, backup);
  // And, run as root, the owner and group (root's own group may not be 0): the backup is the
  // user's, as the file was.
  if (process.getuid?.() === 0) {
    const { uid, gid } = await stat(file);
    await chown(backup, uid, gid);
  }
  return backup;
}

/** Symlinks followed to the file behind a config before giving up, as the kernel does (ELOOP). */
const MAX_LINKS = 40;

/**
 * The file `file` stands for: itself, or through a symlink (a chain of them) the file it points to,
 * which may not exist yet. A relative link is read from its own folder. A loop, or a chain longer
 * than `MAX_LINKS`, is refused: there is no file to write.
 */
async function linkTarget(file: string): Promise<string> {
  const chain = [resolve(file)];
  for (;;) {
    const path = chain.at(-1) as string;
    const isLink = await lstat(path).then(
      (s) => s.isSymbolicLink(),
      (error: NodeJS.ErrnoException) => {
        if (error.code === 'ENOENT') return false;
        throw error;
      },
    );
    if (!isLink) return path;
    // From the link's real folder, as the kernel reads it: `..` after a symlinked folder is its parent.
    const next = resolve(await realpath(dirname(path)), await readlink(path));
    if (chain.includes(next)) {
      throw new Error(
        `${file} is a symlink loop (${[...chain, next].join(' -> ')}): there is no file to write. Point the link at a file and run the command again.`,
      );
    }
    if (chain.length > MAX_LINKS) {
      throw new Error(
        `${file} is a chain of more than ${MAX_LINKS} symlinks: elicitkit does not follow it further. Point the link at the file itself and run the command again.`,
      );
    }
    chain.push(next);
  }
}

/**
 * Replaces `file` with `text` in one step: a crash leaves the old file or the new one, never half of
 * each (the new text is flushed to disk before the rename, and the rename after it). Missing
 * folders are created; an existing file keeps its mode, and a symlink (a dotfiles repo) stays a
 * symlink because the write goes to the file it points to, created there when it does not exist yet. `newMode` is the mode of a file created (default 0666 narrowed by the umask).
 * @example await writeAtomically('/home/ana/.claude.json', '{}\n')
 */
export async function writeAtomically(file: string, text: string, newMode = 0o666): Promise<void> {
  const target = await linkTarget(file);
  const existing = await stat(target).catch(() => undefined);
  const mode = existing ? existing.mode & 0o7777 : undefined;
  await mkdir(dirname(target), { recursive: true });
  const temp = join(dirname(target), `.${basename(target)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
  try {
    // Created with the final mode and given it exactly (creation narrows it by the umask) before it
    // holds a byte: a private config's text is never readable by others, not even for a moment.
    const handle = await open(temp, 'wx', (mode ?? newMode) & 0o777);
    try {
      // Run with sudo, a user's config must stay theirs (the client rewrites it as it runs), and any
      // file its owner and group: root's group may be another, a setgid folder gives its own. Before
      // the mode, which a change of owner may take the setuid and setgid bits from.
      if (existing && process.getuid?.() === 0) await handle.chown(existing.uid, existing.gid);
      if (mode !== undefined) await handle.chmod(mode);
      await handle.writeFile(text);
      // On disk before the rename is: otherwise a crash right after it can leave the config's name
      // on an empty or cut-short file (ext4 and XFS write the rename first, the data later).
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temp, target);
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
  await syncFolder(dirname(target));
}

/**
 * Flushes `folder`'s entries (a rename in it) to disk. Skipped where that cannot be done: Windows
 * opens no folder as a file (EISDIR) nor syncs one (EPERM), some filesystems (network, FUSE) answer
 * EINVAL or ENOTSUP, and a folder one may write but not read (mode -wx) does not open (EACCES).
 */
async function syncFolder(folder: string): Promise<void> {
  let handle: FileHandle | undefined;
  try {
    handle = await open(folder, 'r');
    await handle.sync();
  } catch (error) {
    if (!FOLDER_SYNC_UNSUPPORTED.has((error as NodeJS.ErrnoException).code ?? '')) throw error;
  } finally {
    await handle?.close();
  }
}

const FOLDER_SYNC_UNSUPPORTED = new Set(['EISDIR', 'EPERM', 'EINVAL', 'ENOTSUP', 'EACCES']);

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
      await handle.writeFile(`${process.pid}\n${hostname()}`);
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
