/**
 * Keys typed before a question is on screen never answer it. Between prompts a terminal is not
 * raw: it keeps what is typed — a command meant for the shell while the tool worked — and hands it
 * over once a prompt goes raw. Was: `git log⏎` typed while the server worked opened the link it
 * then asked about (the `o` of `log`), and `date⏎` declined a form unseen (its `d`). The CLI in a
 * real pseudo-terminal (util-linux `script`), a server that asks after a second's work, and an
 * `xdg-open` of the test's own on PATH that only records what it was given.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { CLI, nodeArgs } from '../../opsdesk/test/harness.js';

const SERVER = fileURLToPath(new URL('../test/typed-ahead-server.mjs', import.meta.url));

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
});

/** `elicitkit call <tool>` in a terminal: types `ahead` once the call has started, then `key` once `prompt` is on screen. */
async function typedAhead(tool: string, ahead: string, prompt: string, key: string) {
  const dir = mkdtempSync(join(tmpdir(), 'ek-typed-ahead-'));
  const bin = join(dir, 'bin');
  const opened = join(dir, 'opened');
  mkdirSync(bin);
  writeFileSync(join(bin, 'xdg-open'), `#!/bin/sh\necho "$1" >> '${opened}'\n`);
  chmodSync(join(bin, 'xdg-open'), 0o755);
  const args = ['call', tool, '--revision', '2025-11-25', '--', process.execPath, SERVER];
  const command = [process.execPath, ...nodeArgs(CLI, ...args)].map((a) => `'${a.replaceAll("'", "'\\''")}'`);
  // A terminal of a usual size (script's has none: every character its own line).
  const child: ChildProcess = spawn('script', ['-qec', `stty cols 120 rows 40; ${command.join(' ')}`, '/dev/null'], {
    stdio: ['pipe', 'pipe', 'pipe'],
    env: { ...process.env, PATH: `${bin}:${process.env.PATH}` },
  });
  cleanups.push(() => {
    child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  });
  let screen = '';
  const until = (text: string) =>
    new Promise<void>((resolve, reject) => {
      const look = () => {
        if (screen.includes(text)) {
          child.stdout?.off('data', look);
          resolve();
        }
      };
      child.stdout?.on('data', (chunk: Buffer) => {
        screen += chunk.toString();
        look();
      });
      child.once('exit', (code) => reject(new Error(`exited (${code}) before showing ${text}: ${screen}`)));
      look();
    });
  await until('the server may ask you questions');
  child.stdin?.write(ahead);
  await until(prompt);
  child.stdin?.write(key);
  await once(child, 'exit');
  return {
    // What the server got, as its result says it (`answered <action>`).
    answered: /answered (\w+)/.exec(screen)?.[1],
    opened: existsSync(opened) ? readFileSync(opened, 'utf8') : '',
  };
}

describe.skipIf(process.platform !== 'linux')('keys typed while the server works', () => {
  it('`git log⏎` typed ahead does not open the link (its `o`): the key pressed once it is shown answers', async () => {
    const r = await typedAhead('link', 'git log\r', 'Open this link in your browser?', 'd');
    expect(r.answered).toBe('decline');
    expect(r.opened).toBe('');
  }, 60_000);

  it('`date⏎` typed ahead does not decline the form (its `d`): the person’s cancel is what is sent', async () => {
    const r = await typedAhead('confirm', 'date\r', 'Answer this question?', 'c');
    expect(r.answered).toBe('cancel');
  }, 60_000);
});
