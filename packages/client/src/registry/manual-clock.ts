import type { SetTimer } from './types.js';

/**
 * A clock the test moves by hand, for registries that take `now` and `setTimer`.
 *
 * @example
 * const clock = manualClock();
 * const registry = createMemoryRegistry({ now: clock.now, setTimer: clock.setTimer });
 * clock.advance(60_000); // fires the timers that fall due
 */
export interface ManualClock {
  now: () => number;
  setTimer: SetTimer;
  /** Moves time forward, firing every timer that falls due (in order). */
  advance(ms: number): void;
  /** Moves time forward without firing timers: a store must not rely on a timer having run. */
  jump(ms: number): void;
}

/**
 * Makes a `ManualClock` starting at `start` (epoch ms).
 *
 * @example
 * const clock = manualClock();
 */
export function manualClock(start = 1_000_000): ManualClock {
  let at = start;
  let timers: { due: number; fn: () => void }[] = [];
  return {
    now: () => at,
    setTimer(fn, ms) {
      const timer = { due: at + ms, fn };
      timers.push(timer);
      return () => {
        timers = timers.filter((t) => t !== timer);
      };
    },
    advance(ms) {
      const end = at + ms;
      for (;;) {
        const next = timers.filter((t) => t.due <= end).sort((a, b) => a.due - b.due)[0];
        if (!next) break;
        timers = timers.filter((t) => t !== next);
        at = next.due;
        next.fn();
      }
      at = end;
    },
    jump(ms) {
      at += ms;
    },
  };
}
