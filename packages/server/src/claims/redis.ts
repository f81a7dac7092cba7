import { ElicitkitError } from '@elicitkit/form';
import type { Redis } from 'ioredis';
import { sha1Hex } from '../digest.js';
import { bounded, storeTimeout } from './bounded.js';
import { ClaimStoreNotDurableError, ClaimStoreUnavailableError } from './errors.js';
import type { Claim, ClaimResult, ClaimStore } from './types.js';

export { ClaimStoreNotDurableError, ClaimStoreUnavailableError };

/** Where and how `createRedisClaimStore` keeps its claims. */
export interface RedisClaimStoreOptions {
  /** Prefix of every key the store writes. Default `elicitkit:claims:`. */
  prefix?: string;
  /** The clock, for tests. */
  now?: () => number;
  /**
   * Accept a Redis that does not keep its data. By default the store checks, before its first
   * claim, that Redis writes every command to its append-only file and fsyncs it (`appendonly
   * yes`, `appendfsync always`) and never evicts keys (no `maxmemory`, or `maxmemory-policy
   * noeviction`), and refuses to claim anything otherwise: a Redis that restarts, or fills up,
   * and forgets a claim lets a replayed call act again. `volatile: true` accepts that — claims
   * hold only while this Redis keeps them.
   */
  volatile?: boolean;
  /**
   * The longest one operation waits for Redis, ms (its durability check included). Default 5 s.
   * Past it the operation fails as with Redis unreachable (`ClaimStoreUnavailableError`), even
   * on a client that would wait for ever (`maxRetriesPerRequest: null`, as BullMQ wants): a claim
   * not taken acts on nothing, a result not recorded is reported so. A claim that Redis takes after
   * all (its command was queued) is released as soon as its answer comes. A whole number, at least
   * 1 (else a `RangeError`).
   */
  timeoutMs?: number;
}

// A claim is one hash `<prefix>c:<id>` {state, owner, lease, result, exp} plus its id in the
// sorted set `<prefix>expiry` scored by its expiry. Every read-check-write is one Lua script, so
// each runs atomically in Redis: two replicas can never both win a claim. Expiry is decided by
// `exp` against the caller's clock (the suite's manual clock, or Date.now); Redis's own PEXPIRE
// is only a backstop, set a minute past it, so nothing outlives its call when nobody sweeps.
// ioredis sends a command again when the connection dropped before its reply came
// (`autoResendUnfulfilledCommands`, on by default), so a script may run twice for one call: each
// answers its second run as it did its first (a claim still the caller's, a completion recorded).
const LIVE = `
local function live(key, now)
  local exp = tonumber(redis.call('HGET', key, 'exp'))
  if exp == nil then return false end
  if exp <= now then redis.call('DEL', key) return false end
  return true
end
`;

const CLAIM = `${LIVE}
local key, index = KEYS[1], KEYS[2]
local id, owner, now, lease, ttl = ARGV[1], ARGV[2], tonumber(ARGV[3]), tonumber(ARGV[4]), tonumber(ARGV[5])
if live(key, now) then
  local found = redis.call('HMGET', key, 'state', 'owner', 'lease', 'result')
  -- This very claim, sent again (its reply was lost): still the caller's.
  if found[1] == 'running' and found[2] == owner then return {'claimed'} end
  return found
end
redis.call('HSET', key, 'state', 'running', 'owner', owner, 'lease', now + lease, 'exp', now + ttl)
redis.call('PEXPIRE', key, ttl + 60000)
redis.call('ZADD', index, now + ttl, id)
return {'claimed'}
`;

const RENEW = `${LIVE}
local key, owner, now, lease = KEYS[1], ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3])
if not live(key, now) then return 0 end
if redis.call('HGET', key, 'state') ~= 'running' or redis.call('HGET', key, 'owner') ~= owner then return 0 end
-- A renewal sent again after a later one ran never moves the lease back.
redis.call('HSET', key, 'lease', math.max(tonumber(redis.call('HGET', key, 'lease')) or 0, now + lease))
return 1
`;

