import { createHash, randomBytes } from 'node:crypto';
import {
  closeSync,
  constants,
  copyFileSync,
  existsSync,
  fstatSync,
  linkSync,
  lstatSync,
  mkdirSync,
  openSync,
  readFileSync,
  realpathSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { dirname, isAbsolute, join, posix, relative, sep } from 'node:path';

/** The two sides `sync_file` reconciles. */
export interface Workspace {
  local: string;
  remote: string;
}

/** One side of one file: absent, or its content hash and modification time. */
export type Side = { exists: false } | { exists: true; hash: string; mtime: Date; content: Buffer };

export const SEED_FILE = 'notes/plan.md';
const SEED_CONTENT = `# Release plan

- order-service v2.3.1: pagination of order history (REL-1001)
- payment-service v1.8.0: refund retries (REL-2001)
- search-service: relevance tuning, in review
`;

/** Creates the workspace folders; on first creation both sides get the seed file, in sync. */
export function openWorkspace(dataDir: string): { workspace: Workspace; seeded: string | undefined } {
  const root = join(dataDir, 'workspace');
  const workspace = { local: join(root, 'local'), remote: join(root, 'remote') };
  const fresh = !existsSync(root);
  mkdirSync(workspace.local, { recursive: true });
  mkdirSync(workspace.remote, { recursive: true });
  if (!fresh) return { workspace, seeded: undefined };
  for (const side of [workspace.local, workspace.remote]) writeAtomic(join(side, SEED_FILE), Buffer.from(SEED_CONTENT));
  return { workspace, seeded: hashOf(Buffer.from(SEED_CONTENT)) };
}

export function hashOf(content: Buffer): string {
  return createHash('sha256').update(content).digest('hex');
}

export type Resolved = { ok: true; path: string; local: string; remote: string } | { ok: false; why: string };

/**
 * Maps a workspace-relative path to both sides, refusing anything that could leave the workspace
 * or fail there: absolute paths, `..` that climbs out, NUL bytes, lone surrogates, names over 255
 * bytes, and symlinks anywhere on the path (out of the workspace, or in it: a second path to the
 * same file). A path must name a file, not a folder.
 */
export function resolvePath(workspace: Workspace, input: string): Resolved {
  if (input.length === 0 || input.length > 1024) return { ok: false, why: 'the path must be 1 to 1024 characters' };
  if (input.includes('\0')) return { ok: false, why: 'the path contains a NUL byte' };
  // The file system would take a lone surrogate as U+FFFD: one file under two names, each with its
  // own last-sync state, and a change judged against the wrong one is copied over, or lost.
  if (/\p{Surrogate}/u.test(input)) return { ok: false, why: 'the path is not well-formed Unicode (a lone surrogate)' };
  const slashed = input.replaceAll('\\', '/');
  if (isAbsolute(input) || slashed.startsWith('/') || /^[A-Za-z]:/.test(slashed))
    return { ok: false, why: 'absolute paths are not allowed' };
  const normal = posix.normalize(slashed);
  if (normal === '..' || normal.startsWith('../') || normal === '.' || normal === '') {
    return { ok: false, why: 'the path leaves the workspace' };
  }
  const path = normal.replace(/\/+$/, '');
  // Past the file system's limit a name fails on open with the server's own paths in the error.
  if (path.split('/').some((name) => Buffer.byteLength(name) > NAME_MAX))
    return { ok: false, why: `a name in the path is longer than ${NAME_MAX} bytes` };
  for (const root of [workspace.local, workspace.remote]) {
    const target = join(root, ...path.split('/'));
    const outside = escapesRoot(root, target);
    if (outside) return { ok: false, why: outside };
  }
  return {
    ok: true,
    path,
    local: join(workspace.local, ...path.split('/')),
    remote: join(workspace.remote, ...path.split('/')),
  };
}

/** The longest name (one part of a path), in bytes, that Linux and macOS file systems take. */
const NAME_MAX = 255;

/** Why `target` is not safely inside `root`, or undefined when it is. */
function escapesRoot(root: string, target: string): string | undefined {
  const realRoot = realpathSync(root);
  // Walk up to the deepest part that exists and see where it really is.
  let probe = target;
  while (!existsSync(probe) && !isLink(probe)) {
    const parent = dirname(probe);
    if (parent === probe) break;
    probe = parent;
  }
  let real: string;
  try {
    real = realpathSync(probe);
  } catch {
    return 'the path goes through a broken symlink';
  }
  const rel = relative(realRoot, real);
  if (rel.startsWith('..') || isAbsolute(rel) || rel.split(sep).includes('..'))
    return 'a symlink on the path points outside the workspace';
  // One file, one path: through a symlink inside the workspace (to a folder or to the file) a file
  // has a second path, each with its own last sync, and a conflict resolved under one leaves the
  // other's record behind — its next sync copies the resolution over as if it were a change.
  for (let part = probe; part.startsWith(root + sep); part = dirname(part)) if (isLink(part)) return THROUGH_LINK;
  // A part of the path that is a file (or a pipe …) where a folder must be: nothing can be written below it.
  if (probe !== target && existsSync(probe) && !statSync(probe).isDirectory())
    return 'a part of the path is a file, not a folder';
  if (probe === target && existsSync(target)) {
    const kind = statSync(target);
    if (kind.isDirectory()) return 'the path is a folder, not a file';
    if (!kind.isFile()) return NOT_A_FILE;
  }
  return undefined;
}

const NOT_A_FILE = 'the path is not a regular file (a pipe, a socket or a device)';
const THROUGH_LINK =
  'the path goes through a symlink: sync_file takes each file by one path only (through a symlink it has two, each with its own last sync)';
const HARD_LINKED =
  'the file has other names (hard links): sync_file takes each file by one path only (under each name it has its own last sync)';

/**
 * The largest side sync_file reads: a sync holds both sides whole in memory, in the server every
 * user shares (and Node reads no file past 2 GiB at all).
 */
export const MAX_SYNC_BYTES = 64 * 1024 * 1024;

/**
 * A side that is there but cannot be synced: no regular file (reading it could block the server,
 * or never end), or larger than `MAX_SYNC_BYTES`. `why` says which.
 */
export class NotSyncable extends Error {
  constructor(readonly why: string) {
    super(why);
  }
}

function isLink(path: string): boolean {
  try {
    return lstatSync(path).isSymbolicLink();
  } catch {
    return false;
  }
}

/**
 * One side as it is now. Opened without waiting (a named pipe with no writer would hold the read,
 * and the server's one thread with it) and judged by what was opened, not by a look before: a
 * file swapped for a pipe after the path was checked is still refused (`NotSyncable`), as is one
 * past `MAX_SYNC_BYTES`.
 */
export function readSide(file: string): Side {
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return { exists: false };
    throw error;
  }
  try {
    const opened = fstatSync(fd);
    if (!opened.isFile()) throw new NotSyncable(NOT_A_FILE);
    if (opened.nlink > 1) throw new NotSyncable(HARD_LINKED);
    if (opened.size > MAX_SYNC_BYTES)
      throw new NotSyncable(`the file is larger than ${MAX_SYNC_BYTES / 1024 / 1024} MiB (${opened.size} bytes)`);
    const content = readFileSync(fd);
    return { exists: true, hash: hashOf(content), mtime: opened.mtime, content };
  } finally {
    closeSync(fd);
  }
}

