/**
 * How long a shared store's operation may wait for its server. A client told to wait for ever
 * (ioredis with `maxRetriesPerRequest: null`, as BullMQ wants; a `pg` pool with no
 * `connectionTimeoutMillis`) holds a command while its server is down; the stores give up on it
 * after this many ms, so a call ends as it would with the server unreachable.
 */
export const STORE_TIMEOUT_MS = 5_000;

/** A store's `timeoutMs` option: a whole number of ms, at least 1 (else a `RangeError`). */
export function storeTimeout(value: number | undefined): number {
  if (value === undefined) return STORE_TIMEOUT_MS;
  if (Number.isSafeInteger(value) && value >= 1) return value;
  throw new RangeError(`timeoutMs must be a whole number from 1 to ${Number.MAX_SAFE_INTEGER}, not ${String(value)}`);
}

/** The server did not answer within the store's `timeoutMs`. */
export class StoreTimeoutError extends Error {
  constructor(ms: number) {
    super(`no answer within ${ms} ms (timeoutMs)`);
    this.name = 'StoreTimeoutError';
  }
}

/**
 * `promise`, or a `StoreTimeoutError` once `ms` have passed without it settling. The work goes on
 * unheard (a client's queued command is still sent); `late`, when given, gets its value if it
 * comes after all, to undo what it did. An answer already here when the time is up counts: timers
 * run before the event loop reads its sockets, so one that fired late — this process busy for
 * longer than `ms` (a long GC, sync work) while the server answered — is judged only after what
 * came meanwhile is read.
 */
export function bounded<T>(promise: Promise<T>, ms: number, late?: (value: T) => void): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    let settled = false;
    let timedOut = false;
    const timer = setTimeout(() => {
      setImmediate(() => {
        if (settled) return;
        timedOut = true;
        reject(new StoreTimeoutError(ms));
      });
    }, ms);
    promise.then(
      (value) => {
        settled = true;
        clearTimeout(timer);
        if (!timedOut) resolve(value);
        else late?.(value);
      },
      (error: unknown) => {
        settled = true;
        clearTimeout(timer);
        reject(error);
      },
    );
  });
}
