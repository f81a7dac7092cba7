import { createMemoryRegistry, createRateLimiter, type RateLimiter } from '@elicitkit/client';
import type { Client } from '@modelcontextprotocol/client';
import type { UIMessageStreamWriter } from 'ai';
import type { RunningCall } from './call-questions';
import { type ChatRecord, chatKey, createMemoryChats, type OpenedChat } from './chats';
import { config } from './config';
import { overHttps } from './hosts';
import { DEFAULT_USER, type DemoUser } from './opsdesk';
import { redisState } from './redis-state';
import type { ToolList } from './shared-tools';
import { QUESTION_BUDGET, type Stores } from './stores';
import { createMemoryTurns, type TurnHold } from './turns';

/** A chat's connection to one MCP server. */
export interface Connection {
  client: Client;
  close(): Promise<void>;
  /** How many POSTs the server has answered on this connection (HTTP; 0 for stdio). */
  answered(): number;
  /**
   * The tools this connection last listed (the shared copy, `internTools`): what its calls are
   * checked against (output schema, `Mcp-Param-*` headers). Unset until it lists.
   */
  tools?: ToolList;
}

/**
 * One browser chat as this process runs it: the shared record (cookie id, CSRF token, user) and
 * what only the process holding its stream has — the stream and the MCP connections. Its
 * questions are the registry's entries owned by `id`.
 */
export interface Chat {
  id: string;
  /** What shared state knows it by (`chatKey(id)`): its questions' owner in the registry. */
  key: string;
  csrf: string;
  user: DemoUser;
  /** The chat response being streamed: where questions are delivered. One at a time. */
  writer: UIMessageStreamWriter | undefined;
  /**
   * A turn was taken and has not ended: set, before anything is awaited, by the request that
   * starts it (`writer` comes later, once its stream runs), so two turns posted at once cannot
   * both start; cleared when its stream finishes or it is refused (`takeTurn`, `endTurn`).
   */
  turn: boolean;
  /** The chat's mark in `Stores.turns` while this process holds its turn: what every instance checks. */
  hold?: TurnHold | undefined;
  connections: Map<string, Promise<Connection>>;
  /**
   * How many questions each configured server has asked this chat lately (`QUESTION_BUDGET`, by
   * server name): the chat's, not a connection's, so a server that restarts, or a switch of
   * user (a new chat that takes this budget, `switchChatUser`), does not get a fresh budget — and
   * with Redis not an instance's either (`Stores.budget`, under `ChatRecord.budget`).
   */
  budget: RateLimiter;
  /**
   * Tool calls running, with the questions each may have asked: when one ends, those no other call
   * holds are withdrawn; closing lets a withdrawn question's call end as cancelled.
   */
  calls: Set<RunningCall>;
  /**
   * Set when the chat is closed (its page's beacon, possibly from another tab, or the idle sweep)
   * while this object may still be held by a turn whose stream runs on: nothing may open a
   * connection for it again, since nothing would close it, nor show a question nobody may answer.
   */
  ended?: boolean;
}

export { overHttps, QUESTION_BUDGET };

/** How long closing a chat waits for its calls to end after their questions were withdrawn. */
const CALLS_SETTLE_MS = 2_000;

/** The web app's state: where chats and questions are kept, and the chats this process runs. */
export interface State extends Stores {
  /** Chats with a stream or connections in this process. */
  local: Map<string, Chat>;
  sweeper?: ReturnType<typeof setInterval>;
}

const KEY = Symbol.for('elicitkit.web.state');

function memoryState(): Stores {
  return {
    chats: createMemoryChats(),
    registry: createMemoryRegistry({ timeoutMs: config().questionTimeoutMs }),
    budget: () => createRateLimiter(QUESTION_BUDGET),
    turns: createMemoryTurns(),
    close: async () => {},
  };
}

/** Process-wide state, kept on globalThis so every route (and a dev reload) shares one copy. */
export function state(): State {
  const g = globalThis as { [KEY]?: State };
  if (!g[KEY]) {
    const s: State = { ...(config().redisUrl ? redisState() : memoryState()), local: new Map() };
    const every = Math.min(60_000, Math.max(250, Math.floor(config().chatIdleMs / 4)));
    s.sweeper = setInterval(() => void sweep(s).catch(() => undefined), every);
    s.sweeper.unref();
    g[KEY] = s;
  }
  return g[KEY];
}

/** Closes every chat this process runs and forgets the state (tests, shutdown). */
export async function resetState(): Promise<void> {
  const g = globalThis as { [KEY]?: State | undefined };
  const s = g[KEY];
  if (!s) return;
  g[KEY] = undefined;
  clearInterval(s.sweeper);
  await Promise.all([...s.local.keys()].map((id) => closeChat(id, s)));
  await s.close();
}

/**
 * Closes chats nobody has used for `chatIdleMs`. A chat with a turn running here is in use even
 * when its page sends nothing (the person may be reading a question), so it is touched first.
 */
