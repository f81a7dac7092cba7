/**
 * The Redis registry's atomic steps, as Lua run by the server: a question settles once, whoever
 * races for it across replicas. Times come from the caller's clock (ARGV), never Redis's, so
 * every replica judges a deadline by the clock it was given.
 */

/**
 * KEYS: question hash, owner zset. ARGV: id, owner, openedAt, expiresAt, data JSON, ttl ms.
 * The owner's index lives as long as its longest-lived question.
 */
export const OPEN = `
redis.call('HSET', KEYS[1], 'owner', ARGV[2], 'openedAt', ARGV[3], 'expiresAt', ARGV[4], 'data', ARGV[5])
redis.call('PEXPIRE', KEYS[1], ARGV[6])
redis.call('ZADD', KEYS[2], ARGV[3], ARGV[1])
if redis.call('PTTL', KEYS[2]) < tonumber(ARGV[6]) then redis.call('PEXPIRE', KEYS[2], ARGV[6]) end
return 1
`;

/**
 * KEYS: question hash. ARGV: id, now, kind (answer | withdraw | expire), owner, settlement JSON,
 * its reason, retain ms, channel. A question past its deadline is settled `expired` first. Returns
 * unknown | forbidden | ok | already-answered | expired (for answers), and for withdraw/expire:
 * unknown | ok (settled now) | settled (was already) | pending (not due).
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
