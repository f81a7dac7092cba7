import { randomBytes } from 'node:crypto';
import { copyFile, lstat, mkdir, open, readFile, readlink, realpath, rename, rm, stat } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';

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
 * each. Missing folders are created; an existing file keeps its mode, and a symlink (a dotfiles repo)
 * stays a symlink because the write goes to the file it points to, created there when it does not
 * exist yet.
 * @example await writeAtomically('/home/ana/.claude.json', '{}\n')
 */
export async function writeAtomically(file: string, text: string): Promise<void> {
  const target = await linkTarget(file);
  const mode = await stat(target).then(
    (s) => s.mode & 0o7777,
    () => undefined,
  );
  await mkdir(dirname(target), { recursive: true });
  const temp = join(dirname(target), `.${basename(target)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
  try {
    // Created with the final mode and given it exactly (creation narrows it by the umask) before it
    // holds a byte: a private config's text is never readable by others, not even for a moment.
    const handle = await open(temp, 'wx', (mode ?? 0o666) & 0o777);
    try {
      if (mode !== undefined) await handle.chmod(mode);
      await handle.writeFile(text);
    } finally {
      await handle.close();
    }
    await rename(temp, target);
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
}
