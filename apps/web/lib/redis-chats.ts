import type { Redis } from 'ioredis';
import { type ChatRecord, type ChatStore, newChat } from './chats';
import type { DemoUser } from './opsdesk';

/**
 * KEYS: chat hash, address set, all-chats zset (by last use). ARGV: id, csrf, user, address,
 * now, per-address cap, total cap. The caps are checked and the chat added in one step, so
 * replicas racing for the last slot cannot both get it.
 */
const OPEN = `
if redis.call('SCARD', KEYS[2]) >= tonumber(ARGV[6]) then return 'address' end
if redis.call('ZCARD', KEYS[3]) >= tonumber(ARGV[7]) then return 'total' end
redis.call('HSET', KEYS[1], 'id', ARGV[1], 'csrf', ARGV[2], 'user', ARGV[3], 'address', ARGV[4], 'lastSeen', ARGV[5])
redis.call('SADD', KEYS[2], ARGV[1])
redis.call('ZADD', KEYS[3], ARGV[5], ARGV[1])
return 'ok'
`;

/** KEYS: chat hash, all-chats zset. ARGV: id, now. */
const TOUCH = `
if redis.call('EXISTS', KEYS[1]) == 0 then return false end
redis.call('HSET', KEYS[1], 'lastSeen', ARGV[2])
redis.call('ZADD', KEYS[2], ARGV[2], ARGV[1])
return redis.call('HGETALL', KEYS[1])
`;

/** KEYS: chat hash, all-chats zset. ARGV: id, address-set prefix. */
const REMOVE = `
local address = redis.call('HGET', KEYS[1], 'address')
if not address then return 0 end
redis.call('SREM', ARGV[2] .. address, ARGV[1])
redis.call('ZREM', KEYS[2], ARGV[1])
redis.call('DEL', KEYS[1])
return 1
`;

/**
 * Chats in Redis, shared by every replica of the web app: a chat opened on one is known to all
 * (its cookie, its CSRF token, its user), and the caps count every replica's chats.
 */
export function createRedisChats(redis: Redis, prefix = 'elicitkit:web:', now: () => number = Date.now): ChatStore {
  const chat = (id: string) => `${prefix}chat:${id}`;
  const addresses = `${prefix}address:`;
  const all = `${prefix}chats`;
  const record = (flat: string[]): ChatRecord => {
    const h: Record<string, string> = {};
    for (let i = 0; i + 1 < flat.length; i += 2) h[flat[i] as string] = flat[i + 1] as string;
    return {
      id: h.id ?? '',
      csrf: h.csrf ?? '',
      user: (h.user ?? 'owner') as DemoUser,
      address: h.address ?? '',
      lastSeen: Number(h.lastSeen),
    };
  };
  return {
    async open(address, user, limits) {
      const fresh = newChat(address, user, now());
      const result = (await redis.eval(
        OPEN,
        3,
        chat(fresh.id),
        addresses + address,
        all,
        fresh.id,
        fresh.csrf,
        user,
        address,
        String(fresh.lastSeen),
        String(limits.perAddress),
        String(limits.total),
      )) as 'ok' | 'address' | 'total';
      if (result === 'ok') return { ok: true, chat: fresh };
      return { ok: false, limit: result, max: result === 'address' ? limits.perAddress : limits.total };
    },
    async touch(id) {
      const flat = (await redis.eval(TOUCH, 2, chat(id), all, id, String(now()))) as string[] | null;
      return flat ? record(flat) : undefined;
    },
    async has(id) {
      return (await redis.exists(chat(id))) === 1;
    },
    async setUser(id, user) {
      // Only an open chat: HSET on a missing key would bring a closed chat back.
      const set = await redis.eval(
        "if redis.call('EXISTS', KEYS[1]) == 1 then redis.call('HSET', KEYS[1], 'user', ARGV[1]) return 1 end return 0",
        1,
        chat(id),
        user,
      );
      return set === 1;
    },
    async remove(id) {
      return (await redis.eval(REMOVE, 2, chat(id), all, id, addresses)) === 1;
    },
    async idle(cutoff) {
      return redis.zrangebyscore(all, '-inf', `(${cutoff}`);
    },
    async close() {},
  };
}
