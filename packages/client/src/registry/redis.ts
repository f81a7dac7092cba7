import { Redis } from 'ioredis';
import { RegistryError } from '../errors.js';
import { settlementOf } from './memory.js';
import { OPEN, SETTLE } from './redis-scripts.js';
import type { PendingEntry, PendingRegistry, ResolveResult, SetTimer, Settlement } from './types.js';

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
  /** How long a settled question is remembered. Default 10 minutes. */
  retainMs?: number;
}

/** A pending registry in Redis, and the connections it holds. */
export interface RedisRegistry extends PendingRegistry {
  /** Stops listening and closes the connections it opened (not a client it was given). */
  close(): Promise<void>;
}

type Final = Exclude<Settlement, { reason: 'unknown' }>;

const MALFORMED = Symbol('malformed');

/** Something else wrote a question's key (not a hash): there is no question. Redis down still fails loudly. */
function wrongType(error: unknown): boolean {
  return error instanceof Error && /WRONGTYPE/.test(error.message);
}

function parsed(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return MALFORMED;
  }
}

/** A settlement as the settling script writes it: a known reason, and an answer only when answered. */
function isFinal(value: unknown): value is Final {
  if (typeof value !== 'object' || value === null) return false;
  const { reason, answer } = value as { reason?: unknown; answer?: unknown };
  if (reason === 'cancelled' || reason === 'expired' || reason === 'withdrawn') return true;
  if (reason !== 'answered' || typeof answer !== 'object' || answer === null) return false;
  const { action } = answer as { action?: unknown };
  return action === 'accept' || action === 'decline';
}

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
  const own = typeof options.redis === 'string';
  const redis = typeof options.redis === 'string' ? new Redis(options.redis) : options.redis;
  const subscriber = redis.duplicate();
  const prefix = options.prefix ?? 'elicitkit:registry:';
  const channel = `${prefix}settled`;
  const now = options.now ?? Date.now;
  const setTimer = options.setTimer ?? defaultTimer;
  const defaultTimeout = options.timeoutMs ?? 10 * 60_000;
  const retainMs = options.retainMs ?? 10 * 60_000;
  const question = (id: string) => `${prefix}q:${id}`;
  const ownerKey = (owner: string) => `${prefix}owner:${owner}`;
  /** This process's waiters, by question id. */
  const waiters = new Map<string, Set<(settlement: Settlement) => void>>();

  function wake(id: string, settlement: Settlement): void {
    const set = waiters.get(id);
    if (!set) return;
    waiters.delete(id);
    for (const fn of set) fn(structuredClone(settlement));
  }

  // Every wait listens before it looks, so waits hold until the subscription is in place.
  const subscribed = listen(
    subscriber,
    channel,
    (id) => waiters.has(id),
    (id) => void check(id).catch(() => undefined),
    () => [...waiters.keys()],
  );

  async function settle(id: string, kind: 'withdraw' | 'expire'): Promise<string> {
    try {
      return (await redis.eval(SETTLE, 1, question(id), id, now(), kind, '', '', '', retainMs, channel)) as string;
    } catch (error) {
      if (wrongType(error)) return 'unknown';
      throw error;
    }
  }

  const read = (id: string) => readEntry(redis, question(id), id);

  /** Settles the question if it is due, then wakes this process's waiters if it has settled. */
  async function check(id: string): Promise<PendingEntry | undefined> {
    if ((await settle(id, 'expire')) === 'unknown') {
      wake(id, { reason: 'unknown' });
      return undefined;
    }
    const entry = await read(id);
    if (!entry) wake(id, { reason: 'unknown' });
    else if (entry.settlement) wake(id, entry.settlement);
    return entry;
  }

  // The clock decides; a timer only wakes this process's waiters, and re-arms if it was early.
  async function get(id: string): Promise<PendingEntry | undefined> {
    if ((await settle(id, 'expire')) === 'unknown') return undefined;
    return read(id);
  }

  function schedule(id: string, expiresAt: number): void {
    const recheck = () =>
      void check(id).then((entry) => {
        if (entry && !entry.settlement && waiters.has(id)) schedule(id, entry.expiresAt);
      });
    const delay = expiresAt - now();
    // Due while we were reading it (the clock moved during the round trip): look again now.
    if (delay <= 0) recheck();
    else setTimer(recheck, Math.min(delay, MAX_TIMER_MS));
  }

  return {
    async open({ owner, timeoutMs = defaultTimeout, data = null }) {
      if (!(Number.isFinite(timeoutMs) && timeoutMs > 0)) {
        throw new RegistryError('BAD_TIMEOUT', `A question needs a positive timeout, not ${timeoutMs} ms.`);
      }
      const id = crypto.randomUUID();
      const at = now();
      const ttl = Math.ceil(timeoutMs + retainMs);
      await redis.eval(
        OPEN,
        2,
        question(id),
        ownerKey(owner),
        id,
        owner,
        at,
        at + timeoutMs,
        JSON.stringify(data),
        ttl,
      );
      return id;
    },

    async wait(id, signal) {
      await subscribed;
      // Listen first, then look: a settlement published in between is not missed.
      const settled = new Promise<Settlement>((resolve) => {
        const set = waiters.get(id) ?? new Set();
        waiters.set(id, set);
        set.add(resolve);
      });
      const onAbort = () => void settle(id, 'withdraw').then(() => check(id));
      const entry = await check(id);
      if (entry && !entry.settlement) {
        if (signal?.aborted) onAbort();
        else {
          signal?.addEventListener('abort', onAbort, { once: true });
          schedule(id, entry.expiresAt);
        }
      }
      return settled.finally(() => signal?.removeEventListener('abort', onAbort));
    },

    async resolve(id, owner, answer): Promise<ResolveResult> {
      const settlement = settlementOf(answer);
      return (await redis.eval(
        SETTLE,
        1,
        question(id),
        id,
        now(),
        'answer',
        owner,
        JSON.stringify(settlement),
        settlement.reason,
        retainMs,
        channel,
      )) as ResolveResult;
    },

    async withdraw(id) {
      await settle(id, 'withdraw');
    },

    get,

    async list(owner) {
      const ids = await redis.zrange(ownerKey(owner), '0', '-1');
      const entries: PendingEntry[] = [];
      for (const id of ids) {
        const entry = await get(id);
        if (entry) entries.push(entry);
        else await redis.zrem(ownerKey(owner), id); // forgotten (its key expired)
      }
      return entries;
    },

    async close() {
      for (const id of [...waiters.keys()]) wake(id, { reason: 'unknown' });
      subscriber.disconnect();
      if (own) await redis.quit();
    },
  };
}

