import { statSync } from 'node:fs';
import { posix, win32 } from 'node:path';
import type { InstallContext } from './clients.js';

/** A server command as it goes into a config, with what to tell the user about it. */
export interface ServerCommand {
  command: string[];
  /** Lines for stderr: the paths made absolute (one line), then each relative path left as written. */
  notes: string[];
}

/**
 * The command given after `--`, with every relative path that names an existing file made absolute
 * against `ctx.cwd`: clients start a server from a folder of their own (Claude Desktop uses `/`),
 * where `node ./server.js` finds nothing. A command word with a slash (`./bin/server`) is a path;
 * a bare one (`node`, `npx`) is looked up in PATH and kept, as are flags and words that name no
 * file (`-y`, `@modelcontextprotocol/server-memory`). A word written as a relative path
 * (`./`, `../`) that is a folder or names nothing is kept, with a warning: it may be meant so.
 * @example serverCommand(['node', './server.js', '--stdio'], ctx)
 * // { command: ['node', '/work/shop/server.js', '--stdio'], notes: ['note: resolved ./server.js → /work/shop/server.js …'] }
 */
export function serverCommand(given: readonly string[], ctx: Pick<InstallContext, 'cwd' | 'platform'>): ServerCommand {
  const p = ctx.platform === 'win32' ? win32 : posix;
  const resolved: string[] = [];
  const warnings: string[] = [];
  const command = given.map((word, index) => {
    if (word === '' || word.startsWith('-') || p.isAbsolute(word)) return word;
    const hasSeparator = word.includes('/') || (ctx.platform === 'win32' && word.includes('\\'));
    // A bare command word is found through PATH, never in the current folder.
    if (index === 0 && !hasSeparator) return word;
    const absolute = p.resolve(ctx.cwd, word);
    const kind = kindOf(absolute);
    if (kind === 'file') {
      resolved.push(`${word} → ${absolute}`);
      return absolute;
    }
    const explicit = /^\.\.?([/\\]|$)/.test(word) || (index === 0 && hasSeparator);
    if (explicit)
      warnings.push(
        `warning: ${word} ${kind === 'folder' ? 'is a folder' : 'names no file'} in ${ctx.cwd}; it is written as given, and the client will look for it from a folder of its own: give an absolute path if it is one`,
      );
    return word;
  });
  const note =
    resolved.length === 0
      ? []
      : [
          `note: resolved ${resolved.join(', ')} (against ${ctx.cwd}): the client starts the server from a folder of its own`,
        ];
  return { command, notes: [...note, ...warnings] };
}

function kindOf(path: string): 'file' | 'folder' | undefined {
  try {
    const s = statSync(path);
    return s.isDirectory() ? 'folder' : 'file';
  } catch {
    return undefined;
  }
}
