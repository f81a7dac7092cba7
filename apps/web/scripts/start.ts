/**
 * `npm start` and `npm run build:web`: builds the libraries and the web app only when their
 * sources changed since the last successful build, then serves it with `next start`.
 *   npm start -- [--port N] [--hostname H]     (PORT=N works too; default 127.0.0.1:3000)
 *   npm run build:web                           (always builds, then records the stamp)
 * Before building or serving it checks the configuration and the port (`preflight.ts`): either
 * wrong is one line on stderr and a non-zero exit.
 */
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureBuilt } from './build-stamp';
import { portProblem, preflight, type StartProblem } from './preflight';
import { childEnv, parseStartOptions, StartUsageError } from './start-options';

const webDir = resolve(fileURLToPath(import.meta.url), '../..');
const root = resolve(webDir, '../..');
const require = createRequire(import.meta.url);
const NEXT = require.resolve('next/dist/bin/next');
const TSC = require.resolve('typescript/bin/tsc');

function run(args: string[]): Promise<number> {
  return new Promise((resolveCode, reject) => {
    const child = spawn(process.execPath, args, { cwd: root, stdio: 'inherit', env: childEnv(process.env) });
    // Ctrl+C reaches the child through the terminal's process group; a SIGTERM sent to us alone is forwarded.
    const forward = () => child.kill('SIGTERM');
    process.once('SIGTERM', forward);
    child.once('error', reject);
    child.once('exit', (code, signal) => {
      process.off('SIGTERM', forward);
      resolveCode(code ?? (signal ? 1 : 0));
    });
  });
}

async function build(): Promise<void> {
  process.stdout.write('elicitkit: building the app (about a minute the first time)…\n');
  for (const step of [
    [TSC, '-b'],
    // The libraries' published JavaScript (their `exports` point at it), then the CLI's one-file build.
    ['--import', 'tsx', resolve(root, 'scripts/bundle-packages.ts')],
    // `elicitkit serve` starts from its one-file build only while that matches dist/ (see bin/elicitkit.js).
    ['--import', 'tsx', resolve(root, 'scripts/bundle-serve.ts')],
    [NEXT, 'build', webDir],
  ]) {
    const code = await run(step);
    if (code !== 0) throw new Error(`${step.slice(1).join(' ')} failed (exit ${code})`);
  }
}

async function main(): Promise<number> {
  let options: ReturnType<typeof parseStartOptions>;
  try {
    options = parseStartOptions(process.argv.slice(2), process.env);
  } catch (error) {
    if (!(error instanceof StartUsageError)) throw error;
    process.stderr.write(`npm start: ${error.message}\n`);
    return 2;
  }
  if (!options.buildOnly) {
    // A bad ELICITKIT_SERVERS or a busy port: one line now, not after a build or as Next's stack trace.
    const problem = await preflight({ ...options, env: childEnv(process.env), cwd: root });
    if (problem) return refuse(problem);
  }
  const reason = await ensureBuilt({ root, webDir, build, force: options.buildOnly });
  process.stdout.write(
    reason === undefined
      ? 'elicitkit: the build is up to date (no source changed since the last build)\n'
      : `elicitkit: built (${reason})\n`,
  );
  if (options.buildOnly) return 0;
  // The build took a while: the port may have been taken meanwhile.
  const busy = reason === undefined ? undefined : await portProblem(options.port, options.hostname);
  if (busy) return refuse({ message: busy, exitCode: 1 });
  return run([NEXT, 'start', webDir, '--port', String(options.port), '--hostname', options.hostname]);
}

function refuse(problem: StartProblem): number {
  process.stderr.write(`npm start: ${problem.message}\n`);
  return problem.exitCode;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`npm start: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  },
);