/**
 * Subscribes to the settlements channel. A message is only a hint that a question settled: the
 * settlement is read back from its hash, which the settling script wrote atomically. Anyone who
 * can PUBLISH could send anything here; trusted, a forged message would answer someone's
 * question, and a malformed one would throw inside ioredis's handler and take the process down.
 * A settlement published while the subscription was down is lost; ioredis resubscribes on
 * reconnect, so every question waited for is looked at again then.
 */
function listen(
  subscriber: Redis,
  channel: string,
  waitedFor: (id: string) => boolean,
  look: (id: string) => void,
  all: () => string[],
): Promise<unknown> {
  subscriber.on('message', (from: string, message: string) => {
    if (from !== channel) return;
    const cut = message.indexOf('\n');
    const id = cut > 0 ? message.slice(0, cut) : message;
    if (waitedFor(id)) look(id);
  });
  subscriber.on('ready', () => {
    for (const id of all()) look(id);
  });
  const subscribed = subscriber.subscribe(channel);
  subscribed.catch(() => undefined); // surfaced by the waits, not as an unhandled rejection
  return subscribed;
}

/** The entry, or undefined when there is none — or none a registry wrote (a malformed one fails closed). */
async function readEntry(redis: Redis, key: string, id: string): Promise<PendingEntry | undefined> {
  let hash: Record<string, string>;
  try {
    hash = await redis.hgetall(key);
  } catch (error) {
    if (wrongType(error)) return undefined;
    throw error;
  }
  if (hash.owner === undefined) return undefined;
  const data = parsed(hash.data ?? 'null');
  const settlement = hash.settlement === undefined ? undefined : parsed(hash.settlement);
  const openedAt = Number(hash.openedAt);
  const expiresAt = Number(hash.expiresAt);
  if (data === MALFORMED || settlement === MALFORMED || !Number.isFinite(openedAt) || !Number.isFinite(expiresAt))
    return undefined;
  if (settlement !== undefined && !isFinal(settlement)) return undefined;
  return { id, owner: hash.owner, openedAt, expiresAt, data, settlement };
}

function defaultTimer(fn: () => void, ms: number): () => void {
  const handle = setTimeout(fn, ms);
  (handle as { unref?: () => void }).unref?.();
  return () => clearTimeout(handle);
}
