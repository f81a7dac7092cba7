/**
 * The chat store's behaviour, once, against both stores: this process's memory and a real Redis.
 */
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRedis, type TestRedis, withRedis } from '../../../test/support/redis-server.js';
import { type ChatStore, chatKey, createMemoryChats, csrfOf, MAX_PAGES } from '../lib/chats';
import { createRedisChats } from '../lib/redis-chats';

const REDIS = withRedis('web/test/chats.test.ts');

let redis: TestRedis;
let client: Redis;
beforeAll(async () => {
  if (!REDIS) return;
  redis = await startRedis();
  client = new Redis(redis.url);
});
afterAll(async () => {
  await client?.quit();
  await redis?.stop();
});

let n = 0;
const stores: [string, (now: () => number) => ChatStore][] = [['memory', (now) => createMemoryChats(now)]];
if (REDIS) stores.push(['redis', (now) => createRedisChats(client, `chats${++n}:`, now)]);

describe.each(stores)('chat store: %s', (_name, make) => {
  const limits = { perAddress: 2, total: 4 };
  let at = 1_000;
  const now = () => at;

  it('opens chats with unguessable ids and tokens, and finds them by id', async () => {
    const store = make(now);
    const opened = await store.open('10.0.0.1', 'owner', limits);
    if (!opened.ok) throw new Error('refused');
    expect(opened.chat.id).toMatch(/^[A-Za-z0-9_-]{32}$/);
    expect(opened.chat.csrf).not.toBe(opened.chat.id);
    at = 2_000;
    expect(await store.touch(opened.chat.id)).toEqual({ ...opened.chat, lastSeen: 2_000 });
    expect(await store.touch('nope')).toBeUndefined();
    expect(await store.has(opened.chat.id)).toBe(true);
  });

  it('caps chats per address and in all, and frees a slot when one closes', async () => {
    const store = make(now);
    const one = await store.open('10.0.0.1', 'owner', limits);
    await store.open('10.0.0.1', 'owner', limits);
    expect(await store.open('10.0.0.1', 'owner', limits)).toEqual({ ok: false, limit: 'address', max: 2 });
    await store.open('10.0.0.2', 'owner', limits);
    await store.open('10.0.0.3', 'owner', limits);
    expect(await store.open('10.0.0.4', 'owner', limits)).toEqual({ ok: false, limit: 'total', max: 4 });
    if (!one.ok) throw new Error('refused');
    expect(await store.remove(chatKey(one.chat.id))).toBe(true);
    expect(await store.remove(chatKey(one.chat.id))).toBe(false);
    expect(await store.has(one.chat.id)).toBe(false);
    expect((await store.open('10.0.0.1', 'owner', limits)).ok).toBe(true);
  });

  it('lets exactly the cap through when chats open at once', async () => {
    const store = make(now);
    const results = await Promise.all(Array.from({ length: 10 }, () => store.open('10.9.9.9', 'owner', limits)));
    expect(results.filter((r) => r.ok)).toHaveLength(2);
  });

  it('lists chats idle since a cutoff, and switches a chat’s user only while it is open', async () => {
    const store = make(now);
    at = 10_000;
    const old = await store.open('10.0.0.5', 'owner', limits);
    at = 20_000;
    const fresh = await store.open('10.0.0.6', 'owner', limits);
    if (!old.ok || !fresh.ok) throw new Error('refused');
    expect(await store.idle(15_000)).toEqual([chatKey(old.chat.id)]);
    at = 30_000;
    await store.touch(old.chat.id);
    expect(await store.idle(25_000)).toEqual([chatKey(fresh.chat.id)]);
    const bob = await store.rotate(old.chat.id, 'bob');
    if (!bob) throw new Error('not rotated');
    // A new chat, in the old one's place: same address (no cap counts it twice) and budget.
    expect(bob).toMatchObject({ user: 'bob', address: '10.0.0.5', budget: chatKey(old.chat.id) });
    expect(bob.id).not.toBe(old.chat.id);
    expect(bob.csrf).not.toBe(old.chat.csrf);
    expect(await store.touch(old.chat.id)).toBeUndefined();
    expect((await store.touch(bob.id))?.user).toBe('bob');
    expect(await store.idle(Number.MAX_SAFE_INTEGER)).toEqual(expect.not.arrayContaining([chatKey(old.chat.id)]));
    // Its budget goes on with the next change too.
    const alice = await store.rotate(bob.id, 'alice');
    expect(alice?.budget).toBe(chatKey(old.chat.id));
    await store.remove(chatKey(alice?.id ?? ''));
    expect(await store.rotate(alice?.id ?? '', 'bob')).toBeUndefined();
    expect(await store.rotate(old.chat.id, 'bob')).toBeUndefined();
  });

  it('counts the pages showing a chat by name: each tab that loads it, each that leaves, once', async () => {
    const store = make(now);
    const opened = await store.open('10.0.0.7', 'owner', limits);
    if (!opened.ok) throw new Error('refused');
    const key = chatKey(opened.chat.id);
    const one = (await store.visit(opened.chat.id)) ?? '';
    const two = (await store.visit(opened.chat.id)) ?? '';
    expect(one).toMatch(/^[A-Za-z0-9_-]{16}$/);
    expect(two).not.toBe(one);
    // A page that has its name (the same document mounting again) is that page, not a third; a
    // name the chat never gave is no name.
    expect(await store.visit(opened.chat.id, one)).toBe(one);
    const third = (await store.visit(opened.chat.id, 'made-up-by-a-page')) ?? '';
    expect([one, two]).not.toContain(third);
    expect(await store.leave(key, third)).toBe(2);
    expect(await store.leave(key, one)).toBe(1);
    // The same page again (a page restored from the back/forward cache reloads and says goodbye
    // twice), a page never named, another chat's page: nothing counted.
    expect(await store.leave(key, one)).toBeLessThan(0);
    expect(await store.leave(key, '')).toBeLessThan(0);
    expect(await store.leave(key, 'made-up-by-a-page')).toBeLessThan(0);
    const other = await store.open('10.0.0.8', 'owner', limits);
    if (!other.ok) throw new Error('refused');
    const theirs = (await store.visit(other.chat.id)) ?? '';
    expect(await store.leave(key, theirs)).toBeLessThan(0);
    expect(await store.leave(chatKey(other.chat.id), two)).toBeLessThan(0);
    expect(await store.leave(key, two)).toBe(0);
    await store.remove(key);
    await store.remove(chatKey(other.chat.id));
    expect(await store.visit(opened.chat.id)).toBeUndefined();
    expect(await store.leave(key, two)).toBeLessThan(0);
  });

  it(`names at most ${MAX_PAGES} pages of a chat: one past them is counted, never gone, so the chat waits for its idle time`, async () => {
    const store = make(now);
    const opened = await store.open('10.0.0.9', 'owner', limits);
    if (!opened.ok) throw new Error('refused');
    const key = chatKey(opened.chat.id);
    const named: string[] = [];
    for (let i = 0; i < MAX_PAGES; i++) named.push((await store.visit(opened.chat.id)) ?? '');
    expect(new Set(named).size).toBe(MAX_PAGES);
    expect(named.every((p) => p !== '')).toBe(true);
    expect(await store.visit(opened.chat.id)).toBe('');
    for (const [i, page] of named.entries()) expect(await store.leave(key, page)).toBe(MAX_PAGES - i);
    expect(await store.leave(key, '')).toBeLessThan(0);
    expect(await store.has(opened.chat.id)).toBe(true);
    await store.remove(key);
  });

  it('a chat a change of identity makes has no page until the page that asked visits it', async () => {
    const store = make(now);
    const opened = await store.open('10.0.0.10', 'owner', limits);
    if (!opened.ok) throw new Error('refused');
    const before = (await store.visit(opened.chat.id)) ?? '';
    const next = await store.rotate(opened.chat.id, 'bob');
    if (!next) throw new Error('not rotated');
    const key = chatKey(next.id);
    // The old chat's page names nothing in the new one.
    expect(await store.leave(key, before)).toBeLessThan(0);
    const page = (await store.visit(next.id)) ?? '';
    expect(await store.leave(key, page)).toBe(0);
    await store.remove(key);
  });
});

