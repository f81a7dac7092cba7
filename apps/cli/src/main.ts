import { COMMAND_USAGE, COMMANDS, type Command, isCommand, wantsHelp } from './help.js';
import type { Io } from './io.js';
import { EXIT, parseArgsMistake, USAGE, UsageError } from './usage.js';

/**
 * The process's stdout and stderr, one line per call. A reader that went away (`| head -1`) is an
 * EPIPE on the stream: what is left to say there is dropped, and the command goes on to its end
 * (an install still writes its file, its exit code is still its own), never a crash with a stack
 * trace. Set up on first use: importing `main` (the tests do) changes nothing on the process.
 */
function processIo(): Io {
  const line = (stream: NodeJS.WriteStream) => {
    let gone = false;
    stream.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code !== 'EPIPE') throw error;
      gone = true;
    });
    return (text: string) => {
      if (!gone) stream.write(`${text}\n`);
    };
  };
  return { out: line(process.stdout), err: line(process.stderr) };
}
/** The most of a server's error message shown. */
const SERVER_ERROR_SHOWN = 2_000;

let defaultIo: Io | undefined;
/** The process's own `Io`, made once. */
function ownIo(): Io {
  defaultIo ??= processIo();
  return defaultIo;
}

/** One command: the words after its name, where to write; resolves with the exit code. */
type CommandRun = (argv: string[], io: Io) => Promise<number>;

/**
 * What each command runs: one entry for every name in `COMMANDS` (help.ts, which `COMMAND_USAGE`
 * is keyed by too), and `help`. A name missing here, or here and not there, does not compile.
 * Each command is loaded only when chosen, so `serve` does not start up with the client, the
 * prompts, diff and jsonc-parser that the other commands need.
 */
const COMMAND_RUNS = {
  serve: async (argv, io) => (await import('./commands/serve.js')).serve(argv, io),
  reset: async (argv, io) => (await import('./commands/reset.js')).reset(argv, io),
  tools: async (argv, io) => (await import('./commands/tools.js')).tools(argv, io),
  call: async (argv, io) => (await import('./commands/call.js')).call(argv, io),
  doctor: async (argv, io) => (await import('./commands/doctor.js')).doctor(argv, io),
  install: async (argv, io) => (await import('./commands/install.js')).install(argv, io),
  uninstall: async (argv, io) => (await import('./commands/uninstall.js')).uninstall(argv, io),
  audit: async (argv, io) => (await import('./commands/audit.js')).audit(argv, io),
  help: async (argv, io) => help(argv, io),
} satisfies Record<Command | 'help', CommandRun>;

/** True for a word `main` runs as a command: a name in `COMMANDS`, or `help`. */
function runs(word: string): word is keyof typeof COMMAND_RUNS {
  return Object.hasOwn(COMMAND_RUNS, word);
}

/** `elicitkit help [command]`: the overview, or one command's usage. */
function help(argv: string[], io: Io): number {
  const [topic, ...more] = argv;
  if (more.length > 0) throw new UsageError(`help takes one command, got ${argv.join(' ')}`);
  if (topic !== undefined && !isCommand(topic)) throw new UsageError(`no command "${topic}" to help with`);
  io.out(topic === undefined ? USAGE : COMMAND_USAGE[topic]);
  return EXIT.ok;
}

/**
 * Runs one `elicitkit` command line (without the program name) and resolves with its exit code:
 * 0 done, 1 tool error, 2 usage, 3 declined or cancelled (`EXIT`). Nothing is thrown.
 *
 * @example
 * process.exitCode = await main(['call', 'opsdesk', 'list_deployments', '--json']);
 */
export async function main(argv: string[], io: Io = ownIo()): Promise<number> {
  const [command, ...rest] = argv;
  try {
    if (isCommand(command) && wantsHelp(rest)) {
      io.out(COMMAND_USAGE[command]);
      return EXIT.ok;
    }
    if (command === undefined || command === '--help' || command === '-h') {
      io.out(USAGE);
      return command === undefined ? EXIT.usage : EXIT.ok;
    }
    if (!runs(command)) throw new UsageError(`unknown command "${command}"`);
    return await COMMAND_RUNS[command](rest, io);
  } catch (error) {
    // Server text made fit for a terminal by the terminal renderer's filter, loaded only to say
    // what went wrong: a command that runs well (`serve`) never loads the renderer.
    const { clean } = await import('@elicitkit/client/terminal');
    const usage = error instanceof UsageError ? error.message : parseArgsMistake(error);
    if (usage !== undefined) {
      // One line for what was wrong and one for where to read more: not the whole manual.
      const more = isCommand(command)
        ? `Run \`elicitkit ${command} --help\` for its options.`
        : `Commands: ${COMMANDS.join(', ')}. Run \`elicitkit --help\` for more.`;
      // On its line: a usage error may quote a server's argument names and choices, and a line
      // break in them would start a line that reads as ours.
      const { joinLines } = await import('./shown.js');
      io.err(`elicitkit${isCommand(command) ? ` ${command}` : ''}: ${joinLines(clean(usage))}\n${more}`);
      return EXIT.usage;
    }
    // A URL in the message (the target's, a redirect's the SDK quotes) keeps no query value, no password.
    const { urlsShown } = await import('./shown-url.js');
    const message = urlsShown(error instanceof Error ? error.message : String(error));
    const { ProtocolError } = await import('@modelcontextprotocol/client');
    if (error instanceof ProtocolError) {
      // A JSON-RPC error: most often the server's own words (an error it answered with; the SDK's
      // refusal of a result it sent is one too), shown as an error's text, on one line and cut: a
      // line break in them would start a line that reads as ours (`elicitkit: report done`).
      const { inLine } = await import('./shown.js');
      io.err(`elicitkit: MCP error ${error.code}: ${inLine(message, SERVER_ERROR_SHOWN)}`);
    } else io.err(`elicitkit: ${clean(message)}`);
    return EXIT.toolError;
  }
}
