/**
 * `elicitkit call` in a real pseudo-terminal (util-linux `script`, 120×40), from source, with an
 * `xdg-open` of its own on PATH that only records the links it is given: keys typed, the screen
 * read, the exit code `script -e` passes on. Linux only.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CLI, nodeArgs } from '../../opsdesk/test/harness.js';

export interface TerminalSession {
  /** Resolves once `text` has been drawn (rejects if the CLI exits first). */
  until(text: string): Promise<void>;
  /** Types `keys` at the terminal. */
  type(keys: string): void;
  /** The exit code, once the CLI has exited. */
  exited(): Promise<number>;
  /** All that was drawn so far. */
  screen(): string;
  /** The links `xdg-open` was given, one per line. */
  opened(): string;
  /** Kills it (if it still runs) and removes its folder. */
  close(): void;
}

export function callInTerminal(args: readonly string[]): TerminalSession {
  const dir = mkdtempSync(join(tmpdir(), 'ek-terminal-'));
  const bin = join(dir, 'bin');
  const opened = join(dir, 'opened');
  mkdirSync(bin);
  writeFileSync(join(bin, 'xdg-open'), `#!/bin/sh\necho "$1" >> '${opened}'\n`);
  chmodSync(join(bin, 'xdg-open'), 0o755);
  const command = [process.execPath, ...nodeArgs(CLI, 'call', ...args)].map((a) => `'${a.replaceAll("'", "'\\''")}'`);
  // A terminal of a usual size (script's has none: every character would be a line of its own).
  const child: ChildProcess = spawn('script', ['-qec', `stty cols 120 rows 40; ${command.join(' ')}`, '/dev/null'], {
    stdio: ['pipe', 'pipe', 'pipe'],
    env: { ...process.env, PATH: `${bin}:${process.env.PATH}` },
  });
  let screen = '';
  const waiting = new Set<() => void>();
  child.stdout?.on('data', (chunk: Buffer) => {
    screen += chunk.toString();
    for (const look of waiting) look();
  });
  const exit = once(child, 'exit').then(([code]) => code as number);
  return {
    until: (text) =>
      new Promise<void>((resolve, reject) => {
        const look = () => {
          if (!screen.includes(text)) return;
          waiting.delete(look);
          resolve();
        };
        waiting.add(look);
        look();
        exit.then(() => {
          if (waiting.delete(look)) reject(new Error(`exited before showing ${JSON.stringify(text)}: ${screen}`));
        });
      }),
    type: (keys) => void child.stdin?.write(keys),
    exited: () => exit,
    screen: () => screen,
    opened: () => (existsSync(opened) ? readFileSync(opened, 'utf8') : ''),
    close() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
