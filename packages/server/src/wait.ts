/**
 * Polls `done` every `pollMs` until it says yes (true), `waitMs` passes or `signal` aborts (false).
 * For URL mode, where completion happens on a page the server serves, not on the wire.
 */
export async function pollUntil(
  done: () => boolean | Promise<boolean>,
  options: { waitMs: number; pollMs: number; now: () => number; signal: AbortSignal },
): Promise<boolean> {
  const { now, signal } = options;
  const deadline = now() + options.waitMs;
  for (;;) {
    if (await done()) return true;
    if (signal.aborted || now() >= deadline) return false;
    await sleep(Math.min(options.pollMs, Math.max(1, deadline - now())), signal);
  }
}

/** Resolves after `ms`, or at once when `signal` aborts. */
export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}
