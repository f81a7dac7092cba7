import { Redis } from 'ioredis';
import { RegistryError } from '../errors.js';
import { checkRetain, checkTimeout } from './durations.js';
import { RedisQuestions } from './redis-questions.js';
import type { PendingEntry, PendingRegistry, SetTimer, Settlement } from './types.js';

/**
 * Where the Redis registry keeps its questions, and its clock and durations.
 *
 * @example
 * createRedisRegistry({ redis: new Redis(process.env.REDIS_URL), prefix: 'myapp:questions:' });
 */
export interface RedisRegistryOptions {
  /** An ioredis client (the registry duplicates it for its subscription), or a `redis://` URL. */
  redis: Redis | string;
  /** Prefix of every key and of the channel. Default `elicitkit:registry:`. */
  prefix?: string;
  /** The clock deadlines are judged by. Default `Date.now`; replicas need clocks that agree. */
  now?: () => number;
  /** Wakes this process's waiters when a question falls due. Default `setTimeout` (unref'd). */
  setTimer?: SetTimer;
  /** Default time a question waits. Default 10 minutes. */
  timeoutMs?: number;
  /**
   * How long a settled question is remembered: at least `MIN_RETAIN_MS` (1 s), for the waiter on
   * another replica to read the settlement it is woken for. Default 10 minutes.
   */
  retainMs?: number;
  /**
   * How long a registry that stopped (its process killed, its host gone) is still taken for
   * waiting for the questions it opened. Each registry keeps an alive mark in Redis for this long,
   * renewed every third of it while it is open, and each question names its opener: once the
   * opener's mark has lapsed, the question is settled `withdrawn` — an answer to it is refused
   * (`resolve` answers 'expired'), never taken ('ok') for a question nobody waits for. The
   * replica that opens a question is the one that waits for it (`createRegistryRenderer` does
   * both). Whole milliseconds from 1,000; default 15 s.
   */
  waiterLeaseMs?: number;
}

/** A pending registry in Redis, and the connections it holds. */
export interface RedisRegistry extends PendingRegistry {
  /** Stops listening and closes the connections it opened (not a client it was given). */
  close(): Promise<void>;
}

/**
 * The shortest `retainMs`: a waiter is woken by a publish and then reads the settlement from the
 * question's hash; one forgotten at once (retainMs 0) read as unknown, and the person's answer,
 * taken as 'ok', reached the asking side as cancel.
 */
const MIN_RETAIN_MS = 1_000;

/** The shortest `waiterLeaseMs`: renewed every third of it, a mark shorter lapses under a busy event loop. */
const MIN_WAITER_LEASE_MS = 1_000;

/** setTimeout fires at once for delays past 2^31-1 ms; longer waits re-arm. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * The pending registry in Redis, for several replicas of a host: a question opened on one
 * replica is answered through any other — `resolve` settles it atomically (a Lua script), and a
 * publish wakes the waiter wherever it is. Passes the same behaviour suite as the memory
 * registry (`registrySuite` from `@elicitkit/client/testing`). Needs `ioredis` (an optional peer).
 *
 * @example
 * import { Redis } from 'ioredis';
 * import { createRedisRegistry } from '@elicitkit/client/redis';
 * const registry = createRedisRegistry({ redis: new Redis(process.env.REDIS_URL as string) });
 * const settlement = await registry.wait(await registry.open({ owner: chat.id }));
 */
export function createRedisRegistry(options: RedisRegistryOptions): RedisRegistry {
  // Before any connection: a duration Redis cannot take fails here, not halfway through a script.
  const retainMs = options.retainMs ?? 10 * 60_000;
  checkRetain(retainMs, MIN_RETAIN_MS, 'a waiter on another replica reads the settlement after it is published');
  const leaseMs = options.waiterLeaseMs ?? 15_000;
  if (!(Number.isSafeInteger(leaseMs) && leaseMs >= MIN_WAITER_LEASE_MS))
    throw new RegistryError(
      'BAD_TIMEOUT',
      `waiterLeaseMs must be a whole number of milliseconds from ${MIN_WAITER_LEASE_MS}, not ${leaseMs}.`,
    );
  const own = typeof options.redis === 'string';
  const redis = typeof options.redis === 'string' ? new Redis(options.redis) : options.redis;
  // It resubscribes itself (`listen`): ioredis's own resubscription is a promise nobody can handle.
  const subscriber = redis.duplicate({ autoResubscribe: false });
  const now = options.now ?? Date.now;
  const defaultTimeout = options.timeoutMs ?? 10 * 60_000;
  const questions = new RedisQuestions(redis, options.prefix ?? 'elicitkit:registry:', retainMs, now, leaseMs);
  // Renewed from the first question opened until close; unref'd (an idle host is not held open).
  // A renewal Redis misses is made up by the next (a third of the lease on).
  let beating: ReturnType<typeof setInterval> | undefined;
  let closed = false;
  const waiters = new Waiters();
  const waiting: Waiting = { questions, waiters, now, setTimer: options.setTimer ?? defaultTimer };
  // Every wait listens before it looks, so waits hold until the subscription is in place.
  const subscription = listen(subscriber, questions.channel, waiters, (id) => void check(waiting, id).catch(() => {}));

  return {
    async open({ owner, timeoutMs = defaultTimeout, data = null }) {
      checkTimeout(timeoutMs);
      if (!beating && !closed) {
        beating = setInterval(() => void questions.renew().catch(() => undefined), Math.floor(leaseMs / 3));
        beating.unref?.();
      }
      return questions.open(owner, timeoutMs, data);
    },
    async wait(id, signal) {
      await subscription();
      return waitFor(waiting, id, signal);
    },
    resolve: (id, owner, answer) => questions.resolve(id, owner, answer),
    async withdraw(id) {
      await questions.settle(id, 'withdraw');
    },
    get: (id) => questions.get(id),
    list: (owner) => questions.list(owner),
    async close() {
      closed = true;
      clearInterval(beating);
      for (const id of waiters.ids()) waiters.wake(id, { reason: 'unknown' });
      subscriber.disconnect();
      // Nobody here waits any more: answers to the questions opened here are refused from now on.
      await questions.retire().catch(() => undefined);
      if (own) await redis.quit();
    },
  };
}

