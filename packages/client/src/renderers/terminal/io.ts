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

/**
 * Runs one clack prompt with a signal of its own that follows the question's: clack never removes
 * its abort listener, and a long form would otherwise pile listeners onto one signal.
 */
export async function prompted<T>(io: Io, call: (streams: Io) => Promise<T>): Promise<T> {
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
