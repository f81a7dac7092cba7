import { after } from './after.js';

/** Why a question stopped before the person answered. */
export type StopReason = 'timeout' | 'aborted';

export const STOPPED: unique symbol = Symbol('elicitkit.stopped');
export type Stopped = typeof STOPPED;

export interface Deadline {
  /** Aborts when the server withdraws the question or the human-length timeout passes. */
  signal: AbortSignal;
  /**
   * Starts the timeout, for a deadline made `{ from: 'start' }`: when the question is shown, not
   * when it arrived to wait its turn. Again, it does nothing (the time runs on).
   */
  start(): void;
  reason(): StopReason | undefined;
  dispose(): void;
}

/**
 * The request's own signal plus the client's timeout, as one signal a renderer can watch. The
 * timeout runs from now, or with `{ from: 'start' }` from `start()` (a question waiting its turn
 * behind another is given its whole time once shown); the request's signal stops it either way.
 */
export function deadline(parent: AbortSignal, timeoutMs: number, options: { from?: 'now' | 'start' } = {}): Deadline {
  const controller = new AbortController();
  let reason: StopReason | undefined;
  const stop = (why: StopReason) => {
    if (reason !== undefined) return;
    reason = why;
    controller.abort(why === 'timeout' ? new Error(`No answer within ${timeoutMs} ms.`) : parent.reason);
  };
  const onAbort = () => stop('aborted');
  if (parent.aborted) onAbort();
  else parent.addEventListener('abort', onAbort, { once: true });
  // A policy may give a person longer than one timer holds (30 days): that is waited for too.
  let cancel: (() => void) | undefined;
  let disposed = false;
  const start = () => {
    if (cancel === undefined && reason === undefined && !disposed) cancel = after(timeoutMs, () => stop('timeout'));
  };
  if (options.from !== 'start') start();
  return {
    signal: controller.signal,
    start,
    reason: () => reason,
    dispose() {
      cancel?.();
      disposed = true;
      parent.removeEventListener('abort', onAbort);
    },
  };
}

/** Settles with the promise, or with STOPPED as soon as the signal aborts (the renderer may lag behind). */
export function race<T>(promise: Promise<T>, signal: AbortSignal): Promise<T | Stopped> {
  if (signal.aborted) {
    promise.catch(() => {});
    return Promise.resolve(STOPPED);
  }
  return new Promise<T | Stopped>((resolve, reject) => {
    const onAbort = () => resolve(STOPPED);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}

/**
 * Runs renderer calls one at a time: a terminal can show one question at once, and 2025 servers
 * may send several concurrently (parallel tool calls). A question withdrawn while waiting its turn
 * is never drawn.
 */
export function createSerial(): <T>(signal: AbortSignal, task: () => Promise<T>) => Promise<T | Stopped> {
  let tail: Promise<unknown> = Promise.resolve();
  return (signal, task) => {
    const turn = tail.then(() => (signal.aborted ? STOPPED : race(task(), signal)));
    tail = turn.catch(() => {});
    return race(turn, signal);
  };
}
