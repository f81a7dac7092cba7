/** A deadline on the server's time on a call (`serverDeadline`). */
export interface ServerDeadline {
  /** Aborts, reason `'timeout'`, once the server has had its time. */
  signal: AbortSignal;
  /** Question `id` of the call is open: the deadline stands still until every one is answered. */
  asking(id: string | number): void;
  /** Question `id` settled (answered, refused, withdrawn): the deadline runs again once none is open. */
  answered(id: string | number): void;
  /** The call ended: nothing runs or aborts any more. */
  stop(): void;
}

/**
 * The server's time on a call, not the person's: a deadline that stands still while a question
 * of the call is open (several at once included) and runs again, with what was left, once the
 * last one settles. A timeout counted from the call's start (the SDK's `timeout`) runs on while
 * the person reads and answers: a call asking twice, the person taking most of each question's
 * time, was timed out after its first answer was taken — the server may have acted on it. Pass
 * `signal` to the request (with the SDK's own timeout out of the way) and tell it each question.
 *
 * @example
 * const deadline = serverDeadline(15 * 60_000);
 * attachment.on((e) => e.type === 'request' ? deadline.asking(e.id) : e.type === 'answered' && deadline.answered(e.id));
 * try { await client.callTool(params, undefined, { timeout: 2 ** 31 - 1, signal: deadline.signal }); } finally { deadline.stop(); }
 */
export function serverDeadline(ms: number): ServerDeadline {
  const expired = new AbortController();
  const open = new Set<string | number>();
  let left = ms;
  let since = performance.now();
  let timer: ReturnType<typeof setTimeout> | undefined;
  let over = false;
  const run = () => {
    since = performance.now();
    timer = setTimeout(() => expired.abort('timeout'), Math.max(0, left));
  };
  run();
  return {
    signal: expired.signal,
    asking(id) {
      if (open.size === 0 && timer !== undefined) {
        clearTimeout(timer);
        timer = undefined;
        left -= performance.now() - since;
      }
      open.add(id);
    },
    answered(id) {
      // A question withdrawn after the call ended (the screen closing) starts nothing again.
      if (!open.delete(id) || open.size > 0 || over || expired.signal.aborted) return;
      run();
    },
    stop() {
      over = true;
      clearTimeout(timer);
      timer = undefined;
    },
  };
}
