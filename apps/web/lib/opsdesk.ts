import { type HttpServing, issueToken, serveHttp } from '@elicitkit/opsdesk';
import { config } from './config';

/**
 * The people a chat may act as on the bundled opsdesk: the seeded `alice` (every project) and
 * `bob` (`search-service` only), and `owner`, a local owner who sees everything — what a chat was
 * under stdio, and still its default.
 */
export const DEMO_USERS = ['alice', 'bob', 'owner'] as const;
export type DemoUser = (typeof DEMO_USERS)[number];
export const DEFAULT_USER: DemoUser = 'owner';

/** The one opsdesk of this web app: its MCP endpoint and a bearer token per demo user. */
export interface OpsdeskHost {
  url: string;
  /** The endpoint in this process (no socket): the chats' MCP clients send through it. */
  fetch: typeof fetch;
  serving: HttpServing;
  token(user: DemoUser): string;
}

const KEY = Symbol.for('elicitkit.web.opsdesk');

/**
 * Starts opsdesk once per web app process, in process, on a free loopback port: one SQLite
 * database, one shop process and one password page for every chat, instead of a child per chat.
 * Each chat is its own MCP client on it (2026-07-28, stateless on the server), acting as its
 * user through that user's token, and reaching it in process through `serving.fetch`: the same
 * handler as the port, without a socket or an HTTP parser (most of an answer's cost before). The
 * port still serves the password page to the browser. Tokens are minted at start and never leave
 * this process.
 */
export function opsdeskHost(): Promise<OpsdeskHost> {
  const g = globalThis as { [KEY]?: Promise<OpsdeskHost> | undefined };
  g[KEY] ??= start().catch((error: unknown) => {
    g[KEY] = undefined; // a failed start (a broken data directory) is tried again on the next chat
    throw error;
  });
  return g[KEY];
}

async function start(): Promise<OpsdeskHost> {
  const { dataDir, lang, questionTimeoutMs } = config();
  // opsdesk's own deadline stays behind the page's, so the page says "expired" first: both run
  // from when the question was asked (the page's from when it arrived, `timeoutFrom: 'received'`).
  // Its chats act through tokens of their own: the operator's first-start tokens are left to the
  // first `elicitkit serve --http` on this data, which prints them.
  const serving = await serveHttp({
    dataDir,
    locale: lang,
    port: 0,
    timeoutMs: questionTimeoutMs + 30_000,
    tokens: 'none',
  });
  const tokens = new Map<string, string>();
  try {
    for (const user of DEMO_USERS) tokens.set(user, await issueToken(serving.opsdesk.store, user));
  } catch (error) {
    // The database refused (another process holding its lock past the wait, a full disk): this
    // start fails whole, closed — the next chat tries again; a host left listening here would be
    // one more port, database and shop held per chat, for the life of the process.
    await serving.close().catch(() => {});
    throw error;
  }
  return {
    url: serving.url,
    fetch: serving.fetch,
    serving,
    token: (user) => tokens.get(user) as string,
  };
}

/** Stops the bundled opsdesk if it was started (tests, shutdown). */
export async function stopOpsdesk(): Promise<void> {
  const g = globalThis as { [KEY]?: Promise<OpsdeskHost> | undefined };
  const host = await g[KEY]?.catch(() => undefined);
  g[KEY] = undefined;
  await host?.serving.close();
}
