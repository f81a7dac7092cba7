/**
 * Keys typed before a question is on screen never answer it. Between prompts a terminal is not
 * raw: it keeps what is typed — a command meant for the shell while the tool worked — and hands it
 * over once a prompt goes raw. Was: `git log⏎` typed while the server worked opened the link it
 * then asked about (the `o` of `log`), and `date⏎` declined a form unseen (its `d`). The CLI in a
 * real pseudo-terminal (util-linux `script`), a server that asks after a second's work, and an
 * `xdg-open` of the test's own on PATH that only records what it was given.
 */
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { callInTerminal, type TerminalSession } from '../test/terminal-session.js';

const SERVER = fileURLToPath(new URL('../test/typed-ahead-server.mjs', import.meta.url));

let session: TerminalSession | undefined;
afterEach(() => session?.close());

/** `elicitkit call <tool>` in a terminal: types `ahead` once the call has started, then `key` once `prompt` is on screen. */
async function typedAhead(tool: string, ahead: string, prompt: string, key: string) {
  session = callInTerminal([tool, '--revision', '2025-11-25', '--', process.execPath, SERVER]);
  await session.until('the server may ask you questions');
  session.type(ahead);
  await session.until(prompt);
  session.type(key);
  await session.exited();
  return {
    // What the server got, as its result says it (`answered <action>`).
    answered: /answered (\w+)/.exec(session.screen())?.[1],
    opened: session.opened(),
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