const COMPLETE = `${LIVE}
local key, owner, now, result = KEYS[1], ARGV[1], tonumber(ARGV[2]), ARGV[3]
if not live(key, now) then return 0 end
local state, holder = unpack(redis.call('HMGET', key, 'state', 'owner'))
if holder ~= owner then return 0 end
-- This very completion, sent again (its reply was lost): it is recorded.
if state == 'done' then return redis.call('HGET', key, 'result') == result and 1 or 0 end
if state ~= 'running' then return 0 end
-- The owner stays with the result: it is how a completion sent again knows it is its own.
redis.call('HSET', key, 'state', 'done', 'result', result)
redis.call('HDEL', key, 'lease')
return 1
`;

// Sent again after it ran, it finds nothing of the owner's (a claim taken meanwhile is someone
// else's) and deletes nothing: it answers 0, which the committer does not act on.
const RELEASE = `${LIVE}
local key, index, id, owner, now = KEYS[1], KEYS[2], ARGV[1], ARGV[2], tonumber(ARGV[3])
if not live(key, now) then return 0 end
if redis.call('HGET', key, 'state') ~= 'running' or redis.call('HGET', key, 'owner') ~= owner then return 0 end
redis.call('DEL', key)
redis.call('ZREM', index, id)
return 1
`;

const READ = `${LIVE}
if not live(KEYS[1], tonumber(ARGV[1])) then return false end
return redis.call('HMGET', KEYS[1], 'state', 'owner', 'lease', 'result')
`;

// Deletes each expired id's hash unless it was claimed again meanwhile (then its score moved on).
// The hashes' names are made from the index's own (`<prefix>expiry`), never sent as an argument:
// a client's `keyPrefix` (ioredis) is put before KEYS, not before ARGV, and a name sent in ARGV
// would miss every hash under it.
const SWEEP = `
local index, now = KEYS[1], tonumber(ARGV[1])
local prefix = string.sub(index, 1, #index - ${'expiry'.length}) .. 'c:'
local ids = redis.call('ZRANGEBYSCORE', index, '-inf', now)
for _, id in ipairs(ids) do
  local key = prefix .. id
  local exp = tonumber(redis.call('HGET', key, 'exp'))
  if exp ~= nil and exp <= now then redis.call('DEL', key) end
end
redis.call('ZREMRANGEBYSCORE', index, '-inf', now)
return #ids
`;

/**
 * What Redis says about keeping its data: undefined when it fsyncs every write to its AOF and never
 * evicts a key to make room, else what it does instead. A Redis with a `maxmemory` and any policy
 * but `noeviction` drops keys when full (a `volatile-*` one too: every claim has an expiry), and a
 * claim it drops lets a replayed call act again, as a restart that lost it would.
 */
async function notDurable(redis: Redis): Promise<string | undefined> {
  const info = String(await redis.info('persistence'));
  if (!/^aof_enabled:1\s*$/m.test(info)) return 'appendonly no';
  const memory = String(await redis.info('memory'));
  const maxmemory = Number(/^maxmemory:(\d+)\s*$/m.exec(memory)?.[1] ?? 0);
  const policy = /^maxmemory_policy:(\S+)\s*$/m.exec(memory)?.[1] ?? 'noeviction';
  if (maxmemory > 0 && policy !== 'noeviction')
    return `maxmemory-policy ${policy}: keys are evicted when memory is full`;
  // CONFIG may be renamed or refused on a managed Redis: then durability cannot be shown.
  const reply = (await redis.config('GET', 'appendfsync').catch(() => [])) as string[];
  const fsync = reply[1];
  if (fsync === undefined) return 'appendfsync unknown: CONFIG GET is not allowed';
  return fsync === 'always' ? undefined : `appendfsync ${fsync}`;
}

/** A Lua script and the SHA-1 Redis knows it by in its script cache. */
interface Script {
  text: string;
  sha: string;
}
const scripts = (() => {
  const of = (text: string): Script => ({ text, sha: sha1Hex(text) });
  return {
    claim: of(CLAIM),
    renew: of(RENEW),
    complete: of(COMPLETE),
    release: of(RELEASE),
    read: of(READ),
    sweep: of(SWEEP),
  };
})();

type Fields = [string | null, string | null, string | null, string | null];

function toClaim(fields: Fields): Claim {
  const [state, owner, lease, result] = fields;
  return state === 'done'
    ? { state: 'done', result: result ?? '' }
    : { state: 'running', owner: owner ?? '', leaseUntil: Number(lease ?? 0) };
}

