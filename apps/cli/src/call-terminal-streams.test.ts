/**
 * `elicitkit call` in a terminal whose output is redirected: stdin is the person's terminal, stdout
 * a file (what a pipe or `> result.txt` reads, docs/cli.md). The questions must reach the person —
 * on the terminal — and the file must hold the result only, whatever else is redirected. Run under
 * `script`, which gives the built CLI a pseudo-terminal as a person's shell would; opsdesk's
 * deploy_service asks which environment first.
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { tempDataDir } from '../../opsdesk/test/harness.js';

const BIN = fileURLToPath(new URL('../bin/elicitkit.js', import.meta.url));
const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const QUESTION = 'Answer this question?';
const data = tempDataDir();
afterAll(() => data.remove());

const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
const read = (path: string) => (existsSync(path) ? readFileSync(path, 'utf8') : '');

interface Run {
  /** What the terminal showed. */
  screen: string;
  /** The CLI's exit code (`script -e` passes it on). */
  code: number | null;
  out: string;
  /** The redirected stderr, when it was. */
  err: string;
}

/**
 * Runs `call opsdesk deploy_service` in a terminal with `redirect` (a shell redirection of `out`
 * and `err`), and once the first question is drawn — on the terminal or in a file — hands `act`
 * the CLI's pid and a way to type.
 */
async function inTerminal(
  name: string,
  extra: string[],
  redirect: (files: { out: string; err: string }) => string,
  act: (cli: { pid: number; type: (keys: string) => void }) => void,
): Promise<Run> {
  const files = { out: join(data.dir, `${name}.out`), err: join(data.dir, `${name}.err`) };
  const pidFile = join(data.dir, `${name}.pid`);
  const cli = [process.execPath, BIN, 'call', 'opsdesk', 'deploy_service', 'service=order-service', ...extra]
    .concat(['--data', join(data.dir, 'opsdesk'), '--revision', '2025-11-25'])
    .map(quote)
    .join(' ');
  // exec: the pid the shell writes is the CLI's.
  const shell = `stty cols 100 rows 40; echo $$ > ${quote(pidFile)}; exec ${cli} ${redirect(files)}`;
  const child = spawn('script', ['-qfec', `sh -c ${quote(shell)}`, '/dev/null'], {
    cwd: ROOT,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let screen = '';
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  let ended = false;
  void exited.then(() => {
    ended = true;
  });
  await new Promise<void>((resolve) => {
    const look = () => {
      // A CLI that ended without asking: what it said is the failure to read, not a wait to the test's limit.
      if (ended) {
        clearInterval(timer);
        return resolve();
      }
      if (!screen.includes(QUESTION) && !read(files.out).includes(QUESTION) && !read(files.err).includes(QUESTION))
        return;
      clearInterval(timer);
      child.stdout.off('data', look);
      resolve();
    };
    // Polling too: a question drawn into a file makes no terminal output to wake on.
    const timer = setInterval(look, 50);
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      screen += chunk;
    });
    child.stdout.on('data', look);
  });
  if (!ended) act({ pid: Number(read(pidFile)), type: (keys) => child.stdin.write(keys) });
  const code = await exited;
  return { screen, code, out: read(files.out), err: read(files.err) };
}

// Cancel, so nothing is deployed whatever happened.
const cancel = ({ type }: { type: (keys: string) => void }) => type('c');

describe('elicitkit call in a terminal with its output redirected', () => {
  it('stdout to a file: asks on the terminal (stderr), and writes only the result to the file', async () => {
    const r = await inTerminal('stdout', [], (f) => `> ${quote(f.out)}`, cancel);
    expect(r.screen, 'the question was never shown on the terminal: the person answers blind').toContain(QUESTION);
    expect(r.out, 'the question was drawn into the result file').not.toContain(QUESTION);
    expect(r.out).toContain('The user cancelled deploy_service');
    expect(r.code).toBe(3);
  }, 60_000);

  it('stdout and stderr to files: asks on the terminal itself, and neither file holds the question', async () => {
    const r = await inTerminal('both', [], (f) => `> ${quote(f.out)} 2> ${quote(f.err)}`, cancel);
    expect(r.screen, 'the question was never shown on the terminal').toContain(QUESTION);
    expect(r.out).not.toContain(QUESTION);
    expect(r.err, 'the question was drawn into the stderr file').not.toContain(QUESTION);
    expect(r.err).toContain('Calling deploy_service');
    expect(r.out).toContain('The user cancelled deploy_service');
  }, 60_000);

  it('--json to a file: the file is the JSON result alone', async () => {
    const r = await inTerminal('json', ['--json'], (f) => `> ${quote(f.out)}`, cancel);
    expect(r.screen).toContain(QUESTION);
    expect(JSON.parse(r.out).result.structuredContent.status).toBe('cancelled');
  }, 60_000);

  it('SIGTERM while a question is on screen: the question stops, the call is cancelled, exit 143', async () => {
    const r = await inTerminal(
      'sigterm',
      [],
      (f) => `> ${quote(f.out)}`,
      ({ pid }) => process.kill(pid, 'SIGTERM'),
    );
    expect(r.code).toBe(143);
    expect(r.screen).toContain('stopped by SIGTERM');
    expect(r.screen).toContain('Stopped: the question was withdrawn');
    expect(r.out).toBe('');
  }, 60_000);

  it("--timeout-ms counts the server's time, not the person's: a question open past it still counts", async () => {
    // The person takes longer than the whole timeout to answer; the call goes on, as they answered.
    // The server's own time before it asks stays far inside the timeout on a loaded machine.
    const r = await inTerminal(
      'slow-person',
      ['--timeout-ms', '2000'],
      (f) => `> ${quote(f.out)}`,
      ({ type }) => {
        setTimeout(() => type('c'), 3_000);
      },
    );
    expect(r.screen).not.toContain('worked on the call for more than');
    expect(r.out).toContain('The user cancelled deploy_service');
    expect(r.code).toBe(3);
  }, 60_000);
});
