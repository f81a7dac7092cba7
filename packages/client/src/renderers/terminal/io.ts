import type { Readable, Writable } from 'node:stream';
import { isCancel } from '@clack/core';
import { type Choice, pressKey } from './controls.js';

/** The streams every clack call of one renderer uses, plus the question's abort signal. */
export interface Io {
  input: Readable;
  output: Writable;
  signal: AbortSignal;
}

export const CANCEL: unique symbol = Symbol('elicitkit.terminal.cancel');
export type Cancel = typeof CANCEL;

/** How long input must have been quiet before a prompt takes keys (see `dropTypedAhead`). */
const QUIET_MS = 30;
/** At most this many quiet windows are waited for: a stream of input that never stops is cut there. */
const MAX_WINDOWS = 20;

/**
 * Drops what a terminal holds typed before the prompt was drawn. Between prompts the terminal is
 * not raw: it keeps what is typed (a command meant for the shell, a key pressed while the server
 * worked, the rest of a paste whose line break ended the previous field) and hands it over once a
 * prompt goes raw — where one `o` opened a link nobody had seen, a `d` declined a form unseen, a
 * `y` ticked a confirmation. Raw, with a listener of its own, it reads all that is there (one turn
 * of the event loop polls the terminal), then waits until input has been quiet for 30 ms (the rest
 * of a paste still arriving); no person answers a prompt within 30 ms of its drawing. Only a
 * terminal: a stream handed in (a test's, a pipe) is read as it is given.
 */
async function dropTypedAhead(input: Readable): Promise<void> {
  const tty = input as Readable & { isTTY?: boolean; isRaw?: boolean; setRawMode?: (raw: boolean) => unknown };
  if (tty.isTTY !== true || typeof tty.setRawMode !== 'function') return;
  const wasRaw = tty.isRaw === true;
  const wasFlowing = input.readableFlowing === true;
  let heard = false;
  const drop = () => {
    heard = true;
  };
  tty.setRawMode(true);
  input.on('data', drop);
  input.resume();
  try {
    await new Promise((resolve) => setImmediate(resolve));
    for (let window = 0; window < MAX_WINDOWS; window++) {
      heard = false;
      await new Promise((resolve) => setTimeout(resolve, QUIET_MS));
      if (!heard) break;
    }
  } finally {
    input.off('data', drop);
    if (!wasFlowing) input.pause();
    if (!wasRaw) tty.setRawMode(false);
  }
}

/**
 * Runs one clack prompt with a signal of its own that follows the question's: clack never removes
 * its abort listener, and a long form would otherwise pile listeners onto one signal. What a
 * terminal held typed before it is dropped first (`dropTypedAhead`).
 */
export async function prompted<T>(io: Io, call: (streams: Io) => Promise<T>): Promise<T> {
  await dropTypedAhead(io.input);
  const controller = new AbortController();
  const follow = () => controller.abort(io.signal.reason);
  if (io.signal.aborted) follow();
  else io.signal.addEventListener('abort', follow, { once: true });
  try {
    return await call({ input: io.input, output: io.output, signal: controller.signal });
  } finally {
    io.signal.removeEventListener('abort', follow);
  }
}

export interface KeyChoice<V extends string> {
  /** The single key that picks it. */
  key: string;
  value: V;
  label: string;
  hint?: string;
}

/**
 * A one-key choice. Enter picks the first option, so the first is always the safe or expected
 * one. Esc and Ctrl+C are CANCEL, never a value.
 */
export async function chooseKey<V extends string>(
  io: Io,
  message: string,
  choices: readonly [KeyChoice<V>, ...KeyChoice<V>[]],
): Promise<V | Cancel> {
  const options: Choice<string>[] = choices.map(({ key, label, hint }) => ({
    value: key,
    label,
    ...(hint ? { hint } : {}),
  }));
  const picked = await prompted(io, (streams) => pressKey({ message, options, ...streams }));
  if (isCancel(picked)) return CANCEL;
  // clack's SelectKeyPrompt submits `undefined` on Enter; pressKey then shows the first option.
  return (choices.find((c) => c.key === picked) ?? choices[0]).value;
}