export async function sweep(s: State = state(), now = Date.now()): Promise<string[]> {
  for (const chat of s.local.values()) if (chat.writer) await s.chats.touch(chat.id);
  const local = new Map([...s.local.values()].map((chat) => [chat.key, chat]));
  const idle = (await s.chats.idle(now - config().chatIdleMs)).filter((key) => !local.get(key)?.writer);
  await Promise.all(idle.map((key) => closeChatByKey(key, local.get(key)?.id, s)));
  // Chats another replica closed: drop what this process still holds for them.
  for (const id of s.local.keys()) if (!(await s.chats.has(id))) await closeChat(id, s);
  return idle;
}

/**
 * Ends a chat: its open questions are withdrawn (their tool calls end as cancelled), its MCP
 * connections closed, its record removed. True when it was open.
 */
export async function closeChat(id: string, s: State = state()): Promise<boolean> {
  return closeChatByKey(chatKey(id), id, s);
}

/** `closeChat` for a chat known here by its key only (another replica's idle chat) or by both. */
async function closeChatByKey(key: string, id: string | undefined, s: State): Promise<boolean> {
  const running = id === undefined ? undefined : s.local.get(id);
  // Before anything is awaited: a running turn's next call must not open what is being closed.
  if (running) running.ended = true;
  const removed = await s.chats.remove(key);
  for (const entry of await s.registry.list(key)) if (!entry.settlement) await s.registry.withdraw(entry.id);
  // Read again: a request that found the chat open meanwhile may have made this process's copy.
  const chat = id === undefined ? undefined : s.local.get(id);
  if (chat) chat.ended = true;
  if (id !== undefined) s.local.delete(id);
  if (chat) {
    // A withdrawn question's call goes on to its cancelled result (and opsdesk's audit records it).
    await Promise.race([
      Promise.allSettled([...chat.calls].map((call) => call.done)),
      new Promise((resolve) => setTimeout(resolve, CALLS_SETTLE_MS).unref()),
    ]);
    await closeConnections(chat);
  }
  return removed;
}

async function closeConnections(chat: Chat): Promise<void> {
  const open = [...chat.connections.values()];
  chat.connections.clear();
  await Promise.all(open.map(async (c) => (await c.catch(() => undefined))?.close()));
}

/** Opens a new chat for `address`, or says which cap refused it. */
export async function createChat(address: string, user: DemoUser = DEFAULT_USER): Promise<OpenedChat> {
  const { maxChatsPerAddress, maxChats } = config();
  return state().chats.open(address, user, { perAddress: maxChatsPerAddress, total: maxChats });
}

/**
 * Makes the chat act as `user` on the bundled opsdesk, as a new chat: a new id (the cookie) and
 * CSRF token, the same question budget. The old chat is closed — its open questions withdrawn, its
 * MCP connections closed, its id naming no chat — so nothing of one identity's chat (a page still
 * showing it, a question asked in it, the audit page by its cookie) acts or reads as the next.
 * The caller holds the old chat's turn. For a picker of demo identities; undefined when the chat
 * is not open.
 *
 * @example
 * const next = await switchChatUser(chat, 'bob'); // set next.id as the cookie; bob sees search-service only
 */
export async function switchChatUser(chat: Chat, user: DemoUser): Promise<ChatRecord | undefined> {
  const s = state();
  const next = await s.chats.rotate(chat.id, user);
  if (!next) return undefined;
  // The budget goes with it: in memory it is this object, with Redis it is counted under `next.budget`.
  s.local.set(next.id, { ...freshChat(next, s), budget: chat.budget });
  // The old chat is gone from the store already; close what this process holds of it.
  await closeChatByKey(chat.key, chat.id, s);
  return next;
}

/**
 * Takes the chat's turn, here and in `Stores.turns` (with Redis, on every instance): false when
 * a turn runs — on this instance or another — or a change of user is under way. The flag is set
 * before anything is awaited, so of two requests at once on one instance the second is refused
 * without asking the store. Every taken turn is ended by `endTurn`.
 *
 * @example
 * if (!(await takeTurn(chat))) return Response.json({ error: 'A turn is running in this chat.' }, { status: 409 });
 */
export async function takeTurn(chat: Chat): Promise<boolean> {
  if (chat.turn || chat.writer) return false;
  chat.turn = true;
  try {
    chat.hold = await state().turns.take(chat.key);
  } catch (error) {
    chat.turn = false;
    throw error;
  }
  if (!chat.hold) chat.turn = false;
  return chat.hold !== undefined;
}

/** Ends the chat's turn taken by `takeTurn`, however it ended: its mark is removed (only its own). */
export async function endTurn(chat: Chat): Promise<void> {
  const hold = chat.hold;
  chat.hold = undefined;
  chat.writer = undefined;
  chat.turn = false;
  // A mark Redis did not remove lapses with its lease: nothing else to do about it.
  await hold?.release().catch(() => undefined);
}

