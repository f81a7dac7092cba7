import { lstat, readlink, realpath } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';

/** Symlinks followed to the file behind a config before giving up, as the kernel does (ELOOP). */
const MAX_LINKS = 40;

/**
 * The file `file` stands for: itself, or through a symlink (a chain of them) the file it points to,
 * which may not exist yet. A relative link is read from its own folder. A loop, or a chain longer
 * than `MAX_LINKS`, is refused: there is no file to write. The config's writes and its lock both
 * go to this file, so every path to one file is one config.
 * @example await linkTarget('/home/ana/.cursor/mcp.json') // '/home/ana/dotfiles/cursor/mcp.json'
 */
export async function linkTarget(file: string): Promise<string> {
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
