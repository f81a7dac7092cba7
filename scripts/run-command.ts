/** One child process for the release checks (`check-packages.ts`, `pack-install.ts`): output captured, time bounded. */
import { spawn } from 'node:child_process';

/** What a finished command left: its exit code (null when a signal ended it), its output and how long it took. */
export interface Ran {
  command: string;
  code: number | null;
  stdout: string;
  stderr: string;
  ms: number;
  timedOut: boolean;
}

/**
 * Runs `command args…` without a shell and resolves when it has exited. It runs in a process group
 * of its own, so a timeout ends what it started too (npx → doctor → the server under test).
 *
 * @example
 * const ran = await runCommand('npm', ['--version'], { cwd: '/tmp' }); // { code: 0, stdout: '11.6.0\n', … }
 */
export function runCommand(
  command: string,
  args: readonly string[],
  options: { cwd: string; env?: NodeJS.ProcessEnv; timeoutMs?: number },
): Promise<Ran> {
  const started = performance.now();
  const shown = [command, ...args].map((a) => (/^[\w@./:=,+-]+$/.test(a) ? a : JSON.stringify(a))).join(' ');
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      cwd: options.cwd,
      env: options.env ?? process.env,
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    let stdout = '';
    let stderr = '';
    let timedOut = false;
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
    });
    const timer = setTimeout(() => {
      timedOut = true;
      if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
    }, options.timeoutMs ?? 600_000);
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(new Error(`${shown}: could not start (${error.message})`));
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ command: shown, code, stdout, stderr, ms: performance.now() - started, timedOut });
    });
  });
}

/** The last `lines` lines of a command's output, indented, for a failure message. */
export function tail(ran: Ran, lines = 40): string {
  const text = `${ran.stdout}${ran.stderr ? `\n${ran.stderr}` : ''}`.trimEnd().split('\n');
  const shown = text.slice(-lines).map((l) => `    ${l}`);
  return [text.length > lines ? `    … (${text.length - lines} lines before)` : '', ...shown]
    .filter((l) => l !== '')
    .join('\n');
}

/** `1.2 s` / `95 s`: a duration for a progress line. */
export function seconds(ms: number): string {
  return ms < 10_000 ? `${(ms / 1000).toFixed(1)} s` : `${Math.round(ms / 1000)} s`;
}
