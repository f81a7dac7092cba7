import type { Answer } from '../types.js';
import { checkRetain, checkTimeout } from './durations.js';
import type { OpenOptions, PendingEntry, PendingRegistry, ResolveResult, SetTimer, Settlement } from './types.js';

/**
 * Clock, timers and durations of the memory registry.
 *
 * @example
 * createMemoryRegistry({ timeoutMs: 5 * 60_000, retainMs: 60 * 60_000 });
 */
export interface MemoryRegistryOptions {
  /** The clock expiry is judged by. Default `Date.now`. */
  now?: () => number;
  /** Wakes waiters when a question expires. Default `setTimeout` (unref'd where possible). */
  setTimer?: SetTimer;
  /** Default time a question waits. Default 10 minutes. */
  timeoutMs?: number;
  /** How long a settled question is remembered, so a replayed answer reads `already-answered`. Default 10 minutes. */
  retainMs?: number;
}

type Final = Exclude<Settlement, { reason: 'unknown' }>;

interface Entry {
  id: string;
  owner: string;
  openedAt: number;
  expiresAt: number;
  data: unknown;
  settlement: Final | undefined;
  settledAt?: number;
  waiters: Waiter[];
  unschedule: () => void;
}

interface Waiter {
  wake: (settlement: Settlement) => void;
  /** Detaches the waiter's abort listener. */
  detach: () => void;
}

/** setTimeout fires at once for delays past 2^31-1 ms; longer waits re-arm. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** What an answer settles a question as. */
export function settlementOf(answer: Answer): Final {
  return answer.action === 'cancel' ? { reason: 'cancelled' } : { reason: 'answered', answer: structuredClone(answer) };
}

/**
 * The pending registry in one process's memory: right for a single server process; use a shared
 * store (`createRedisRegistry` from `@elicitkit/client/redis`) for several replicas.
 *
 * @example
 * const registry = createMemoryRegistry();
 * const id = await registry.open({ owner: chat.id });
 * publish(id); // the page later calls registry.resolve(id, chat.id, answer)
 * const settlement = await registry.wait(id); // { reason: 'answered', answer } | { reason: 'expired' } | …
 */
export function createMemoryRegistry(options: MemoryRegistryOptions = {}): PendingRegistry {
  const now = options.now ?? Date.now;
  const setTimer = options.setTimer ?? defaultTimer;
  const defaultTimeout = options.timeoutMs ?? 10 * 60_000;
  const retainMs = options.retainMs ?? 10 * 60_000;
  checkRetain(retainMs);
  const entries = new Map<string, Entry>();

  function settle(entry: Entry, settlement: Final): void {
    if (entry.settlement) return;
    entry.settlement = settlement;
    entry.settledAt = now();
    entry.unschedule();
    for (const waiter of entry.waiters.splice(0)) {
      waiter.detach();
      waiter.wake(structuredClone(settlement));
    }
  }

  function expireIfDue(entry: Entry): void {
    if (!entry.settlement && now() >= entry.expiresAt) settle(entry, { reason: 'expired' });
  }

  // The clock decides; a timer only wakes waiters, and re-arms if it fired before the clock agrees.
  function schedule(entry: Entry, ms: number): void {
    entry.unschedule = setTimer(
      () => {
        expireIfDue(entry);
        if (!entry.settlement) schedule(entry, Math.max(1, entry.expiresAt - now()));
      },
      Math.min(ms, MAX_TIMER_MS),
    );
  }

  // Settled questions are kept for a while only; swept whenever a new one opens.
  function sweep(): void {
    const at = now();
    for (const [id, entry] of entries) {
      expireIfDue(entry);
      if (entry.settledAt !== undefined && at - entry.settledAt >= retainMs) entries.delete(id);
    }
  }

  function view(entry: Entry): PendingEntry {
    expireIfDue(entry);
    return structuredClone({
      id: entry.id,
      owner: entry.owner,
      openedAt: entry.openedAt,
      expiresAt: entry.expiresAt,
      data: entry.data,
      settlement: entry.settlement,
    });
  }

  return {
    async open({ owner, timeoutMs = defaultTimeout, data = null }: OpenOptions) {
      checkTimeout(timeoutMs);
      sweep();
      const id = crypto.randomUUID();
      const at = now();
      const entry: Entry = {
        id,
        owner,
        openedAt: at,
        expiresAt: at + timeoutMs,
        data: structuredClone(data),
        settlement: undefined,
        waiters: [],
        unschedule: () => {},
      };
      entries.set(id, entry);
      schedule(entry, timeoutMs);
      return id;
    },

    wait(id, signal) {
      const entry = entries.get(id);
      if (!entry) return Promise.resolve({ reason: 'unknown' });
      expireIfDue(entry);
      if (!entry.settlement && signal?.aborted) settle(entry, { reason: 'withdrawn' });
      if (entry.settlement) return Promise.resolve(structuredClone(entry.settlement));
      return new Promise<Settlement>((wake) => {
        const onAbort = () => settle(entry, { reason: 'withdrawn' });
        signal?.addEventListener('abort', onAbort, { once: true });
        entry.waiters.push({ wake, detach: () => signal?.removeEventListener('abort', onAbort) });
      });
    },

    async resolve(id, owner, answer): Promise<ResolveResult> {
      const entry = entries.get(id);
      if (!entry) return 'unknown';
      // Ownership first, so a stranger learns nothing about the question's state.
      if (entry.owner !== owner) return 'forbidden';
      expireIfDue(entry);
      switch (entry.settlement?.reason) {
        case undefined:
          settle(entry, settlementOf(answer));
          return 'ok';
        case 'answered':
        case 'cancelled':
          return 'already-answered';
        case 'expired':
        case 'withdrawn':
          return 'expired';
        default:
          return unreachable(entry.settlement);
      }
    },

    async withdraw(id) {
      const entry = entries.get(id);
      if (entry) {
        expireIfDue(entry);
        settle(entry, { reason: 'withdrawn' });
      }
    },

    async get(id) {
      const entry = entries.get(id);
      return entry ? view(entry) : undefined;
    },

    async list(owner) {
      return [...entries.values()].filter((e) => e.owner === owner).map(view);
    },
  };
}

function defaultTimer(fn: () => void, ms: number): () => void {
  const handle = setTimeout(fn, ms);
  // A question nobody answers must not keep a process alive on its own.
  (handle as { unref?: () => void }).unref?.();
  return () => clearTimeout(handle);
}

function unreachable(value: never): never {
  throw new Error(`unexpected registry state ${JSON.stringify(value)}`);
}
