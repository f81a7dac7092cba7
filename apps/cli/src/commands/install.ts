import { clean } from '@elicitkit/client/terminal';
import { CLIENTS, type InstallContext, installContext, type JsonValue } from '../install/clients.js';
import { opsdeskCommand } from '../install/default-command.js';
import { changeOnce, TO_WRITE } from '../install/file-lock.js';
import { parseInstallArgs } from '../install/parse-args.js';
import { type EditPlan, planEdit } from '../install/plan-edit.js';
import { serverCommand } from '../install/server-command.js';
import { shownConfig } from '../install/shown-config.js';
import { unifiedDiff } from '../install/unified-diff.js';
import { type Fsync, readIfExists, refuseReadOnly, writeAtomically } from '../install/write-file.js';
import type { Io } from '../io.js';
import { joinLines, shownIo } from '../shown.js';
import { EXIT } from '../usage.js';

/** What `install` reads from the machine; tests pass their own so nothing touches the real home. */
export type InstallEnvironment = InstallContext & {
  /** Installed when no command follows `--`; the bundled opsdesk by default. */
  defaultCommand: readonly string[];
  /** The flush to disk; a test's fails as a disk would (`Fsync`). */
  fsync?: Fsync | undefined;
};

/**
 * `elicitkit install <client> [--scope project|user] [--name N] [--dry-run] [--url URL [--header K=V …] | -- command…]`:
 * adds one stdio (or, with `--url`, remote HTTP) server to a client's MCP config, changing nothing else in the file.
 * @example await install(['cursor', '--', 'node', '/srv/server.js'], io) // 0; writes ./.cursor/mcp.json
 */
export async function install(argv: string[], raw: Io, environment: Partial<InstallEnvironment> = {}): Promise<number> {
  // Every line through the terminal renderer's filter, as `call` prints a server's text: the
  // config's own text reaches them (a key in a note, a symlink's target in an error), and an
  // escape sequence in it would move the cursor, hide lines or set the clipboard.
  const io = shownIo(raw);
  const request = parseInstallArgs(argv);
  const { defaultCommand = opsdeskCommand(), fsync, ...machine } = environment;
  const env: InstallEnvironment = { ...installContext(machine), defaultCommand, fsync };
  const spec = CLIENTS[request.client];
  const file = spec.path(request.scope, env);
  const { name } = request;
  const where = `(${request.client}, ${request.scope} scope)`;
  let entry: JsonValue;
  if (request.remote) {
    if (typeof spec.httpEntry !== 'function') {
      io.err(`elicitkit: ${request.client} cannot take a remote server: ${spec.httpEntry.refused}.`);
      return EXIT.usage;
    }
    entry = spec.httpEntry(request.remote.url, request.remote.headers);
  } else {
    const given =
      request.command && serverCommand(request.command, env, { scope: request.scope, client: request.client });
    for (const note of given?.notes ?? []) io.err(note);
    const [command, ...args] = given?.command ?? env.defaultCommand;
    if (command === undefined) throw new Error('install: the default server command is empty');
    entry = spec.entry(command, args);
  }

  // The locked pass plans again only a file that changed since the first read: planning a huge
  // ~/.claude.json (Claude Code's project history) takes a while.
  let planned: { before: string | undefined; plan: EditPlan } | undefined;
  try {
    return await changeOnce(file, true, async (locked) => {
      const before = await readIfExists(file);
      const plan =
        planned && planned.before === before
          ? planned.plan
          : planEdit(before, { rootKey: spec.rootKey, name, entry, jsonc: spec.jsonc });
      planned = { before, plan };
      if (plan.kind === 'refused') {
        // On its line: a key quoted in it may hold a line break, which would start a line of its own.
        io.err(`elicitkit: ${file}:${plan.line}:${plan.column}: ${joinLines(plan.reason)}`);
        io.err('The file was left untouched; fix it (or move it aside) and run install again.');
        return EXIT.toolError;
      }
      // Said once: on the pass that ends the command (a write is planned again under the lock).
      if (locked || plan.kind === 'unchanged' || request.dryRun)
        for (const note of plan.notes) io.err(`note: ${file}: ${joinLines(note)}`);
      if (plan.kind === 'unchanged') {
        io.out(
          request.dryRun
            ? `Dry run: no changes; MCP server "${name}" is already installed in ${file}.`
            : `MCP server "${name}" is already installed in ${file} ${where}; nothing to do.`,
        );
        return EXIT.ok;
      }

      const change =
        plan.kind === 'replace'
          ? `replace the existing, different MCP server "${name}" in ${file}`
          : `add MCP server "${name}" to ${file}`;
      if (request.dryRun) {
        io.out(`Dry run: would ${change} ${where}; nothing was written.`);
        printDiff(io, file, before, plan.text);
        return EXIT.ok;
      }

      if (before !== undefined) await refuseReadOnly(file, 'install');
      // Written under a lock, after reading and planning again under it: two runs at once would
      // each write their own version over the other's. Nothing to write takes no lock.
      if (!locked) return TO_WRITE;
      // A new file that will hold a credential is the user's alone: what a dry run hides is one (a
      // --header's value, a URL's password, query values and fragment), judged here by that same code.
      const secret = shownConfig(JSON.stringify(entry)).masked;
      const { backup, warning, note } = await writeAtomically(file, plan.text, {
        newMode: secret ? 0o600 : 0o666,
        backup: true,
        fsync,
      });
      if (backup === undefined) io.out(`Created ${file} with MCP server "${name}" ${where}.`);
      else {
        const done =
          plan.kind === 'replace'
            ? `Replaced the existing, different MCP server "${name}" in`
            : `Added MCP server "${name}" to`;
        io.out(`${done} ${file} ${where}.`);
        io.out(`The previous version is saved as ${backup}.`);
      }
      if (note !== undefined) io.err(`note: ${note}`);
      // The config is replaced: done (exit 0), though a crash could still undo it.
      if (warning !== undefined) io.err(`warning: ${warning}`);
      return EXIT.ok;
    });
  } catch (error) {
    io.err(`elicitkit: could not install into ${file}: ${error instanceof Error ? error.message : String(error)}`);
    return EXIT.toolError;
  }
}

/**
 * Prints what a plan would change, as a unified diff, without the credentials in either version
 * (`shownConfig`): a dry run's output goes to a terminal's scrollback or a CI log.
 */
export function printDiff(io: Io, file: string, before: string | undefined, after: string): void {
  const old = before === undefined ? undefined : shownConfig(before);
  const now = shownConfig(after, old);
  const shown = unifiedDiff(file, old?.text, now.text);
  // The file's text, cleaned as the terminal renderer cleans a server's (a JSONC comment can hold
  // an escape sequence) and each line kept one line: a lone CR, a line break to the parser, would
  // start one without its diff mark. A CRLF file's lines end in CR, their end and no text.
  for (const line of shown) io.out(joinLines(clean(line.replace(/\r$/, ''))));
  // Said when the diff shows a value left out, not for one elsewhere in the file.
  if ((old?.masked || now.masked) && unifiedDiff(file, before, after).some((line, i) => line !== shown[i]))
    io.out('(header and env values, and URL passwords, query values and fragments, are shown as …)');
}
