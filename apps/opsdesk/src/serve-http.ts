import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Locale } from '@elicitkit/server';
import { createHttpHandler, type HttpHandler, type HttpHandlerOptions } from '@elicitkit/server';
import { toNodeListener } from '@elicitkit/server/node';
import type { RedisRelay } from '@elicitkit/server/redis';
import { toNodeHandler } from '@modelcontextprotocol/node';
import { type AuthInfo, INTERNAL_ERROR } from '@modelcontextprotocol/server';
import { closeEach } from './close-each.js';
import type { Query } from './db/query.js';
import type { Store } from './db/store.js';
import {
  accountIdentity,
  createToken,
  hasOperatorTokens,
  issueToken,
  listUsers,
  revokeOperatorTokens,
  userForToken,
} from './identity.js';
import { createOpsdesk, type Opsdesk } from './opsdesk.js';
import { createInFlight, type InFlight, inProcessFetch } from './web/in-process.js';
import { badRequest, internalError, logError, pathOf, routeName } from './web/last-resort.js';
import { notFound, servePasswordPage } from './web/page-route.js';
import { servedHosts } from './web/served-hosts.js';

/** How `serveHttp` runs. */
export interface ServeHttpOptions {
  dataDir: string;
  /** A Postgres URL for opsdesk's own state (replicas on several hosts); default SQLite in `dataDir`. */
  database?: string;
  locale: Locale;
  /** 0 picks a free port. */
  port: number;
  /** Loopback by default; opsdesk is a local reference server. A wildcard (`0.0.0.0`, `::`) needs `allowedHosts`. */
  host?: string;
  /**
   * The host names or addresses clients reach this server by (`ops.example.com`, `10.0.0.7`, no
   * port), besides loopback and `host` itself: requests naming any other host are refused (DNS
   * rebinding), on `/mcp` and the password page. Required when `host` is a wildcard, whose clients
   * come by names opsdesk cannot know; the first is then the host `url` and the password links name.
   */
  allowedHosts?: string[];
  timeoutMs?: number;
  urlWaitMs?: number;
  /**
   * Several replicas: the Redis URL they share. 2025 sessions held by other replicas are relayed
   * through it; claims stay in opsdesk's database with the effects they guard, so replicas share
   * that database: one `dataDir` on one host, or one Postgres `database` across hosts.
   */
  redis?: string;
  /**
   * With `redis`: relay 2025 sessions on direct TCP connections between replicas (Redis stays the
   * directory, and the way while a connection is not up): where this replica listens for the
   * others, and the `host:port` they reach it at (`advertise`, needed when `host` is a wildcard).
   */
  relayDirect?: { host?: string; port?: number; advertise?: string };
  /** The requestState key (≥ 32 characters); default: the one in the data directory. */
  secret?: string;
  /**
   * The bearer tokens this start mints, each printed once (`newTokens`) and stored hashed:
   * `first-start` (default), one per user when no operator's token is stored yet; `new`, one per
   * user whatever is stored, every operator's token minted before revoked in the same transaction
   * (lost tokens; the tokens hosts hold for themselves are left alone); `none`, for a host that
   * acts through tokens of its own (`issueToken`: the web app), which would mint first-start tokens
   * only to never show them — and the operator's first `serve --http` on that data would print none.
   */
  tokens?: 'first-start' | 'new' | 'none';
  /** Caps on 2025 sessions, per user and in all (defaults: the handler's, 100 per user, 1000 in all). */
  limits?: Pick<HttpHandlerOptions, 'maxSessions' | 'maxSessionsPerIdentity' | 'maxInFlightPerIdentity'>;
  /**
   * Told of an error no handler answered (the client only gets a generic JSON-RPC internal error:
   * the detail may name files, SQL or what the request carried), and, with `redis`, of what went
   * wrong with a relay (`where` is `relay`: a relay this replica asked for that failed, or an error
   * a request relayed from another replica raised here). Default: one line to stderr.
   */
  onError?: (error: unknown, where: string) => void;
}

