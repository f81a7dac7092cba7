import { randomBytes } from 'node:crypto';
import { createMemoryRegistry, type PendingRegistry } from '@elicitkit/client';
import type { ElicitAction } from '@elicitkit/form';
import type { Client } from '@modelcontextprotocol/client';
import type { UIMessageStreamWriter } from 'ai';
import { config } from './config';
import type { ElicitationData } from './wire';

/** A chat's connection to one MCP server. */
export interface Connection {
  client: Client;
  close(): Promise<void>;
}

/** One browser chat: its cookie, its CSRF token, its MCP connections and the stream it is reading. */
export interface Chat {
  id: string;
  csrf: string;
  lastSeen: number;
  /** The chat response being streamed: where questions are delivered. One at a time. */
  writer: UIMessageStreamWriter | undefined;
  connections: Map<string, Promise<Connection>>;
  questions: Map<string, ElicitationData>;
  /** What the person answered, recorded just before the pending entry is resolved. */
  answered: Map<string, ElicitAction>;
  /**
   * The demo identity the bundled opsdesk acts as (`alice`, `bob`), or `undefined` for the local
   * owner. A demo switch, not authentication (README): whoever holds the page may pick any.
   */
  user: string | undefined;
  /** The page's language, which the bundled opsdesk speaks unless ELICITKIT_LANG fixes it. */
  lang: 'en' | 'zh' | undefined;
}

interface State {
  chats: Map<string, Chat>;
  /** Which chat each question was published to (to tell "not yours" from "no such question"). */
  owners: Map<string, string>;
  registry: PendingRegistry;
  sweeper?: ReturnType<typeof setInterval>;
}

const KEY = Symbol.for('elicitkit.web.state');
const IDLE_MS = 60 * 60_000;

/** Process-wide state, kept on globalThis so every route (and a dev reload) shares one copy. */
export function state(): State {
  const g = globalThis as { [KEY]?: State };
  if (!g[KEY]) {
    const s: State = {
      chats: new Map(),
      owners: new Map(),
      registry: createMemoryRegistry({ timeoutMs: config().questionTimeoutMs }),
    };
    s.sweeper = setInterval(() => void sweep(s), 60_000);
    s.sweeper.unref();
    g[KEY] = s;
  }
  return g[KEY];
}

async function sweep(s: State): Promise<void> {
  const cutoff = Date.now() - IDLE_MS;
  for (const [id, chat] of s.chats) {
    if (chat.lastSeen >= cutoff || chat.writer) continue;
    s.chats.delete(id);
    for (const q of chat.questions.keys()) s.owners.delete(q);
    await closeChat(chat);
  }
}

/** Closes the chat's MCP connections; the next use opens new ones (e.g. as another identity). */
export async function closeChat(chat: Chat): Promise<void> {
  // Forgotten first, closed after: a call that starts meanwhile opens a new connection, never a closing one.
  const closing = [...chat.connections.values()];
  chat.connections.clear();
  await Promise.all(closing.map(async (c) => (await c.catch(() => undefined))?.close()));
}

const COOKIE = 'ek_session';

export function createChat(): Chat {
  const chat: Chat = {
    id: randomBytes(24).toString('base64url'),
    csrf: randomBytes(24).toString('base64url'),
    lastSeen: Date.now(),
    writer: undefined,
    connections: new Map(),
    questions: new Map(),
    answered: new Map(),
    user: undefined,
    lang: undefined,
  };
  state().chats.set(chat.id, chat);
  return chat;
}

/** The chat named by the request's cookie, if it exists. */
export function chatOf(request: Request): Chat | undefined {
  const cookie = request.headers.get('cookie') ?? '';
  const id = new RegExp(`(?:^|;\\s*)${COOKIE}=([A-Za-z0-9_-]+)`).exec(cookie)?.[1];
  const chat = id ? state().chats.get(id) : undefined;
  if (chat) chat.lastSeen = Date.now();
  return chat;
}

export function chatCookie(chat: Chat): string {
  return `${COOKIE}=${chat.id}; Path=/; HttpOnly; SameSite=Strict`;
}
