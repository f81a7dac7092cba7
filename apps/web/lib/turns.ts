import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';

/** A chat's turn, taken: `release` ends it, and removes only this holder's mark. */
export interface TurnHold {
  release(): Promise<void>;
}

/**
 * Which chats have a turn running, by `chatKey`: one turn at a time in a chat, and no change of
 * its user while one runs. In this process (`createMemoryTurns`), or in Redis (`createRedisTurns`)
 * so that a turn streaming on one instance is seen by every other.
 *
 * @example
 * const hold = await turns.take(chat.key); if (!hold) return 409; try { … } finally { await hold.release(); }
 */
export interface TurnMarks {
  /** Takes the chat's turn; undefined when a turn holds it already. */
  take(key: string): Promise<TurnHold | undefined>;
}

/** Turns in this process's memory: the default, for one web app process. */
export function createMemoryTurns(): TurnMarks {
  const held = new Map<string, object>();
  return {
    async take(key) {
      if (held.has(key)) return undefined;
      const mine = {};
      held.set(key, mine);
      return {
        async release() {
          if (held.get(key) === mine) held.delete(key);
        },
      };
    },
  };
}

/**
 * KEYS: the mark. ARGV: holder, lease (ms). Kept while it is this holder's; set again when it is
 * gone (a Redis that restarted) — the turn still runs; 0 when another turn holds it now.
 */
const RENEW = `
local holder = redis.call('GET', KEYS[1])
if holder == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
if not holder then redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2]) return 1 end
return 0
`;

/** KEYS: the mark. ARGV: holder. Removed only by the holder that set it. */
const RELEASE = `
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
`;

/**
 * Turns marked in Redis, shared by every replica: a key per chat holding its turn's holder (a
 * random id), set only when absent (`SET NX`) with a lease renewed every third of it while the turn
 * runs, so the mark of an instance that died lapses within `leaseMs`; only its holder removes it.
 */
export function createRedisTurns(redis: Redis, options: { prefix: string; leaseMs: number }): TurnMarks {
  const { prefix, leaseMs } = options;
  return {
    async take(key) {
      const mark = prefix + key;
      const holder = randomUUID();
      if ((await redis.set(mark, holder, 'PX', leaseMs, 'NX')) !== 'OK') return undefined;
      let renewing = true;
      const renew = setInterval(
        () => {
          // A Redis that cannot be reached now is tried again at the next tick.
          void (redis.eval(RENEW, 1, mark, holder, String(leaseMs)) as Promise<number>).then(
            (kept) => {
              if (kept === 0 && renewing) {
                renewing = false;
                clearInterval(renew);
              }
            },
            () => undefined,
          );
        },
        Math.floor(leaseMs / 3),
      );
      renew.unref();
      return {
        async release() {
          renewing = false;
          clearInterval(renew);
          await redis.eval(RELEASE, 1, mark, holder);
        },
      };
    },
  };
}
