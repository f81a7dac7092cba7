import { COMMAND_USAGE, COMMANDS, isCommand, wantsHelp } from './help.js';
import type { Io } from './io.js';
import { shown } from './shown.js';
import { EXIT, parseArgsMistake, USAGE, UsageError } from './usage.js';

const defaultIo: Io = {
  out: (line) => process.stdout.write(`${line}\n`),
  err: (line) => process.stderr.write(`${line}\n`),
};

/**
 * Runs one `elicitkit` command line (without the program name) and resolves with its exit code:
 * 0 done, 1 tool error, 2 usage, 3 declined or cancelled (`EXIT`). Nothing is thrown.
 *
 * @example
 * process.exitCode = await main(['call', 'opsdesk', 'list_deployments', '--json']);
 */
export async function main(argv: string[], io: Io = defaultIo): Promise<number> {
  const [command, ...rest] = argv;
  try {
    if (isCommand(command) && wantsHelp(rest)) {
      io.out(COMMAND_USAGE[command]);
      return EXIT.ok;
    }
    // Each command is loaded only when chosen, so `serve` does not start up with the client,
    // the prompts, diff and jsonc-parser that the other commands need.
    switch (command) {
      case 'serve':
        return await (await import('./commands/serve.js')).serve(rest, io);
      case 'audit':
        return await (await import('./commands/audit.js')).audit(rest, io);
      case 'reset':
        return await (await import('./commands/reset.js')).reset(rest, io);
      case 'doctor':
        return await (await import('./commands/doctor.js')).doctor(rest, io);
      case 'call':
        return await (await import('./commands/call.js')).call(rest, io);
      case 'tools':
        return await (await import('./commands/tools.js')).tools(rest, io);
      case 'install':
        return await (await import('./commands/install.js')).install(rest, io);
      case 'uninstall':
        return await (await import('./commands/uninstall.js')).uninstall(rest, io);
      case 'help': {
        const [topic, ...more] = rest;
        if (more.length > 0) throw new UsageError(`help takes one command, got ${rest.join(' ')}`);
        if (topic !== undefined && !isCommand(topic)) throw new UsageError(`no command "${topic}" to help with`);
        io.out(topic === undefined ? USAGE : COMMAND_USAGE[topic]);
        return EXIT.ok;
      }
      case undefined:
      case '--help':
      case '-h':
        io.out(USAGE);
        return command === undefined ? EXIT.usage : EXIT.ok;
      default:
        throw new UsageError(`unknown command "${command}"`);
    }
  } catch (error) {
    const usage = error instanceof UsageError ? error.message : parseArgsMistake(error);
    if (usage !== undefined) {
      // One line for what was wrong and one for where to read more: not the whole manual.
      const more = isCommand(command)
        ? `Run \`elicitkit ${command} --help\` for its options.`
        : `Commands: ${COMMANDS.join(', ')}. Run \`elicitkit --help\` for more.`;
      io.err(`elicitkit${isCommand(command) ? ` ${command}` : ''}: ${shown(usage)}\n${more}`);
      return EXIT.usage;
    }
    io.err(`elicitkit: ${shown(error instanceof Error ? error.message : String(error))}`);
    return EXIT.toolError;
  }
}