/**
 * The cookie that names a browser's chat on plain http (loopback, the default): its id
 * (HttpOnly, SameSite=Strict, for the browser session). Over https it is `SECURE_CHAT_COOKIE`.
 */
export const CHAT_COOKIE = 'ek_chat';
/**
 * The chat cookie of a page served over https (`overHttps`): `__Host-` makes the browser take it
 * only when it is `Secure`, for `Path=/`, without `Domain`, and set by this host over https — so a
 * sibling subdomain (`Domain=` the parent) or a plain-http response on the way cannot set or
 * overwrite it (cookie tossing), and a chat of the attacker's cannot be fixed on the person.
 */
export const SECURE_CHAT_COOKIE = '__Host-ek_chat';
/**
 * @deprecated The chat cookie's name before it was `ek_chat`: still read on plain http (a browser
 * may hold it from before the rename), never written; `GET /api/chat/info` replaces it with
 * `CHAT_COOKIE`. Remove after the next release.
 */
export const LEGACY_CHAT_COOKIE = 'ek_session';

function cookieValue(request: Request, name: string): string | undefined {
  const cookie = request.headers.get('cookie') ?? '';
  return new RegExp(`(?:^|;\\s*)${name}=([A-Za-z0-9_-]+)`).exec(cookie)?.[1];
}

/**
 * The chat id the request's cookie carries. Over https only `__Host-ek_chat`: a cookie under
 * another name may have been set by someone else (a sibling subdomain, an http response), so it
 * names no chat there. On plain http `ek_chat`, else the deprecated `ek_session`.
 */
export function cookieId(request: Request): string | undefined {
  if (overHttps(request)) return cookieValue(request, SECURE_CHAT_COOKIE);
  return cookieValue(request, CHAT_COOKIE) ?? cookieValue(request, LEGACY_CHAT_COOKIE);
}

/** The chat named by the request's cookie, if it is open; marks it as used now. */
export async function chatOf(request: Request): Promise<Chat | undefined> {
  const id = cookieId(request);
  if (!id) return undefined;
  const s = state();
  const record = await s.chats.touch(id);
  if (!record) return undefined;
  return localChat(record, s);
}

function localChat(record: ChatRecord, s: State): Chat {
  let chat = s.local.get(record.id);
  if (!chat) {
    chat = freshChat(record, s);
    s.local.set(record.id, chat);
  }
  return chat;
}

/** This process's copy of a chat it holds nothing of yet. */
function freshChat(record: ChatRecord, s: State): Chat {
  return {
    id: record.id,
    key: chatKey(record.id),
    csrf: record.csrf,
    user: record.user,
    writer: undefined,
    turn: false,
    connections: new Map(),
    budget: s.budget(record.budget),
    calls: new Set(),
  };
}

/**
 * The `set-cookie` values that leave the browser holding `chat` under the chat cookie of the
 * request's scheme (`SECURE_CHAT_COOKIE` over https, `CHAT_COOKIE` on http) and nothing under
 * the other names: none when its request already names the chat that way.
 *
 * @example
 * for (const cookie of chatCookies(chat, request)) headers.append('set-cookie', cookie);
 */
export function chatCookies(chat: { id: string }, request: Request): string[] {
  const name = chatCookieName(request);
  const out: string[] = [];
  if (cookieValue(request, name) !== chat.id) out.push(`${name}=${chat.id}; ${ATTRIBUTES}${secure(request)}`);
  return [...out, ...otherChatCookies(request, name)];
}

/** The `set-cookie` values that forget a closed chat: its cookie, and any other chat cookie the request had. */
export function closedChatCookies(request: Request): string[] {
  const name = chatCookieName(request);
  return [clearedCookie(name, request), ...otherChatCookies(request, name)];
}

const ATTRIBUTES = 'Path=/; HttpOnly; SameSite=Strict';

/** The chat cookie of the request's scheme. */
function chatCookieName(request: Request): string {
  return overHttps(request) ? SECURE_CHAT_COOKIE : CHAT_COOKIE;
}

/** Clearings of the chat cookies other than `name` that the request carries. */
function otherChatCookies(request: Request, name: string): string[] {
  return [SECURE_CHAT_COOKIE, CHAT_COOKIE, LEGACY_CHAT_COOKIE]
    .filter((other) => other !== name && cookieValue(request, other) !== undefined)
    .map((other) => clearedCookie(other, request));
}

function clearedCookie(name: string, request: Request): string {
  return `${name}=; ${ATTRIBUTES}; Max-Age=0${secure(request)}`;
}

/**
 * `; Secure` for a page served over https (`overHttps`): the cookie is the chat, and without it
 * the browser sends it along on any plain http request to the host (the first request before a
 * redirect to https), readable on the way.
 */
function secure(request: Request): string {
  return overHttps(request) ? '; Secure' : '';
}
