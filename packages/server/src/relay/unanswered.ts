import { FRAME_TTL_MS } from './frames.js';

/** The requests through Redis to one holder not answered yet. */
interface Waited {
  /** Relay → its session, and until when its frame can still be taken there (in about that order). */
  relays: Map<string, { session: string; until: number }>;
  /** Session → how many of `relays` are its. */
  sessions: Map<string, number>;
}

/** How many holders may be waited on before the expired are first swept (`record`). */
const SWEEP_HOLDERS = 64;

/**
 * Requests this replica sent through Redis that their holder has not answered yet (no head, no
 * `fail`), by holder. One may not have reached its holder yet, and a request sent after it on a
 * direct connection could overtake it (a cancel arriving before its call, which then runs) — even
 * once this replica gave up on it, since its `abort` follows it through Redis. While there are any
 * of a session, its next request to that holder goes through Redis too, behind them; another
 * session's takes the connection (each one sent behind others would be waited on in turn, and
 * with requests overlapping the connection would never be taken again). A request is kept until
 * answered, or until its frame can no longer be taken (twice its lifetime).
 */
export class Unanswered {
  private readonly holders = new Map<string, Waited>();
  /** How many holders waited on make the next sweep. */
  private sweepAt = SWEEP_HOLDERS;

  /** How many holders are waited on. */
  get size(): number {
    return this.holders.size;
  }

  /** The holders waited on. */
  waited(): string[] {
    return [...this.holders.keys()];
  }

  /** Records request `r` on `session`, sent to `holder` through Redis, as not answered yet. */
  record(holder: string, session: string, r: string): void {
    // Holders gone for good never answer, and are asked about no more: each time the holders
    // waited on double (from a few dozen), those whose requests all expired are forgotten.
    if (this.holders.size >= this.sweepAt) {
      for (const other of [...this.holders.keys()]) this.expire(other);
      this.sweepAt = Math.max(SWEEP_HOLDERS, 2 * this.holders.size);
    }
    let waited = this.holders.get(holder);
    if (!waited) {
      waited = { relays: new Map(), sessions: new Map() };
      this.holders.set(holder, waited);
    }
    if (waited.relays.has(r)) return;
    // Past twice its frame's lifetime, it can no longer be taken there (whatever the clocks say).
    waited.relays.set(r, { session, until: Date.now() + 2 * FRAME_TTL_MS });
    waited.sessions.set(session, (waited.sessions.get(session) ?? 0) + 1);
  }

  /** Request `r` to `holder` was answered, or never reached anyone: nothing to stay behind. */
  answered(holder: string, r: string): void {
    const waited = this.holders.get(holder);
    const relay = waited?.relays.get(r);
    if (waited && relay) this.forget(holder, waited, r, relay.session);
  }

  /** Whether a request on `session` to `holder` is not answered yet (the expired forgotten first). */
  awaits(holder: string, session: string): boolean {
    return this.expire(holder)?.sessions.has(session) === true;
  }

  /**
   * `holder`'s requests not answered yet, once those past their frame's lifetime are forgotten,
   * from the oldest (recorded in about the order they expire); undefined when none are left.
   */
  private expire(holder: string): Waited | undefined {
    const waited = this.holders.get(holder);
    if (!waited) return undefined;
    const now = Date.now();
    for (const [r, { session, until }] of waited.relays) {
      if (until >= now) return waited;
      this.forget(holder, waited, r, session);
    }
    return this.holders.get(holder);
  }

  private forget(holder: string, waited: Waited, r: string, session: string): void {
    waited.relays.delete(r);
    const left = (waited.sessions.get(session) ?? 1) - 1;
    if (left > 0) waited.sessions.set(session, left);
    else waited.sessions.delete(session);
    if (waited.relays.size === 0) this.holders.delete(holder);
  }
}
