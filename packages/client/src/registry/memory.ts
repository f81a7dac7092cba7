import { RegistryError } from '../errors.js';
import type { Answer } from '../types.js';
import type { OpenOptions, PendingRegistry, ResolveResult, SetTimer } from './types.js';

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

interface Entry {
  owner: string;
  expiresAt: number;
  state: 'pending' | 'answered' | 'expired';
  answer?: Answer;
  settledAt?: number;
  waiters: Waiter[];
  unschedule: () => void;
}

interface Waiter {
  wake: (answer: Answer) => void;
  /** Detaches the waiter's abort listener. */
  detach: () => void;
}

const CANCEL: Answer = { action: 'cancel' };
/** setTimeout fires at once for delays past 2^31-1 ms; longer waits re-arm. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * The pending registry in one process's memory: right for a single server process; use a shared
 * store for several replicas.
 *
 * @example
 * const registry = createMemoryRegistry();
 * const id = await registry.open({ owner: chat.id });
 * publish(id); // the page later calls registry.resolve(id, chat.id, answer)
 * const answer = await registry.wait(id);
 */
export function createMemoryRegistry(options: MemoryRegistryOptions = {}): PendingRegistry {
  const now = options.now ?? Date.now;
  const setTimer = options.setTimer ?? defaultTimer;
  const defaultTimeout = options.timeoutMs ?? 10 * 60_000;
  const retainMs = options.retainMs ?? 10 * 60_000;
  const entries = new Map<string, Entry>();

  function settle(entry: Entry, state: 'answered' | 'expired', answer: Answer): void {
    if (entry.state !== 'pending') return;
    entry.state = state;
    entry.settledAt = now();
    if (state === 'answered') entry.answer = answer;
    entry.unschedule();
    for (const waiter of entry.waiters.splice(0)) {
      waiter.detach();
      waiter.wake(structuredClone(answer));
    }
  }

  function expireIfDue(entry: Entry): void {
    if (entry.state === 'pending' && now() >= entry.expiresAt) settle(entry, 'expired', CANCEL);
  }

  // The clock decides; a timer only wakes waiters, and re-arms if it fired before the clock agrees.
  function schedule(entry: Entry, ms: number): void {
    entry.unschedule = setTimer(
      () => {
        expireIfDue(entry);
        if (entry.state === 'pending') schedule(entry, Math.max(1, entry.expiresAt - now()));
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

  return {
    async open({ owner, timeoutMs = defaultTimeout }: OpenOptions) {
      if (!(Number.isFinite(timeoutMs) && timeoutMs > 0)) {
        throw new RegistryError('BAD_TIMEOUT', `A question needs a positive timeout, not ${timeoutMs} ms.`);
      }
      sweep();
      const id = crypto.randomUUID();
      const entry: Entry = { owner, expiresAt: now() + timeoutMs, state: 'pending', waiters: [], unschedule: () => {} };
      entries.set(id, entry);
      schedule(entry, timeoutMs);
      return id;
    },

    wait(id, signal) {
      const entry = entries.get(id);
      if (!entry) return Promise.resolve(CANCEL);
      expireIfDue(entry);
      if (entry.state !== 'pending') return Promise.resolve(structuredClone(entry.answer ?? CANCEL));
      if (signal?.aborted) {
        settle(entry, 'expired', CANCEL);
        return Promise.resolve(CANCEL);
      }
      return new Promise<Answer>((wake) => {
        const onAbort = () => settle(entry, 'expired', CANCEL);
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
      switch (entry.state) {
        case 'answered':
          return 'already-answered';
        case 'expired':
          return 'expired';
        case 'pending':
          settle(entry, 'answered', structuredClone(answer));
          return 'ok';
        default:
          return unreachable(entry.state);
      }
    },

    async withdraw(id) {
      const entry = entries.get(id);
      if (entry?.state === 'pending') settle(entry, 'expired', CANCEL);
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
  throw new Error(`unexpected registry state ${String(value)}`);
}