/** This process's waiters, by question id. */
class Waiters {
  private readonly byId = new Map<string, Set<(settlement: Settlement) => void>>();

  /** The question's settlement, once `wake` hands it over. */
  add(id: string): Promise<Settlement> {
    return new Promise((resolve) => {
      const set = this.byId.get(id) ?? new Set();
      this.byId.set(id, set);
      set.add(resolve);
    });
  }

  has(id: string): boolean {
    return this.byId.has(id);
  }

  ids(): string[] {
    return [...this.byId.keys()];
  }

  /** Wakes the question's waiters, each with its own copy of the settlement, and forgets them. */
  wake(id: string, settlement: Settlement): void {
    const set = this.byId.get(id);
    if (!set) return;
    this.byId.delete(id);
    for (const fn of set) fn(structuredClone(settlement));
  }
}

/** What this process's waits share: the questions, the waiters here, and the clock and timer that wake them. */
interface Waiting {
  questions: RedisQuestions;
  waiters: Waiters;
  now: () => number;
  setTimer: SetTimer;
}

/** Waits for the question to settle, on this replica or any other; an abort withdraws it. */
async function waitFor(waiting: Waiting, id: string, signal?: AbortSignal): Promise<Settlement> {
  // Listen first, then look: a settlement published in between is not missed.
  const settled = waiting.waiters.add(id);
  // Redis down: not an unhandled rejection; the subscriber's reconnect looks at every waited question again.
  const onAbort = () =>
    void waiting.questions
      .settle(id, 'withdraw')
      .then(() => check(waiting, id))
      .catch(() => {});
  const entry = await check(waiting, id);
  if (entry && !entry.settlement) {
    if (signal?.aborted) onAbort();
    else {
      signal?.addEventListener('abort', onAbort, { once: true });
      schedule(waiting, id, entry.expiresAt);
    }
  }
  return settled.finally(() => signal?.removeEventListener('abort', onAbort));
}

/** Settles the question if it is due, then wakes this process's waiters if it has settled. */
async function check({ questions, waiters }: Waiting, id: string): Promise<PendingEntry | undefined> {
  if ((await questions.settle(id, 'expire')) === 'unknown') {
    waiters.wake(id, { reason: 'unknown' });
    return undefined;
  }
  const entry = await questions.read(id);
  if (!entry) waiters.wake(id, { reason: 'unknown' });
  else if (entry.settlement) waiters.wake(id, entry.settlement);
  return entry;
}

// The clock decides; a timer only wakes this process's waiters, and re-arms if it was early.
function schedule(waiting: Waiting, id: string, expiresAt: number): void {
  const recheck = () =>
    void check(waiting, id)
      .then((entry) => {
        if (entry && !entry.settlement && waiting.waiters.has(id)) schedule(waiting, id, entry.expiresAt);
      })
      .catch(() => {}); // Redis down: its reconnect looks again (`listen`)
  const delay = expiresAt - waiting.now();
  // Due while we were reading it (the clock moved during the round trip): look again now.
  if (delay <= 0) recheck();
  else waiting.setTimer(recheck, Math.min(delay, MAX_TIMER_MS));
}

/**
 * Subscribes to the settlements channel. A message is only a hint that a question settled: the
 * settlement is read back from its hash, which the settling script wrote atomically. Anyone who
 * can PUBLISH could send anything here; trusted, a forged message would answer someone's
 * question, and a malformed one would throw inside ioredis's handler and take the process down.
 * A settlement published while the subscription was down is lost; so on every reconnect it
 * subscribes again and, once Redis has acknowledged that, looks at every question waited for.
 * (Not ioredis's `autoResubscribe`: the SUBSCRIBE it sends on reconnecting rejects unhandled when
 * the connection drops before Redis answers it, and the subscription is then lost for good.)
 * Returns the latest subscription, for a wait to have in place before it looks: one that failed
 * fails the waits until the next reconnect subscribes again.
 */
function listen(
  subscriber: Redis,
  channel: string,
  waiters: Waiters,
  look: (id: string) => void,
): () => Promise<unknown> {
  subscriber.on('message', (from: string, message: string) => {
    if (from !== channel) return;
    const cut = message.indexOf('\n');
    const id = cut > 0 ? message.slice(0, cut) : message;
    if (waiters.has(id)) look(id);
  });
  const subscribe = () => {
    const subscribed = subscriber.subscribe(channel);
    // Failed (Redis down, or the connection dropped before Redis answered): the waits that await it
    // surface it, not an unhandled rejection; the next 'ready' subscribes again.
    subscribed.catch(() => undefined);
    return subscribed;
  };
  // Queued until the first connection is ready, which then subscribes a second time: harmless.
  let current = subscribe();
  subscriber.on('ready', () => {
    current = subscribe();
    // Listen, then look: a settlement published while the subscription was down is not missed.
    current.then(
      () => {
        for (const id of waiters.ids()) look(id);
      },
      () => undefined, // failed: see `subscribe`
    );
  });
  return () => current;
}

function defaultTimer(fn: () => void, ms: number): () => void {
  const handle = setTimeout(fn, ms);
  (handle as { unref?: () => void }).unref?.();
  return () => clearTimeout(handle);
}
