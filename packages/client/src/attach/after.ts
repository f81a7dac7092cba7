/** The longest delay one `setTimeout` holds; a longer one fires at once (Node: TimeoutOverflowWarning). */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * Calls `fn` once `ms` milliseconds have passed, however many: a delay longer than one timer
 * holds is waited for in turns. Returns what cancels it.
 */
export function after(ms: number, fn: () => void): () => void {
  let handle: ReturnType<typeof setTimeout> | undefined;
  const arm = (left: number) => {
    handle = left > MAX_TIMER_MS ? setTimeout(() => arm(left - MAX_TIMER_MS), MAX_TIMER_MS) : setTimeout(fn, left);
  };
  arm(ms);
  return () => clearTimeout(handle);
}
