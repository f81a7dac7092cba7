/**
 * The Redis registry's atomic steps, as Lua run by the server: a question settles once, whoever
 * races for it across replicas. Times come from the caller's clock (ARGV), never Redis's, so
 * every replica judges a deadline by the clock it was given.
 */

/**
 * KEYS: question hash, owner zset, the opener's alive mark. ARGV: id, owner, openedAt, expiresAt,
 * data JSON, ttl ms, the opener's id, its lease ms. The owner's index lives as long as its
 * longest-lived question; the question names its opener, whose mark (set here too, and renewed by
 * it) says it still waits.
 */
export const OPEN = `
redis.call('HSET', KEYS[1], 'owner', ARGV[2], 'openedAt', ARGV[3], 'expiresAt', ARGV[4], 'data', ARGV[5], 'waiter', ARGV[7])
redis.call('PEXPIRE', KEYS[1], ARGV[6])
redis.call('SET', KEYS[3], '1', 'PX', ARGV[8])
redis.call('ZADD', KEYS[2], ARGV[3], ARGV[1])
if redis.call('PTTL', KEYS[2]) < tonumber(ARGV[6]) then redis.call('PEXPIRE', KEYS[2], ARGV[6]) end
return 1
`;

/**
 * KEYS: question hash. ARGV: id, now, kind (answer | withdraw | expire), owner, settlement JSON,
 * its reason, retain ms, channel. A question past its deadline is settled `expired` first; one
 * whose opener's alive mark has lapsed (the replica waiting for it stopped) is settled `withdrawn`
 * first — its mark is the question key's own prefix, then `w:` and the opener's id (so a client's
 * keyPrefix applies to it too). Returns unknown | forbidden | ok | already-answered | expired (for
 * answers), and for withdraw/expire: unknown | ok (settled now) | settled (was already) | pending
 * (not due).
 */
export const SETTLE = `
local q = KEYS[1]
if redis.call('EXISTS', q) == 0 then return 'unknown' end
local kind = ARGV[3]
if kind == 'answer' and redis.call('HGET', q, 'owner') ~= ARGV[4] then return 'forbidden' end
local reason = redis.call('HGET', q, 'reason')
local function settle(r, json)
  redis.call('HSET', q, 'reason', r, 'settlement', json)
  redis.call('PEXPIRE', q, ARGV[7])
  redis.call('PUBLISH', ARGV[8], ARGV[1] .. '\\n' .. json)
end
local expired = false
if not reason and tonumber(ARGV[2]) >= tonumber(redis.call('HGET', q, 'expiresAt')) then
  settle('expired', '{"reason":"expired"}')
  reason = 'expired'
  expired = true
end
local waiter = redis.call('HGET', q, 'waiter')
if not reason and waiter then
  local mark = string.sub(q, 1, #q - #ARGV[1] - 2) .. 'w:' .. waiter
  if redis.call('EXISTS', mark) == 0 then
    settle('withdrawn', '{"reason":"withdrawn"}')
    reason = 'withdrawn'
    expired = true
  end
end
if kind == 'answer' then
  if not reason then settle(ARGV[6], ARGV[5]) return 'ok' end
  if reason == 'answered' or reason == 'cancelled' then return 'already-answered' end
  return 'expired'
end
if expired then return 'ok' end
if reason then return 'settled' end
if kind == 'withdraw' then settle('withdrawn', '{"reason":"withdrawn"}') return 'ok' end
return 'pending'
`;
