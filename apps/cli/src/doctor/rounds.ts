import { shownOf } from './kept.js';
import type { Ask } from './records.js';

/**
 * Whether `later` came after doctor's answer to `earlier` had gone out, so it can have followed
 * from that answer. A question that came before — two asked at once, pushed one message each by a
 * 2025 server or by the SDK's legacy shim for a 2026-07-28 round — was asked without it.
 *
 * @example
 * const reAsked = call.asks.some((a) => cameAfter(a, declined)); // EK12
 */
export function cameAfter(later: Ask, earlier: Ask): boolean {
  return earlier.sent !== undefined && later.after >= earlier.sent;
}

/**
 * The 2026-07-28 questions that came back under a key doctor had answered, in a later round, and
 * not as they were: EK18's candidates, each a question whose round `resendChanged` sends again.
 */
export function changedAfterAnswer(asks: readonly Ask[]): Ask[] {
  const last = new Map<string, Ask>();
  const changed: Ask[] = [];
  for (const ask of asks) {
    if (ask.via !== 'embedded' || ask.key === undefined) continue;
    const before = last.get(ask.key);
    last.set(ask.key, ask);
    if (before && cameAfter(ask, before) && !sameQuestion(before, ask)) changed.push(ask);
  }
  return changed;
}

/** Whether two questions read the same to the person: message, form and URL, at any depth (stand-ins by what they stood for). */
export function sameQuestion(a: Pick<Ask, 'params' | 'cut'>, b: Pick<Ask, 'params' | 'cut'>): boolean {
  return shownOf(a) === shownOf(b);
}
