import type { Stats } from 'node:fs';
import { constants, type FileHandle, open, stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { linkTarget } from './link-target.js';

/**
 * The most of a config read: 256 MiB. The largest config a client keeps is `~/.claude.json`
 * (Claude Code's project history), seen at 101 MB; a path to something endless (`/dev/zero`, a
 * file that keeps growing) was read until the process held 7.9 GB.
 */
export const MAX_CONFIG_BYTES = 256 * 1024 * 1024;

/** The second read of a config, after one sized by the file: small, as it most often finds only the end. */
const READ_CHUNK = 64 * 1024;

/**
 * Opened without waiting and without taking a terminal: a FIFO's open waits for a writer (forever,
 * with none), and a terminal's may become this process's own. Only a path swapped between the `stat`
 * and the `open` gets here as one of those, refused then by the descriptor's own `fstat`. Windows
 * has neither flag.
 */
const OPEN_FLAGS = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0) | (constants.O_NOCTTY ?? 0);

/**
 * The bytes of `file` (through its symlinks), or `undefined` when it does not exist. Only a regular
 * file of at most `MAX_CONFIG_BYTES` is read: anything else is refused before a byte is read, so a
 * config that is a FIFO does not hang the command, nor one that is `/dev/zero` fill the memory.
 * @example await readRegularFile('/home/ana/.cursor/mcp.json') // <Buffer 7b 0a …>
 */
export async function readRegularFile(file: string): Promise<Buffer | undefined> {
  let found: Stats;
  try {
    found = await stat(file);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return undefined;
    // A loop of symlinks (or a chain too long to follow) is named as such, not as the kernel's ELOOP.
    if (code === 'ELOOP') await linkTarget(file);
    throw error;
  }
  // Judged before it is opened: opening a device can itself do something (a tape rewinds).
  await refuseUnlessRegular(file, found);
  let handle: FileHandle;
  try {
    handle = await open(file, OPEN_FLAGS);
  } catch (error) {
    // Removed since the stat: missing, as a read a moment later would have found it.
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  try {
    // The file opened is the one judged: the path may have been given another since.
    const opened = await handle.stat();
    await refuseUnlessRegular(file, opened);
    if (opened.dev !== found.dev || opened.ino !== found.ino)
      throw new Error(`${file} was replaced while elicitkit read it: run the command again. Nothing was written.`);
    if (opened.size > MAX_CONFIG_BYTES) throw tooLarge(file, opened.size);
    return await readUpTo(handle, opened.size, file);
  } finally {
    await handle.close();
  }
}

/**
 * The file open as `handle` to its end, `size` its length when it was judged. Refused past
 * `MAX_CONFIG_BYTES`: a file may grow while it is read, and a length of 0 says nothing (Linux's
 * /proc and /sys).
 */
async function readUpTo(handle: FileHandle, size: number, file: string): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let total = 0;
  // One byte past the size, so that the usual file is read whole, and its end found, in two reads.
  let wanted = size + 1;
  for (;;) {
    const chunk = Buffer.allocUnsafe(Math.min(wanted, MAX_CONFIG_BYTES + 1 - total));
    const { bytesRead } = await handle.read(chunk, 0, chunk.length, null);
    if (bytesRead === 0) break;
    chunks.push(chunk.subarray(0, bytesRead));
    total += bytesRead;
    if (total > MAX_CONFIG_BYTES) throw tooLarge(file, undefined);
    // Then twice as much each time: a file still growing is read to the cap in a few reads.
    wanted = chunks.length === 1 ? READ_CHUNK : wanted * 2;
  }
  return chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, total);
}

/** The refusal of a config past `MAX_CONFIG_BYTES`; `size`, its length when known. */
function tooLarge(file: string, size: number | undefined): Error {
  const mib = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
  return new Error(
    `${file} ${size === undefined ? `holds more than ${mib(MAX_CONFIG_BYTES)}` : `is ${mib(size)}`}: elicitkit reads no config larger than ${mib(MAX_CONFIG_BYTES)}. Check that it is the client's config (Claude Code keeps its project history in ~/.claude.json: removing old projects from it shrinks it), or make the change yourself. Nothing was read or written.`,
  );
}

/**
 * Throws when `found` (the stat of `file`, through its symlinks) is not a regular file: a folder, a
 * device (`/dev/null`, `/dev/zero`), a FIFO, a socket. Reading one may block or never end, and
 * renaming a new config over it would put a file where the device was. The message names what it
 * is and, through symlinks, where `file` leads.
 * @example await refuseUnlessRegular('/work/.cursor/mcp.json', await stat('/work/.cursor/mcp.json'))
 */
export async function refuseUnlessRegular(file: string, found: Stats): Promise<void> {
  if (found.isFile()) return;
  const target = await linkTarget(file).catch(() => resolve(file));
  const what =
    target === resolve(file) ? `${file} is ${kindOf(found)}` : `${file} leads to ${target}, ${kindOf(found)}`;
  throw new Error(
    `${what}, not a regular file: elicitkit reads and replaces a config only as a regular file. Nothing was read or written. Point it at the client's config file, or move it aside, and run the command again.`,
  );
}

/** What a file that is not a regular one is, in words. */
function kindOf(found: Stats): string {
  if (found.isDirectory()) return 'a folder';
  if (found.isCharacterDevice()) return 'a character device';
  if (found.isBlockDevice()) return 'a block device';
  if (found.isFIFO()) return 'a named pipe (FIFO)';
  if (found.isSocket()) return 'a socket';
  return 'something else';
}