describe.skipIf(!REDIS)('chats in Redis hold no token and survive what others write there', () => {
  it('neither the chat id (the session cookie) nor a CSRF token is stored: both are derived, the same on every replica', async () => {
    const store = createRedisChats(client, 'tokens:', () => 5);
    const opened = await store.open('10.0.0.9', 'alice', { perAddress: 5, total: 5 });
    if (!opened.ok) throw new Error('refused');
    expect(opened.chat.csrf).toBe(csrfOf(opened.chat.id));
    const everything = JSON.stringify(
      await Promise.all((await client.keys('tokens:*')).map(async (k) => [k, await client.dump(k)])),
    );
    expect(everything).not.toContain(opened.chat.csrf);
    expect(everything).not.toContain(opened.chat.id);
    const other = createRedisChats(client, 'tokens:', () => 6);
    expect((await other.touch(opened.chat.id))?.csrf).toBe(opened.chat.csrf);
  });

  it.each([
    ['a user that is not a demo user', { id: 'ID', user: 'root', address: 'a', lastSeen: '1' }],
    ['no address', { id: 'ID', user: 'alice', lastSeen: '1' }],
    ['another id', { id: 'OTHER', user: 'alice', address: 'a', lastSeen: '1' }],
    ['nothing but junk fields', { x: 'y' }],
  ])('a malformed entry (%s) is an unknown chat, not a crash', async (_why, fields) => {
    const id = `ID${Math.random().toString(36).slice(2)}`;
    const store = createRedisChats(client, 'junk:', () => 7);
    const hash = Object.fromEntries(
      Object.entries(fields).map(([k, v]) => [k === 'id' ? 'key' : k, v === 'ID' ? chatKey(id) : v]),
    );
    await client.hset(`junk:chat:${chatKey(id)}`, hash);
    expect(await store.touch(id)).toBeUndefined();
  });

  it('a key of the wrong type is an unknown chat too', async () => {
    const store = createRedisChats(client, 'wrongtype:', () => 8);
    await client.set(`wrongtype:chat:${chatKey('abc')}`, 'a string, not a hash');
    expect(await store.touch('abc')).toBeUndefined();
  });
});
