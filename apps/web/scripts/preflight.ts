import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** What `preflight` found: the line to print and the exit code. */
export interface StartProblem {
  message: string;
  exitCode: number;
}

const CHECK_CONFIG = resolve(fileURLToPath(import.meta.url), '../check-config.ts');

/**
 * The configuration `npm start` would serve with, checked in a child process that reads the
 * libraries' sources (they may not be built yet): its one-line problem, or undefined. A check
 * that cannot run at all is not a reason to refuse to start: the page says it then.
 *
 * @example
 * await configProblemOf({ ...process.env, ELICITKIT_SERVERS: '[' }); // 'The configuration is invalid: ELICITKIT_SERVERS is not valid JSON: …'
 */
export function configProblemOf(env: NodeJS.ProcessEnv, cwd: string): Promise<string | undefined> {
  return new Promise((done) => {
    const child = spawn(process.execPath, ['--conditions=@elicitkit/source', '--import', 'tsx', CHECK_CONFIG], {
      cwd,
      env,
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    child.once('error', () => done(undefined));
    child.once('exit', (code) => done(code === 2 ? stderr.trim().split('\n')[0] : undefined));
  });
}

/**
 * Whether `next start` could listen on `hostname:port`: tried by listening there for a moment.
 * The reason it could not, in one line with what to do (a busy port: pick another or stop the
 * other process), or undefined.
 *
 * @example
 * await portProblem(3000, '127.0.0.1'); // 'port 3000 is in use on 127.0.0.1: …' while another server holds it
 */
export function portProblem(port: number, hostname: string): Promise<string | undefined> {
  return new Promise((done) => {
    const server = createServer();
    server.once('error', (error: NodeJS.ErrnoException) => done(listenProblem(error, port, hostname)));
    server.listen({ port, host: hostname, exclusive: true }, () => server.close(() => done(undefined)));
  });
}

function listenProblem(error: NodeJS.ErrnoException, port: number, hostname: string): string {
  const other = port < 65535 ? port + 1 : port - 1;
  switch (error.code) {
    case 'EADDRINUSE':
      return `port ${port} is in use on ${hostname}: stop the other process, or pick another port (PORT=${other} npm start, or npm start -- --port ${other})`;
    case 'EACCES':
      return `port ${port} needs administrator rights here: pick one above 1023 (PORT=3000 npm start)`;
    case 'EADDRNOTAVAIL':
      return `${hostname} is not an address of this machine: pass --hostname 127.0.0.1 (this machine only) or 0.0.0.0 (every interface)`;
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return `the host name "${hostname}" does not resolve: pass --hostname 127.0.0.1 (this machine only) or 0.0.0.0 (every interface)`;
    default:
      return `cannot listen on ${hostname}:${port}: ${error.message}`;
  }
}

/**
 * What `npm start` checks before building and serving, so a mistake costs a line, not a build
 * and a stack trace: the configuration (exit 2), then the port (exit 1).
 */
export async function preflight(options: {
  port: number;
  hostname: string;
  env: NodeJS.ProcessEnv;
  cwd: string;
}): Promise<StartProblem | undefined> {
  const config = await configProblemOf(options.env, options.cwd);
  if (config) return { message: lowerFirst(config), exitCode: 2 };
  const port = await portProblem(options.port, options.hostname);
  if (port) return { message: port, exitCode: 1 };
  return undefined;
}

function lowerFirst(line: string): string {
  return line.charAt(0).toLowerCase() + line.slice(1);
}