/**
 * Claims in Redis (ioredis), shared by every replica on that Redis: a final round replayed on
 * any replica acts once. Each operation is one Lua script, so a claim is atomic across replicas.
 *
 * It gives at most once, not the SQLite store's `atomically`: Redis and the database the effect
 * writes to cannot commit together. The claim is taken first, then the effect runs, then its
 * result is recorded; a replica that dies between the effect and the record leaves a claim whose
 * lease lapses, and replays are told the outcome is unknown instead of acting again.
 *
 * @example
 * import { Redis } from 'ioredis';
 * import { createRedisClaimStore } from '@elicitkit/server/redis';
 * // Redis run with `appendonly yes` and `appendfsync always`: checked before the first claim.
 * const kit = createElicitkit({ secret, claims: createRedisClaimStore(new Redis(process.env.REDIS_URL)) });
 */
export function createRedisClaimStore(redis: Redis, options: RedisClaimStoreOptions = {}): ClaimStore {
  const prefix = options.prefix ?? 'elicitkit:claims:';
  const now = options.now ?? Date.now;
  const timeoutMs = storeTimeout(options.timeoutMs);
  const key = (id: string) => `${prefix}c:${id}`;
  const index = `${prefix}expiry`;
  // Checked before anything is claimed (a check that could not reach Redis is tried again), and
  // again on each new connection: a Redis restarted or failed over may not keep what the first did.
  let durable: Promise<void> | undefined;
  if (!options.volatile)
    redis.on('ready', () => {
      durable = undefined;
    });
  const checked = () => {
    durable ??= notDurable(redis).then(
      (found) => {
        if (found !== undefined) throw new ClaimStoreNotDurableError(found);
      },
      (error: unknown) => {
        durable = undefined;
        throw new ClaimStoreUnavailableError(error);
      },
    );
    return durable;
  };
  // Each script is sent by its SHA-1 (EVALSHA): Redis runs it from its script cache, so neither
  // side writes, reads or hashes its text per claim. A Redis that does not have it (restarted,
  // SCRIPT FLUSH, another node) says NOSCRIPT, and the text goes once (EVAL caches it again).
  const send = async (script: Script, keys: string[], args: (string | number)[]) => {
    if (!options.volatile) await checked();
    try {
      try {
        return await redis.evalsha(script.sha, keys.length, ...keys, ...args);
      } catch (error) {
        if (!String((error as Error)?.message).startsWith('NOSCRIPT')) throw error;
        return await redis.eval(script.text, keys.length, ...keys, ...args);
      }
    } catch (error) {
      throw new ClaimStoreUnavailableError(error);
    }
  };
  // Each operation waits at most `timeoutMs`; `late` gets an answer that came after it gave up.
  const run = (script: Script, keys: string[], args: (string | number)[], late?: (reply: unknown) => void) =>
    bounded(send(script, keys, args), timeoutMs, late).catch((error: unknown) => {
      throw ElicitkitError.is(error) ? error : new ClaimStoreUnavailableError(error);
    });
  return {
    async claim(id, owner, { leaseMs, ttlMs }): Promise<ClaimResult> {
      // Taken after this caller gave up (told nothing was done): given back, so a replay may act.
      const late = (reply: unknown) => {
        if ((reply as Fields)[0] === 'claimed')
          void send(scripts.release, [key(id), index], [id, owner, now()]).catch(() => {});
      };
      const reply = (await run(scripts.claim, [key(id), index], [id, owner, now(), leaseMs, ttlMs], late)) as Fields;
      return reply[0] === 'claimed' ? { state: 'claimed' } : toClaim(reply);
    },
    async renew(id, owner, leaseMs) {
      return (await run(scripts.renew, [key(id)], [owner, now(), leaseMs])) === 1;
    },
    async complete(id, owner, result) {
      return (await run(scripts.complete, [key(id)], [owner, now(), result])) === 1;
    },
    async release(id, owner) {
      return (await run(scripts.release, [key(id), index], [id, owner, now()])) === 1;
    },
    async read(id) {
      const reply = (await run(scripts.read, [key(id)], [now()])) as Fields | null;
      return reply ? toClaim(reply) : undefined;
    },
    async sweep() {
      return (await run(scripts.sweep, [index], [now()])) as number;
    },
  };
}