/** opsdesk on an HTTP port: the MCP endpoint and the password page. */
export interface HttpServing {
  /** The MCP endpoint, at the bound address (on a wildcard bind, at the first of `allowedHosts`). */
  url: string;
  /**
   * The same endpoint for a client in this process (the web app's chats), without a socket: pass
   * it as the SDK transport's `fetch`, with `url`. Tokens, limits and shutdown as over HTTP.
   */
  fetch: typeof fetch;
  port: number;
  opsdesk: Opsdesk;
  /** Tokens created by this start (see `tokens`: on the first start by default): print them once, they are stored hashed. */
  newTokens: { username: string; token: string }[];
  /** Open 2025 sessions. */
  sessions(): number;
  /** With `relayDirect`: the `host:port` other replicas connect to this one at. */
  relayAddress: string | undefined;
  /**
   * Adds `username` as an owner who sees every project (when not there yet) and returns a new bearer
   * token for them: for throw-away servers that give each client its own identity (doctor, tests).
   */
  ownerToken(username: string): Promise<string>;
  /** Stops accepting, lets requests in flight finish, then closes sessions and the database. */
  close(): Promise<void>;
}

const DRAIN_MS = 10_000;
/**
 * Connections the kernel may queue before opsdesk accepts them (capped by `net.core.somaxconn`).
 * Node's default, 511, is below the 1,000 sessions one server holds: when those clients all
 * answer at once, each answer opens a connection (their own is busy streaming the call), the
 * queue overflows and every dropped SYN costs that client a 1 s retransmit.
 */
const LISTEN_BACKLOG = 4096;

/**
 * Serves opsdesk over HTTP: `/mcp` for every protocol revision (2026-07-28 statelessly, 2025
 * clients in sessions), bearer tokens identifying the caller, and the password page under
 * `/register/…`, all on one port (loopback unless `host` says otherwise).
 *
 * @example
 * const serving = await serveHttp({ dataDir, locale: 'en', port: 7777 });
 * for (const { username, token } of serving.newTokens) console.log(username, token); // first start only
 */
