'use client';
import { useEffect, useState } from 'react';

/**
 * What is left of a question's time: `msLeft` (`undefined` when there is no deadline) and
 * `expired`.
 *
 * @example
 * const { msLeft, expired } = useTimeLeft(expiresAt);
 */
export interface TimeLeft {
  msLeft: number | undefined;
  expired: boolean;
}

const measure = (expiresAt: number | undefined): TimeLeft => {
  if (expiresAt === undefined) return { msLeft: undefined, expired: false };
  const msLeft = Math.max(0, expiresAt - Date.now());
  return { msLeft, expired: msLeft === 0 };
};

/**
 * Counts down to `expiresAt` (epoch milliseconds), re-rendering as each whole second passes and
 * stopping at zero. The server decides expiry (it answers cancel); this only shows it.
 *
 * @example
 * const { msLeft, expired } = useTimeLeft(data.expiresAt);
 * return expired ? <p>Expired</p> : <p>{Math.ceil((msLeft ?? 0) / 1000)} s left</p>;
 */
export function useTimeLeft(expiresAt: number | undefined): TimeLeft {
  const [left, setLeft] = useState(() => measure(expiresAt));
  useEffect(() => {
    if (expiresAt === undefined) {
      setLeft(measure(undefined));
      return;
    }
    let timer: ReturnType<typeof setTimeout> | undefined;
    const tick = () => {
      const now = measure(expiresAt);
      setLeft(now);
      // Wake at the next whole-second boundary, so the clock never skips or lingers.
      if (now.msLeft !== undefined && now.msLeft > 0) timer = setTimeout(tick, now.msLeft % 1000 || 1000);
    };
    tick();
    return () => clearTimeout(timer);
  }, [expiresAt]);
  return left;
}
