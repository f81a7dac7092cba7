import { CLIENTS, type InstallContext, installContext } from '../install/clients.js';
import { changeOnce, TO_WRITE } from '../install/file-lock.js';
import { parseUninstallArgs } from '../install/parse-args.js';
import { planRemove, type RemovePlan } from '../install/plan-edit.js';
import { type Fsync, readIfExists, refuseReadOnly, writeAtomically } from '../install/write-file.js';
import type { Io } from '../io.js';
import { joinLines, shownIo } from '../shown.js';
import { EXIT } from '../usage.js';
import { printDiff } from './install.js';

/**
 * `elicitkit uninstall <client> [--scope project|user] [--name N] [--dry-run]`: takes one server
 * (default `opsdesk`) out of a client's MCP config; every other byte of the file stays (comments
 * included), a `.bak` keeps the previous version, and a missing entry changes nothing (exit 0).
 * @example await uninstall(['cursor', '--name', 'opsdesk'], io) // 0; ./.cursor/mcp.json without "opsdesk"
 */
export async function uninstall(
  argv: string[],
  raw: Io,
  environment: Partial<InstallContext> & { fsync?: Fsync | undefined } = {},
): Promise<number> {
  // Cleaned as install's lines are: the config's own text (a key, a symlink's target) reaches them.
  const io = shownIo(raw);
  const request = parseUninstallArgs(argv);
  const { fsync, ...machine } = environment;
  const env = installContext(machine);
  const spec = CLIENTS[request.client];
  const file = spec.path(request.scope, env);
  const where = `(${request.client}, ${request.scope} scope)`;
  // The locked pass plans again only a file that changed since the first read (a huge ~/.claude.json).
  let planned: { before: string | undefined; plan: RemovePlan } | undefined;
  try {
    return await changeOnce(file, false, async (locked) => {
      const before = await readIfExists(file);
      const plan = planned && planned.before === before ? planned.plan : planRemove(before, spec.rootKey, request.name);
      planned = { before, plan };
      if (plan.kind === 'refused') {
        io.err(`elicitkit: ${file}:${plan.line}:${plan.column}: ${joinLines(plan.reason)}`);
        io.err('The file was left untouched; fix it and run uninstall again.');
        return EXIT.toolError;
      }
      if (plan.kind === 'absent') {
        io.out(
          `MCP server "${request.name}" is not in ${before === undefined ? `${file} (no such file)` : file} ${where}; nothing to do.`,
        );
        return EXIT.ok;
      }
      if (request.dryRun) {
        io.out(`Dry run: would remove MCP server "${request.name}" from ${file} ${where}; nothing was written.`);
        printDiff(io, file, before, plan.text);
        return EXIT.ok;
      }
      await refuseReadOnly(file, 'uninstall');
      // Written under a lock, after reading and planning again under it: two runs at once would
      // each write their own version over the other's. Nothing to write takes no lock.
      if (!locked) return TO_WRITE;
      const { backup, warning, note } = await writeAtomically(file, plan.text, { backup: true, fsync });
      io.out(`Removed MCP server "${request.name}" from ${file} ${where}.`);
      if (backup !== undefined) io.out(`The previous version is saved as ${backup}.`);
      if (note !== undefined) io.err(`note: ${note}`);
      // The config is replaced: done (exit 0), though a crash could still undo it.
      if (warning !== undefined) io.err(`warning: ${warning}`);
      return EXIT.ok;
    });
  } catch (error) {
    io.err(`elicitkit: could not uninstall from ${file}: ${error instanceof Error ? error.message : String(error)}`);
    return EXIT.toolError;
  }
}
