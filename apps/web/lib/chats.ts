import { createHash, createHmac, randomBytes } from 'node:crypto';
import type { DemoUser } from './opsdesk';

/** What every replica knows of a browser chat: its cookie id, its CSRF token, who it acts as. */
export interface ChatRecord {
  id: string;
  csrf: string;
  user: DemoUser;
  /** The client address that opened it (for the per-address cap). */
  address: string;
  lastSeen: number;
  /**
   * What its question budget is counted under (`Stores.budget`): `chatKey` of the chat as first
   * opened, carried to the chat a change of identity makes (`rotate`), so a switch is no way to a
   * fresh budget.
   */
  budget: string;
}

/** Caps on open chats; a new chat past either is refused. */
export interface ChatLimits {
  perAddress: number;
  total: number;
}

/** A new chat, or which cap refused it. */
export type OpenedChat = { ok: true; chat: ChatRecord } | { ok: false; limit: 'address' | 'total'; max: number };

/**
 * Where chats live: this process (`createMemoryChats`) or Redis (`createRedisChats`, shared by
 * every replica). Opening checks the caps and adds the chat in one step.
 */
export interface ChatStore {
  open(address: string, user: DemoUser, limits: ChatLimits): Promise<OpenedChat>;
  /** The chat, with `lastSeen` moved to now; `undefined` when unknown or closed. */
  touch(id: string): Promise<ChatRecord | undefined>;
  /** Whether the chat is open, without marking it used. */
  has(id: string): Promise<boolean>;
  /**
   * Replaces the chat by a new one acting as `user` (a change of identity): a new id and token, the
   * same address and budget, no page yet (the one that asked `visit`s it: another tab still holds
   * the old token, refused now, and counts again once it loads the new chat); the old one is gone in
   * the same step (its id names no chat, its key owns no new question). Undefined when it is not open.
   */
  rotate(id: string, user: DemoUser): Promise<ChatRecord | undefined>;
  /**
   * Counts one more page of the chat — every tab of the browser sends its cookie, so every tab
   * shows the same chat — and names it: the page's leaving is counted by that name, once. Past
   * `MAX_PAGES` a page is counted but not named (`''`): its leaving is never counted, so the chat
   * waits for its idle time rather than end under a page still showing it. Undefined when the chat
   * is not open. `known`: the name the page was given already, if it was (the same document
   * mounting again — a client-side navigation back, React's strict mode): still one of the chat's
   * pages, it is that page, not another one counted.
   */
  visit(id: string, known?: string): Promise<string | undefined>;
  /**
   * Counts the page `page` of the chat (by its key) gone, and says how many are left: the chat
   * ends when none is. Negative when the chat is not open or the page is not one of its own (never
   * named, or gone already: a second beacon from one page counts nothing).
   */
  leave(key: string, page: string): Promise<number>;
  /** Closes the chat by its key (`chatKey`); false when it was not open. */
  remove(key: string): Promise<boolean>;
  /** The keys (`chatKey`) of chats last seen before `cutoff` (epoch ms). */
  idle(cutoff: number): Promise<string[]>;
  close(): Promise<void>;
}

/**
 * Pages one chat names at most (`ChatStore.visit`): a page that reloads in a loop, or tabs that
 * crash and never say goodbye, cannot grow what the store keeps for one chat past this.
 */
export const MAX_PAGES = 64;

/** A page's name: unguessable, and no secret (it is worth nothing without the chat's cookie and token). */
export const newPage = (): string => randomBytes(12).toString('base64url');

/** A new chat: its id unguessable, cookie- and header-safe; its CSRF token derived from it. */
export function newChat(address: string, user: DemoUser, now: number): ChatRecord {
  const id = randomBytes(24).toString('base64url');
  return { id, csrf: csrfOf(id), user, address, lastSeen: now, budget: chatKey(id) };
}

/**
 * A chat's CSRF token: an HMAC keyed by its (secret) id, so it is stored nowhere — a store that
 * leaks (Redis, read by anyone on its network) holds no token to send with a forged request — and
 * every replica computes the same one from the cookie.
 *
 * @example
 * csrfOf(chat.id) === request.headers.get('x-elicitkit-csrf')
 */
export function csrfOf(id: string): string {
  return createHmac('sha256', id).update('elicitkit web csrf v1').digest('base64url');
}

/**
 * What shared state knows a chat by: a digest of its id. The id is the session cookie — a secret
 * that grants the chat — so it is never written where others may read it (Redis keys, the
 * registry's question owners); a replica holding the cookie computes the same key.
 *
 * @example
 * registry.list(chatKey(chat.id))
 */
export function chatKey(id: string): string {
  return createHash('sha256').update(id).digest('base64url');
}

/** Chats in this process's memory: the default, for one web app process. */
export function createMemoryChats(now: () => number = Date.now): ChatStore {
  const chats = new Map<string, ChatRecord>();
  const perAddress = new Map<string, number>();
  /** Pages showing each chat, by key: how many, and the names of those whose leaving counts. */
  const pages = new Map<string, { count: number; named: Set<string> }>();
  return {
    async open(address, user, limits) {
      const mine = perAddress.get(address) ?? 0;
      if (mine >= limits.perAddress) return { ok: false, limit: 'address', max: limits.perAddress };
      if (chats.size >= limits.total) return { ok: false, limit: 'total', max: limits.total };
      const chat = newChat(address, user, now());
      chats.set(chatKey(chat.id), chat);
      pages.set(chatKey(chat.id), { count: 0, named: new Set() });
      perAddress.set(address, mine + 1);
      return { ok: true, chat: { ...chat } };
    },
    async touch(id) {
      const chat = chats.get(chatKey(id));
      if (!chat) return undefined;
      chat.lastSeen = now();
      return { ...chat };
    },
    async has(id) {
      return chats.has(chatKey(id));
    },
    async rotate(id, user) {
      const key = chatKey(id);
      const old = chats.get(key);
      if (!old) return undefined;
      const chat = { ...newChat(old.address, user, now()), budget: old.budget };
      chats.delete(key);
      chats.set(chatKey(chat.id), chat);
      pages.set(chatKey(chat.id), { count: 0, named: new Set() });
      pages.delete(key);
      return { ...chat };
    },
    async visit(id, known) {
      const shown = pages.get(chatKey(id));
      if (!shown) return undefined;
      if (known && shown.named.has(known)) return known;
      shown.count += 1;
      if (shown.count > MAX_PAGES) return '';
      const page = newPage();
      shown.named.add(page);
      return page;
    },
    async leave(key, page) {
      const shown = pages.get(key);
      if (!shown?.named.delete(page)) return -1;
      shown.count -= 1;
      return shown.count;
    },
    async remove(key) {
      const chat = chats.get(key);
      if (!chat) return false;
      chats.delete(key);
      pages.delete(key);
      const left = (perAddress.get(chat.address) ?? 1) - 1;
      if (left > 0) perAddress.set(chat.address, left);
      else perAddress.delete(chat.address);
      return true;
    },
    async idle(cutoff) {
      return [...chats.entries()].filter(([, c]) => c.lastSeen < cutoff).map(([key]) => key);
    },
    async close() {},
  };
}
