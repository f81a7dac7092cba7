import type { ElicitationData } from '../lib/wire';

/** Question id → when this page first saw it, by the browser's clock. */
const firstSeen = new Map<string, number>();
/** Past this many questions the oldest are forgotten (a long chat's history holds more than it shows). */
const MAX_SEEN = 1_000;

/**
 * When question `q` ends by the browser's clock: the time the server gave it (`expiresAt` less
 * `publishedAt`, both the server's clock) counted from when this page first saw it. The two
 * clocks may differ by any amount (no NTP, a VM resumed): read against the browser's own, the
 * server's deadline showed a question it still waits for as expired, its Submit disabled — or
 * open when it no longer is. The first call for a question marks when it was seen (the chat's
 * line for it is drawn as it arrives).
 *
 * @example
 * <ElicitationForm expiresAt={localExpiresAt(question)} … />
 */
export function localExpiresAt(q: Pick<ElicitationData, 'id' | 'publishedAt' | 'expiresAt'>): number {
  let seen = firstSeen.get(q.id);
  if (seen === undefined) {
    seen = Date.now();
    firstSeen.set(q.id, seen);
    if (firstSeen.size > MAX_SEEN) firstSeen.delete(firstSeen.keys().next().value as string);
  }
  return seen + Math.max(0, q.expiresAt - q.publishedAt);
}
