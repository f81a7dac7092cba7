import { randomBytes } from 'node:crypto';
import { chmod, copyFile, mkdir, readFile, realpath, rename, rm, stat, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

/**
 * The file's text, or `undefined` when it does not exist. Any other failure (a folder in the way, no
 * permission) is thrown: installing must not mistake an unreadable config for a missing one.
 * @example await readIfExists('/home/ana/.cursor/mcp.json') // undefined on a fresh machine
 */
export async function readIfExists(file: string): Promise<string | undefined> {
  try {
    return await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

/**
 * Throws when the existing `file` (through a symlink, the file it points to) has no write
 * permission for anyone: someone made it read-only on purpose, and replacing it by a rename would
 * go around that. Nothing is written; the message says how to go on.
 * @example await refuseReadOnly('/work/.cursor/mcp.json')
 */
export async function refuseReadOnly(file: string, command: 'install' | 'uninstall'): Promise<void> {
  const mode = await stat(file).then(
    (s) => s.mode & 0o777,
    () => undefined,
  );
  if (mode === undefined || (mode & 0o222) !== 0) return;
  throw new Error(
    `${file} is read-only (mode ${mode.toString(8)}): elicitkit does not change a file someone made read-only. Make it writable (chmod u+w ${file}) and run ${command} again, or make the change yourself (--dry-run shows it).`,
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
  return backup;
}

/**
 * Replaces `file` with `text` in one step: a crash leaves the old file or the new one, never half of
 * each. Missing folders are created; an existing file keeps its mode, and a symlink (a dotfiles repo)
 * stays a symlink because the write goes to the file it points to.
 * @example await writeAtomically('/home/ana/.claude.json', '{}\n')
 */
export async function writeAtomically(file: string, text: string): Promise<void> {
  const target = await realpath(file).catch(() => file);
  const mode = await stat(target).then(
    (s) => s.mode & 0o7777,
    () => undefined,
  );
  await mkdir(dirname(target), { recursive: true });
  const temp = join(dirname(target), `.${basename(target)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
  try {
    await writeFile(temp, text, { flag: 'wx' });
    // Set after writing: the mode given at creation is narrowed by the umask.
    if (mode !== undefined) await chmod(temp, mode);
    await rename(temp, target);
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
}
