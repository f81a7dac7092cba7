import type { Readable } from 'node:stream';

/** The last question each input stream was given, settled once that question is done with it. */
const lastOnInput = new WeakMap<Readable, Promise<void>>();

/**
 * Runs `ask` once every question given the same input stream before it is done: a key press goes
 * to every prompt reading the stream, so two questions drawn at once (two clients attached to one
 * terminal, or two terminal renderers on `process.stdin`) would both take it, and an `o` meant for
 * one server's link would open the other's. A question withdrawn while it waits is never drawn:
 * `withdrawn` is its answer.
 */
export async function inTurn<A>(input: Readable, signal: AbortSignal, withdrawn: A, ask: () => Promise<A>): Promise<A> {
  const before = lastOnInput.get(input) ?? Promise.resolve();
  let done: () => void = () => {};
  const mine = new Promise<void>((resolve) => {
    done = resolve;
  });
  lastOnInput.set(
    input,
    before.then(() => mine),
  );
  try {
    await untilOrAborted(before, signal);
    return signal.aborted ? withdrawn : await ask();
  } finally {
    done();
  }
}

/** Settles when `turn` does or `signal` aborts, whichever is first. */
function untilOrAborted(turn: Promise<void>, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise<void>((resolve) => {
    const stop = () => resolve();
    signal.addEventListener('abort', stop, { once: true });
    void turn.then(() => {
      signal.removeEventListener('abort', stop);
      resolve();
    });
  });
}