export async function serveHttp(options: ServeHttpOptions): Promise<HttpServing> {
  const host = options.host ?? '127.0.0.1';
  // Checked before anything opens: a wildcard bind with no host named starts nothing.
  const hosts = servedHosts(host, options.allowedHosts);
  // A start fails whole: what it opened so far is closed, last first, before the error goes on —
  // never a process left holding a Redis connection, a database or a port that its caller took
  // for failed (the CLI would print the error and never exit).
  const opened: (() => unknown)[] = [];
  const failed = async (error: unknown): Promise<never> => {
    // The start's own error is the one to report, whatever closing the rest says.
    await closeEach(opened.reverse()).catch(() => {});
    throw error;
  };
  // Loaded only for replicas: a single process (and every stdio start) never loads a Redis client.
  const replicas = options.redis
    ? await (await import('./replicas.js')).connectReplicas(options.redis, options.relayDirect)
    : undefined;
  if (replicas) opened.push(() => replicas.close());
  const opsdesk = await createOpsdesk({
    dataDir: options.dataDir,
    ...(options.database ? { database: options.database } : {}),
    locale: options.locale,
    identify: (ctx) => ctx.http?.authInfo?.clientId,
    ...(options.secret ? { secret: options.secret } : {}),
    ...(options.timeoutMs ? { timeoutMs: options.timeoutMs } : {}),
    ...(options.urlWaitMs ? { urlWaitMs: options.urlWaitMs } : {}),
  }).catch(failed);
  opened.push(() => opsdesk.close());
  // Relay frames are sealed with the state secret: replicas that can open each other's states can
  // speak to each other, and nobody else on the Redis can.
  let relay: RedisRelay | undefined;
  let mcp: HttpHandler;
  try {
    relay = replicas?.relay(opsdesk.secret, (error) => (options.onError ?? logRelayError)(error, 'relay'));
    mcp = createHttpHandler(() => opsdesk.createServer(), {
      authenticate: bearerAuthentication(opsdesk.store),
      allowedHosts: hosts.allowed,
      allowedOrigins: hosts.allowed,
      ...options.limits,
      ...(relay ? { sessions: relay } : {}),
    });
    // A relay that cannot start (its direct port taken, say) leaves nothing open behind it.
    await relay?.serve(mcp);
  } catch (error) {
    return failed(error);
  }
  opened.push(() => mcp.close());
  let closing = false;
  let closed = false;
  const onError = options.onError ?? logError;
  const inFlight = createInFlight(DRAIN_MS);
  const route = router(mcp, opsdesk, options.locale, hosts.allowed, () => closing);
  const server = drainableServer(route, inFlight, onError);
  const port = await listen(server, options.port, host).catch(failed);
  opened.push(() => {
    server.close();
    server.closeAllConnections();
  });
  // Minted only now that clients can reach it: a start that fails before this (a port in use)
  // must not leave tokens stored that were never shown — the next start would show none. A
  // database refusing the mint (gone, full, locked) fails the start, its port let go.
  const mint = options.tokens ?? 'first-start';
  const newTokens =
    mint === 'none' ? [] : await opsdesk.store.transaction(operatorTokens(mint === 'new')).catch(failed);
  const origin = `http://${hosts.inUrls}:${port}`;
  opsdesk.links.setBaseUrl(origin);
  const url = `${origin}/mcp`;

  return {
    url,
    fetch: inProcessFetch({
      url,
      serve: (request) => (closing ? whileClosing(mcp, request) : mcp.fetch(request)),
      closed: () => closed,
      inFlight,
      onError,
    }),
    port,
    opsdesk,
    newTokens,
    sessions: () => mcp.sessionCount(),
    relayAddress: relay?.address,
    ownerToken(username) {
      return issueToken(opsdesk.store, username);
    },
    async close() {
      closing = true;
      await inFlight.drained();
      closed = true;
      // Each step whatever the one before it threw (a full disk failing the database's last write):
      // the Redis connection and the relay's heartbeat are closed too — a replica that reported its
      // failure and went on beating would be taken for alive by the others.
      await closeEach([
        () => server.close(),
        () => mcp.close(),
        () => server.closeAllConnections(),
        () => opsdesk.close(),
        () => replicas?.close(),
      ]);
    },
  };
}

/**
 * A new bearer token for every user, printed once and stored hashed: on the first start (no
 * operator's token stored yet), or `again`, in place of every operator's token minted before.
 */
function* operatorTokens(again: boolean): Query<{ username: string; token: string }[]> {
  if (again) yield* revokeOperatorTokens();
  else if (yield* hasOperatorTokens()) return [];
  const tokens = [];
  for (const { id, username } of yield* listUsers()) tokens.push({ username, token: yield* createToken(id) });
  return tokens;
}

/** Who a request is from: its bearer token's account, or a 401 saying the token is missing or unknown. */
function bearerAuthentication(store: Store): (request: Request) => Promise<AuthInfo | Response> {
  return async (request) => {
    const token = /^Bearer\s+(\S+)$/i.exec(request.headers.get('authorization') ?? '')?.[1];
    const user = token === undefined ? undefined : await store.run(userForToken(token));
    if (token === undefined || !user) {
      return new Response(
        JSON.stringify({
          error: 'invalid_token',
          error_description: token ? 'Unknown bearer token.' : 'A bearer token is required.',
        }),
        {
          status: 401,
          headers: { 'content-type': 'application/json', 'www-authenticate': 'Bearer realm="opsdesk"' },
        },
      );
    }
    // The account, never its name: a 2026-07-28 state, a 2025 session and its caps are bound to
    // this, and a name is taken by the next account registered under it once its account is removed.
    return { token, clientId: accountIdentity(user.id), scopes: [] };
  };
}

type Route = (req: IncomingMessage, res: ServerResponse) => Promise<void>;

/**
 * Where each request goes: `/mcp` to the MCP handler (refusing new work once `closing()`),
 * `/register/…` to the password page, anything else a 404; a target no URL can hold is a 400.
 */