/** Makes `file` hold `side` (or removes it), via a temporary file and a rename. */
export function applySide(file: string, side: Side): void {
  if (!side.exists) {
    rmSync(file, { force: true });
    return;
  }
  writeAtomic(file, side.content);
}

/**
 * Makes `file` hold `content` only if no file (or link) is at its name: false, nothing written,
 * when the name is taken — by another process since it was found free, say. Whole or not at all:
 * written to a temporary file first, then linked to the name (no name already there is ever
 * replaced, as a rename would); on a file system without hard links, copied there exclusively.
 */
export function createFile(file: string, content: Buffer): boolean {
  mkdirSync(dirname(file), { recursive: true });
  const temp = join(dirname(file), `.${randomBytes(12).toString('hex')}.tmp`);
  try {
    // Inside the try: a write that fails part-way (the disk full) leaves no partial file behind.
    writeFileSync(temp, content, { flag: 'wx' });
    try {
      linkSync(temp, file);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'EEXIST') return false;
      if (code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'EOPNOTSUPP') throw error;
      try {
        copyFileSync(temp, file, constants.COPYFILE_EXCL);
      } catch (copying) {
        if ((copying as NodeJS.ErrnoException).code === 'EEXIST') return false;
        throw copying;
      }
    }
    return true;
  } finally {
    rmSync(temp, { force: true });
  }
}

function writeAtomic(file: string, content: Buffer): void {
  mkdirSync(dirname(file), { recursive: true });
  // Whoever writes the workspace could plant a symlink at a name they can guess: the name is
  // random and created exclusively (`wx` never writes through a name already there, a link included).
  // Named apart from the file, so a file whose name is near the limit can still be written.
  const temp = join(dirname(file), `.${randomBytes(12).toString('hex')}.tmp`);
  try {
    writeFileSync(temp, content, { flag: 'wx' });
    renameSync(temp, file);
  } catch (error) {
    // A write that failed part-way (the disk full) or a rename refused: no temporary file is left.
    rmSync(temp, { force: true });
    throw error;
  }
}
