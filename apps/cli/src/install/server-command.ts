import { statSync } from 'node:fs';
import { posix, win32 } from 'node:path';
import type { ClientId, InstallContext, Scope } from './clients.js';

/** A server command as it goes into a config, with what to tell the user about it. */
export interface ServerCommand {
  command: string[];
  /** Lines for stderr: the paths made absolute (one line), then each relative path left as written. */
  notes: string[];
}

/**
 * The command given after `--`, its relative paths made fit for the config they go into. Clients
 * start a server from a folder of their own (Claude Desktop uses `/`), where `node ./server.js`
 * finds nothing: in a user's own config (`user` scope), every relative path that names an existing
 * file is made absolute against `ctx.cwd`. A project's config is shared with the project (checked
 * in, used on other machines), where an absolute path names this machine's folders: a file inside
 * the project stays relative to it — as `${workspaceFolder}/…` for VS Code, which fills that in,
 * and as written for the others, which resolve it from the folder they start the server in (the
 * project's, for Claude Code) — and one outside it is made absolute, with a warning. A command
 * word with a slash (`./bin/server`) is a path; a bare one (`node`, `npx`) is looked up in PATH
 * and kept, as are flags and words that name no file (`-y`, `@modelcontextprotocol/server-memory`);
 * a flag's value given in the same word (`--config=./conf.json`) is a word like the others.
 * A word written as a relative path (`./`, `../`) that is a folder or names nothing is kept, with a
 * warning: it may be meant so.
 * @example serverCommand(['node', './server.js', '--stdio'], ctx, { scope: 'user', client: 'cursor' })
 * // { command: ['node', '/work/shop/server.js', '--stdio'], notes: ['note: resolved ./server.js → /work/shop/server.js …'] }
 */
export function serverCommand(
  given: readonly string[],
  ctx: Pick<InstallContext, 'cwd' | 'platform'>,
  target: { scope: Scope; client: ClientId },
): ServerCommand {
  const p = ctx.platform === 'win32' ? win32 : posix;
  const resolved: string[] = [];
  const kept: string[] = [];
  const warnings: string[] = [];
  /** `word` fit for the config: the command word when `first`. */
  const fit = (word: string, first: boolean): string => {
    if (word === '' || p.isAbsolute(word)) return word;
    const hasSeparator = word.includes('/') || (ctx.platform === 'win32' && word.includes('\\'));
    // A bare command word is found through PATH, never in the current folder.
    if (first && !hasSeparator) return word;
    const absolute = p.resolve(ctx.cwd, word);
    const kind = kindOf(absolute);
    if (kind === 'file') {
      const inside = p.relative(ctx.cwd, absolute);
      // Outside: `..` itself or under it; a file named `..srv.js` is the project's own.
      const outside = inside === '..' || inside.startsWith(`..${p.sep}`) || p.isAbsolute(inside);
      if (target.scope === 'project' && !outside) {
        if (target.client !== 'vscode') {
          kept.push(word);
          return word;
        }
        const shared = `\${workspaceFolder}/${inside.split(p.sep).join('/')}`;
        resolved.push(`${word} → ${shared}`);
        return shared;
      }
      if (target.scope === 'project')
        warnings.push(
          `warning: ${word} is outside the project (${ctx.cwd}): it is written as ${absolute}, a path on this machine, into a config the project shares`,
        );
      resolved.push(`${word} → ${absolute}`);
      return absolute;
    }
    const explicit = /^\.\.?([/\\]|$)/.test(word) || (first && hasSeparator);
    if (explicit)
      warnings.push(
        `warning: ${word} ${kind === 'folder' ? 'is a folder' : 'names no file'} in ${ctx.cwd}; it is written as given, and the client will look for it from a folder of its own: give an absolute path if it is one`,
      );
    return word;
  };
  const command = given.map((word, index) => {
    if (!word.startsWith('-')) return fit(word, index === 0);
    // A flag with its value in the same word (`--config=./conf.json`): the value is a word too.
    const flag = /^(--?[^=\s]+=)(.+)$/s.exec(word);
    return flag ? `${flag[1]}${fit(flag[2] as string, false)}` : word;
  });
  const notes: string[] = [];
  if (resolved.length > 0)
    notes.push(
      `note: resolved ${resolved.join(', ')} (against ${ctx.cwd}): the client starts the server from a folder of its own`,
    );
  if (kept.length > 0)
    notes.push(
      `note: kept ${kept.join(', ')} relative to the project, whose config is shared: the client looks for ${kept.length > 1 ? 'them' : 'it'} from the folder it starts the server in (the project's, for Claude Code); with --scope user, ${kept.length > 1 ? 'they are written as absolute paths' : 'it is written as an absolute path'}`,
    );
  return { command, notes: [...notes, ...warnings] };
}

function kindOf(path: string): 'file' | 'folder' | undefined {
  try {
    const s = statSync(path);
    return s.isDirectory() ? 'folder' : 'file';
  } catch {
    return undefined;
  }
}
