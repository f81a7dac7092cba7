import type { Redis } from 'ioredis';
import { type ChatRecord, type ChatStore, chatKey, csrfOf, MAX_PAGES, newChat, newPage } from './chats';
import { DEMO_USERS, type DemoUser } from './opsdesk';

const isDemoUser = (u: unknown): u is DemoUser => (DEMO_USERS as readonly unknown[]).includes(u);

/**
 * KEYS: chat hash, address set, all-chats zset (by last use). ARGV: chat key, user, address, now,
 * per-address cap, total cap. The caps are checked and the chat added in one step, so replicas
 * racing for the last slot cannot both get it. Neither the chat id (the session cookie) nor a CSRF
 * token is stored: chats are known by `chatKey(id)`, and the token is derived from the id.
 */
const OPEN = `
if redis.call('SCARD', KEYS[2]) >= tonumber(ARGV[5]) then return 'address' end
if redis.call('ZCARD', KEYS[3]) >= tonumber(ARGV[6]) then return 'total' end
redis.call('HSET', KEYS[1], 'key', ARGV[1], 'user', ARGV[2], 'address', ARGV[3], 'lastSeen', ARGV[4], 'pages', 0, 'budget', ARGV[1])
redis.call('SADD', KEYS[2], ARGV[1])
redis.call('ZADD', KEYS[3], ARGV[4], ARGV[1])
return 'ok'
`;

/** KEYS: chat hash, all-chats zset. ARGV: chat key, now. */
const TOUCH = `
if redis.call('EXISTS', KEYS[1]) == 0 then return false end
redis.call('HSET', KEYS[1], 'lastSeen', ARGV[2])
redis.call('ZADD', KEYS[2], ARGV[2], ARGV[1])
return redis.call('HGETALL', KEYS[1])
`;

/**
 * KEYS: chat hash. ARGV: the page's name, `MAX_PAGES`, the name the page had already (`''`: none).
 * A page still named there is that page (not counted again); otherwise counts the page and names
 * it (a `page:` field) while the count is within the cap; the name, `''` past the cap, false when
 * the chat is not open.
 */
const VISIT = `
if redis.call('EXISTS', KEYS[1]) == 0 then return false end
if ARGV[3] ~= '' and redis.call('HEXISTS', KEYS[1], 'page:' .. ARGV[3]) == 1 then return ARGV[3] end
if redis.call('HINCRBY', KEYS[1], 'pages', 1) > tonumber(ARGV[2]) then return '' end
redis.call('HSET', KEYS[1], 'page:' .. ARGV[1], 1)
return ARGV[1]
`;

/**
 * KEYS: chat hash. ARGV: the page's name. The pages left once it has gone; -1 when the chat is not
 * open or the page is not named there (never, or gone already).
 */
const LEAVE = `
if redis.call('HDEL', KEYS[1], 'page:' .. ARGV[1]) == 0 then return -1 end
return redis.call('HINCRBY', KEYS[1], 'pages', -1)
`;

/**
 * KEYS: old chat hash, new chat hash, all-chats zset. ARGV: old key, new key, user, now,
 * address-set prefix. The new chat takes the old one's address and budget (and one page, the one
 * that asked), and the old one is gone, in one step: no replica sees both, or neither. The address of the new chat, or false
 * when the old one is not open.
 */
const ROTATE = `
local address = redis.call('HGET', KEYS[1], 'address')
if not address then return false end
local budget = redis.call('HGET', KEYS[1], 'budget') or ARGV[1]
redis.call('HSET', KEYS[2], 'key', ARGV[2], 'user', ARGV[3], 'address', address, 'lastSeen', ARGV[4], 'pages', 0, 'budget', budget)
redis.call('DEL', KEYS[1])
redis.call('SREM', ARGV[5] .. address, ARGV[1])
redis.call('SADD', ARGV[5] .. address, ARGV[2])
redis.call('ZREM', KEYS[3], ARGV[1])
redis.call('ZADD', KEYS[3], ARGV[4], ARGV[2])
return {address, budget}
`;

/** KEYS: chat hash, all-chats zset. ARGV: chat key, address-set prefix. */
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
  const chat = (key: string) => `${prefix}chat:${key}`;
  const addresses = `${prefix}address:`;
  const all = `${prefix}chats`;
  /**
   * The chat a hash holds, or undefined when it is not one this app wrote (another id, a user
   * that is not a demo user, no address or time): a malformed entry is an unknown chat, never a
   * crash and never a chat acting as someone it should not.
   */
  const record = (id: string, flat: unknown): ChatRecord | undefined => {
    if (!Array.isArray(flat)) return undefined;
    const h = new Map<string, unknown>();
    for (let i = 0; i + 1 < flat.length; i += 2) h.set(String(flat[i]), flat[i + 1]);
    const user = h.get('user');
    const address = h.get('address');
    const lastSeen = Number(h.get('lastSeen'));
    // A chat opened before budgets were carried counts under its own key.
    const budget = h.get('budget') ?? chatKey(id);
    if (
      h.get('key') !== chatKey(id) ||
      !isDemoUser(user) ||
      typeof address !== 'string' ||
      typeof budget !== 'string' ||
      !Number.isFinite(lastSeen)
    )
      return undefined;
    return { id, csrf: csrfOf(id), user, address, lastSeen, budget };
  };
  return {
    async open(address, user, limits) {
      const fresh = newChat(address, user, now());
      const key = chatKey(fresh.id);
      const result = (await redis.eval(
        OPEN,
        3,
        chat(key),
        addresses + address,
        all,
        key,
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
      try {
        const key = chatKey(id);
        return record(id, await redis.eval(TOUCH, 2, chat(key), all, key, String(now())));
      } catch (error) {
        // Something else wrote that key (not a hash): not a chat. Redis down still fails loudly.
        if (error instanceof Error && /WRONGTYPE/.test(error.message)) return undefined;
        throw error;
      }
    },
    async has(id) {
      return (await redis.exists(chat(chatKey(id)))) === 1;
    },
    async rotate(id, user) {
      const fresh = newChat('', user, now());
      const key = chatKey(id);
      const next = chatKey(fresh.id);
      const moved = (await redis.eval(
        ROTATE,
        3,
        chat(key),
        chat(next),
        all,
        key,
        next,
        user,
        String(fresh.lastSeen),
        addresses,
      )) as [string, string] | null;
      if (!moved) return undefined;
      return { ...fresh, address: moved[0], budget: moved[1] };
    },
    async visit(id, known) {
      const page = (await redis.eval(VISIT, 1, chat(chatKey(id)), newPage(), String(MAX_PAGES), known ?? '')) as
        | string
        | null;
      return page ?? undefined;
    },
    async leave(key, page) {
      // A chat's pages loaded before they were named send no name: it ends at its idle time.
      return (await redis.eval(LEAVE, 1, chat(key), page)) as number;
    },
    async remove(key) {
      return (await redis.eval(REMOVE, 2, chat(key), all, key, addresses)) === 1;
    },
    async idle(cutoff) {
      return redis.zrangebyscore(all, '-inf', `(${cutoff}`);
    },
    async close() {},
  };
}
