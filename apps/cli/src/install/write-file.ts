import { randomBytes } from 'node:crypto';
import type { Stats } from 'node:fs';
import { access, constants, copyFile, type FileHandle, mkdir, open, rename, rm, stat } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { linkTarget } from './link-target.js';
import { readRegularFile, refuseUnlessRegular } from './regular-file.js';

/**
 * The file's text, or `undefined` when it does not exist. Any other failure (a folder in the way, no
 * permission) is thrown: installing must not mistake an unreadable config for a missing one. So is
 * a config that is not a regular file (a device, a FIFO) or is larger than `MAX_CONFIG_BYTES`,
 * before it is read (`readRegularFile`).
 * @example await readIfExists('/home/ana/.cursor/mcp.json') // undefined on a fresh machine
 */
export async function readIfExists(file: string): Promise<string | undefined> {
  const bytes = await readRegularFile(file);
  if (bytes === undefined) return undefined;
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
 * One flush to disk (fsync) of an open file or folder, `path` naming it. `writeAtomically` takes it
 * as an option only so that a test can make one fail as a failing disk does (EIO), which no real
 * filesystem here can be made to do; nothing else goes through it.
 */
export type Fsync = (handle: FileHandle, path: string) => Promise<void>;

const fsyncHandle: Fsync = (handle) => handle.sync();

/**
 * Copies `file` to `<file>.bak`, replacing an older backup, and flushes the copy and then its name
 * in its folder to disk: a crash right after the config is replaced must not leave the new config
 * and an empty backup, or none. Resolves with the backup's path.
 *
 * Never written through what `<file>.bak` is now: the copy goes to a new file of its own (created
 * exclusively, so not through a link put there either) and is renamed over the name, which replaces
 * a symlink or a hard link, not the file it leads to. A project's folder is anyone's to fill (a
 * cloned repository can hold `.cursor/mcp.json.bak` as a link to `~/.ssh/authorized_keys`), and
 * run with sudo the copy is given the config's owner.
 */
async function backUp(file: string, existing: Stats, fsync: Fsync): Promise<string> {
  const backup = `${file}.bak`;
  const temp = tempBeside(backup);
  try {
    // copyFile carries the mode over, so a private config does not leave a world-readable copy.
    await copyFile(file, temp, constants.COPYFILE_EXCL);
    // Opened for writing: Windows flushes no file opened only to read.
    const handle = await open(temp, 'r+');
    try {
      // And the owner and group (the new config's were given first, so these may be too): run as
      // root, the backup is the user's, as the file was, and a group's private file stays its group's.
      await keepOwner(handle, existing);
      await flush(fsync, handle, backup, `the backup ${backup}`);
    } finally {
      await handle.close();
    }
    await rename(temp, backup).catch((error: NodeJS.ErrnoException) => {
      throw error.code === 'EISDIR' || error.code === 'ENOTEMPTY' || error.code === 'EEXIST'
        ? new Error(
            `${backup} is a folder, so the previous version cannot be kept there: move it away and run the command again. Nothing was changed.`,
          )
        : error;
    });
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
  // Beside `file`, which may be a symlink in another folder than the config it points to.
  await syncFolder(dirname(backup), fsync).catch((error: Error) => {
    throw new Error(`the backup's folder ${dirname(backup)} could not be flushed to disk (${error.message})`);
  });
  return backup;
}

/** A name of its own beside `file` for a file written before it is renamed over `file`: hidden, this process's, random. */
function tempBeside(file: string): string {
  return join(dirname(file), `.${basename(file)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
}

/** Gives the file open as `handle` the owner and group of `existing` where they are not already its own. */
async function keepOwner(handle: FileHandle, existing: Stats): Promise<void> {
  const made = await handle.stat();
  if (made.uid !== existing.uid || made.gid !== existing.gid) await handle.chown(existing.uid, existing.gid);
}

/**
 * `keepOwner` for the new config, refused (nothing written) where the system does not let this
 * user do it: only root gives a file to another user, and another user only to a group of its own.
 * Writing into the file in place would keep them, but a crash mid-write would leave it cut short.
 */
async function keepOwnerOrRefuse(handle: FileHandle, existing: Stats, file: string): Promise<void> {
  try {
    await keepOwner(handle, existing);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') throw error;
    const { uid, gid } = await handle.stat();
    const mode = (existing.mode & 0o777).toString(8);
    const [what, given] =
      uid !== existing.uid
        ? [
            `is uid ${existing.uid}'s (group ${existing.gid}, mode ${mode})`,
            `give to uid ${existing.uid}: it would become yours`,
          ]
        : [
            `is in group ${existing.gid} (mode ${mode})`,
            `put in group ${existing.gid}, not being a member: it would move to group ${gid}`,
          ];
    throw new Error(
      `${file} ${what}, and elicitkit replaces a config by renaming a new file over it, which this user (uid ${uid}) cannot ${given}. Nothing was changed. Run the command as the file's owner and in its group, or with sudo (the owner and group are kept), or make the change yourself (--dry-run shows it).`,
    );
  }
}

/** `fsync`, its failure said as what could not be flushed (`what`). */
async function flush(fsync: Fsync, handle: FileHandle, path: string, what: string): Promise<void> {
  try {
    await fsync(handle, path);
  } catch (error) {
    throw new Error(`${what} could not be flushed to disk (${(error as Error).message})`);
  }
}

/**
 * How `writeAtomically` writes: `newMode`, the mode of a file created (default 0666 narrowed by the
 * umask); `backup`, keep the previous version of an existing file as `<file>.bak`; `fsync`, a
 * test's failing flush (`Fsync`).
 */
export type WriteOptions = { newMode?: number; backup?: boolean; fsync?: Fsync | undefined };

/**
 * What `writeAtomically` did: `backup`, the previous version's path (when asked for and the file
 * existed); `warning`, set when the file was replaced but its folder's flush failed (EIO), which
 * a crash could then undo — the write itself succeeded; `note`, set when the file had other hard
 * links, which keep the previous version (a rename replaces one name).
 */
export type Written = { backup: string | undefined; warning: string | undefined; note?: string };

/**
 * Replaces `file` with `text` in one step: a crash leaves the old file or the new one, never half of
 * each (the new text is flushed to disk before the rename, and the rename after it). With `backup`,
 * an existing file is first copied to `<file>.bak`, on disk before the rename. Missing folders are
 * created; an existing file keeps its mode, and a symlink (a dotfiles repo) stays a symlink because
 * the write goes to the file it points to, created there when it does not exist yet. Any failure
 * before the rename is thrown with the file as it was; after it, the file is replaced, and a
 * failure to flush its folder comes back as `warning`.
 * @example await writeAtomically('/home/ana/.claude.json', '{}\n', { backup: true }) // { backup: '/home/ana/.claude.json.bak', warning: undefined }
 */
export async function writeAtomically(file: string, text: string, options: WriteOptions = {}): Promise<Written> {
  const { newMode = 0o666, fsync = fsyncHandle } = options;
  const target = await linkTarget(file);
  const existing = await stat(target).catch(() => undefined);
  // Read as a regular file, so replaced only as one: a rename over a device (a config linked to
  // /dev/null) would put a file in its place, and its backup would read it (a FIFO: forever).
  if (existing) await refuseUnlessRegular(file, existing);
  const mode = existing ? existing.mode & 0o7777 : undefined;
  await mkdir(dirname(target), { recursive: true });
  const temp = tempBeside(target);
  let backup: string | undefined;
  try {
    // Created with the final mode and given it exactly (creation narrows it by the umask) before it
    // holds a byte: a private config's text is never readable by others, not even for a moment.
    const handle = await open(temp, 'wx', (mode ?? newMode) & 0o777);
    try {
      // A config keeps its owner and group: run with sudo, a user's must stay theirs (the client
      // rewrites it as it runs); root's group may be another, a setgid folder gives its own; and a
      // group member's write must not make another user's group-writable file theirs. Before the
      // mode, which a change of owner may take the setuid and setgid bits from; before the backup,
      // so that a refusal changes nothing.
      if (existing) await keepOwnerOrRefuse(handle, existing, file);
      if (mode !== undefined) await handle.chmod(mode);
      if (existing && options.backup) backup = await backUp(file, existing, fsync);
      await handle.writeFile(text);
      // On disk before the rename is: otherwise a crash right after it can leave the config's name
      // on an empty or cut-short file (ext4 and XFS write the rename first, the data later).
      await flush(fsync, handle, temp, 'the new text');
    } finally {
      await handle.close();
    }
    await rename(temp, target);
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
  // Replaced: whatever happens now, saying nothing was written would be false. A folder that
  // cannot be flushed (a disk's EIO) leaves the rename in memory only until the system writes it.
  const warning = await syncFolder(dirname(target), fsync).then(
    () => undefined,
    (error: Error) =>
      `${file} was written, but its folder ${dirname(target)} could not be flushed to disk (${error.message}): a crash or power loss before the system writes it may ${existing ? `bring back the previous version${backup ? ` (the one saved as ${backup})` : ''}` : 'leave no file'}.`,
  );
  // A rename gives this name a file of its own: the file's other names (a hard link from a
  // dotfiles folder) keep what it held. Said, not refused: writing in place would keep them, but a
  // crash mid-write would leave it cut short.
  const others = existing && existing.nlink > 1 ? existing.nlink - 1 : 0;
  const note =
    others > 0
      ? `${file} had ${others} other hard link${others === 1 ? '' : 's'}: ${others === 1 ? 'it keeps' : 'they keep'} the previous version, and ${file} is now a file of its own (a symlink would have stayed one)`
      : undefined;
  return { backup, warning, ...(note ? { note } : {}) };
}

/**
 * Flushes `folder`'s entries (a rename in it) to disk. Skipped where that cannot be done: Windows
 * opens no folder as a file (EISDIR) nor syncs one (EPERM), some filesystems (network, FUSE) answer
 * EINVAL or ENOTSUP, and a folder one may write but not read (mode -wx) does not open (EACCES).
 * Any other failure (EIO: the disk) is thrown.
 */
async function syncFolder(folder: string, fsync: Fsync): Promise<void> {
  let handle: FileHandle | undefined;
  try {
    handle = await open(folder, 'r');
    await fsync(handle, folder);
  } catch (error) {
    if (!FOLDER_SYNC_UNSUPPORTED.has((error as NodeJS.ErrnoException).code ?? '')) throw error;
  } finally {
    await handle?.close();
  }
}

const FOLDER_SYNC_UNSUPPORTED = new Set(['EISDIR', 'EPERM', 'EINVAL', 'ENOTSUP', 'EACCES']);