function router(mcp: HttpHandler, opsdesk: Opsdesk, locale: Locale, hosts: string[], closing: () => boolean): Route {
  // Served straight from the socket, one conversion (`toNodeListener`).
  const mcpNode = toNodeListener(mcp);
  // Rare and short, so it takes the Web face, where each body can be looked at before the handler reads it.
  const mcpClosing = toNodeHandler({ fetch: (request: Request) => whileClosing(mcp, request) });
  return async (req, res) => {
    // Every MCP request asks for exactly `/mcp`: no URL to parse for it (≈ 1 % of a call's CPU).
    const path = req.url === '/mcp' ? '/mcp' : pathOf(req.url);
    if (path === undefined) return badRequest(res);
    if (path === '/mcp')
      return closing() ? mcpClosing(req as Parameters<typeof mcpClosing>[0], res) : mcpNode(req, res);
    if (path.startsWith('/register/')) return servePasswordPage(req, res, opsdesk.links, locale, hosts);
    notFound(res);
  };
}

/**
 * The MCP handler while shutting down: new work is refused (503) but the traffic of calls already
 * running (the client's answers to questions, notifications, session streams) still gets through.
 */
async function whileClosing(mcp: HttpHandler, request: Request): Promise<Response> {
  if (request.method === 'POST' && (await startsWork(request))) {
    return new Response(
      JSON.stringify({
        jsonrpc: '2.0',
        error: { code: INTERNAL_ERROR, message: 'opsdesk is shutting down' },
        id: null,
      }),
      { status: 503, headers: { 'content-type': 'application/json', 'retry-after': '5' } },
    );
  }
  return mcp.fetch(request);
}

/**
 * The Node server: each request routed, an error nothing answered handed to `onError` (the client
 * gets a generic internal error), and the requests doing work counted in `inFlight`, so that a
 * shutdown can wait for them.
 */
function drainableServer(route: Route, inFlight: InFlight, onError: (error: unknown, where: string) => void): Server {
  return createServer((req, res) => {
    // Long-lived GET streams do not hold up a shutdown; requests doing work do.
    if (req.method !== 'GET') res.on('close', inFlight.begin());
    route(req, res).catch((error: unknown) => {
      // The last resort: the detail goes to the operator, never to the client.
      onError(error, `${req.method ?? '?'} ${routeName(req.url)}`);
      internalError(res);
    });
  });
}

/** Listens on `host:port` (with opsdesk's backlog) and resolves with the port it got. */
async function listen(server: Server, port: number, host: string): Promise<number> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) =>
      reject(new Error(`opsdesk cannot listen on ${host}:${port}: ${describeListenError(error)}`)),
    );
    server.listen({ port, host, backlog: LISTEN_BACKLOG }, () => resolve());
  });
  return (server.address() as AddressInfo).port;
}

/** Why a port could not be listened on, and what to do about it. */
function describeListenError(error: NodeJS.ErrnoException): string {
  if (error.code === 'EADDRINUSE') return 'EADDRINUSE (another process has it: pick another port, or 0 for a free one)';
  if (error.code === 'EACCES') return 'EACCES (not allowed to use it: ports below 1024 need privileges)';
  if (error.code === 'EADDRNOTAVAIL') return 'EADDRNOTAVAIL (no interface of this machine has that address)';
  return error.code ?? error.message;
}

/** A JSON-RPC request (not a response to one of ours, not a notification) begins new work. */
async function startsWork(request: Request): Promise<boolean> {
  try {
    const body = (await request.clone().json()) as unknown;
    const messages = Array.isArray(body) ? body : [body];
    return messages.some((m) => typeof m === 'object' && m !== null && 'method' in m && 'id' in m);
  } catch {
    return false;
  }
}

/**
 * A relay that failed is said in one line (its client was told as much): the replica it went to,
 * and why. Anything else a relayed request raised is an internal error, logged with its detail.
 * Told apart by `code`, not `instanceof RelayFailedError`: importing that class would load the
 * Redis entry on every start, replicas or not.
 */
function logRelayError(error: unknown, where: string): void {
  if ((error as { code?: unknown }).code === 'RELAY_FAILED')
    process.stderr.write(`opsdesk: ${(error as Error).message}\n`);
  else logError(error, where);
}
