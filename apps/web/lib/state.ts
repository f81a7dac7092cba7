import { randomBytes } from 'node:crypto';
import { createMemoryRegistry, type PendingRegistry } from '@elicitkit/client';
import type { Client } from '@modelcontextprotocol/client';
import type { UIMessageStreamWriter } from 'ai';
import { config } from './config';
import type { ElicitationData } from './wire';

export type { ElicitationData };

export interface Connection {
  client: Client;
  close(): Promise<void>;
}

/** One browser chat: its cookie, its CSRF token, its MCP connections and the stream it is reading. */
export interface Session {
  id: string;
  csrf: string;
  lastSeen: number;
  /** The chat response being streamed: where questions are delivered. One at a time. */
  writer: UIMessageStreamWriter | undefined;
  connections: Map<string, Promise<Connection>>;
  questions: Map<string, ElicitationData>;
  /** What the person answered, recorded just before the pending entry is resolved. */
  answered: Map<string, 'accept' | 'decline' | 'cancel'>;
}

interface State {
  sessions: Map<string, Session>;
  /** Which session each question was published to (to tell "not yours" from "no such question"). */
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
      sessions: new Map(),
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
  for (const [id, session] of s.sessions) {
    if (session.lastSeen >= cutoff || session.writer) continue;
    s.sessions.delete(id);
    for (const q of session.questions.keys()) s.owners.delete(q);
    await closeSession(session);
  }
}

export async function closeSession(session: Session): Promise<void> {
  await Promise.all([...session.connections.values()].map(async (c) => (await c.catch(() => undefined))?.close()));
  session.connections.clear();
}

export const COOKIE = 'ek_session';

export function createSession(): Session {
  const session: Session = {
    id: randomBytes(24).toString('base64url'),
    csrf: randomBytes(24).toString('base64url'),
    lastSeen: Date.now(),
    writer: undefined,
    connections: new Map(),
    questions: new Map(),
    answered: new Map(),
  };
  state().sessions.set(session.id, session);
  return session;
}

/** The session named by the request's cookie, if it exists. */
export function sessionOf(request: Request): Session | undefined {
  const cookie = request.headers.get('cookie') ?? '';
  const id = new RegExp(`(?:^|;\\s*)${COOKIE}=([A-Za-z0-9_-]+)`).exec(cookie)?.[1];
  const session = id ? state().sessions.get(id) : undefined;
  if (session) session.lastSeen = Date.now();
  return session;
}

export function sessionCookie(session: Session): string {
  return `${COOKIE}=${session.id}; Path=/; HttpOnly; SameSite=Strict`;
}
