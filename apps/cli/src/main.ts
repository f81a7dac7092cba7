import { audit } from './commands/audit.js';
import { call } from './commands/call.js';
import { doctor } from './commands/doctor.js';
import { install } from './commands/install.js';
import { reset } from './commands/reset.js';
import { serve } from './commands/serve.js';
import { tools } from './commands/tools.js';
import { uninstall } from './commands/uninstall.js';
import type { Io } from './io.js';
import { EXIT, USAGE, UsageError } from './usage.js';

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
    switch (command) {
      case 'serve':
        return await serve(rest, io);
      case 'audit':
        return await audit(rest, io);
      case 'reset':
        return await reset(rest, io);
      case 'doctor':
        return await doctor(rest, io);
      case 'call':
        return await call(rest, io);
      case 'tools':
        return await tools(rest, io);
      case 'install':
        return await install(rest, io);
      case 'uninstall':
        return await uninstall(rest, io);
      case undefined:
      case 'help':
      case '--help':
      case '-h':
        io.out(USAGE);
        return command === undefined ? EXIT.usage : EXIT.ok;
      default:
        throw new UsageError(`unknown command "${command}"`);
    }
  } catch (error) {
    if (
      error instanceof UsageError ||
      (error instanceof TypeError && 'code' in error && String(error.code).startsWith('ERR_PARSE_ARGS'))
    ) {
      io.err(`elicitkit: ${error.message}\n\n${USAGE}`);
      return EXIT.usage;
    }
    io.err(`elicitkit: ${error instanceof Error ? error.message : String(error)}`);
    return EXIT.toolError;
  }
}
