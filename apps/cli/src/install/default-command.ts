import { fileURLToPath } from 'node:url';

/**
 * The command that runs the bundled opsdesk over stdio. Both parts are absolute because clients start
 * servers from a directory of their own choosing (Claude Desktop uses `/`), where `npx` or a relative
 * path would find nothing. The bin path is relative to this module, which sits two folders below the
 * package in `src/install/` and in `dist/install/` alike.
 * @example opsdeskCommand() // ['/usr/bin/node', '/…/apps/cli/bin/elicitkit.js', 'serve', '--stdio']
 */
export function opsdeskCommand(execPath: string = process.execPath): string[] {
  return [execPath, fileURLToPath(new URL('../../bin/elicitkit.js', import.meta.url)), 'serve', '--stdio'];
}
