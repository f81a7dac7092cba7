import type { RevisionTraits } from '@elicitkit/form';
import {
  type AuthInfo,
  createMcpHandler,
  DEFAULT_MAX_REQUEST_BODY_SIZE,
  type EventStore,
  hostHeaderValidationResponse,
  isJsonContentType,
  isLegacyRequest,
  localhostAllowedHostnames,
  localhostAllowedOrigins,
  type McpServer,
  originValidationResponse,
  readRequestBody,
  type ServerEventBus,
  type ServerNotifier,
  validateHostHeader,
} from '@modelcontextprotocol/server';
import { forgetSessionEvents } from './event-store.js';
import { type Exchange, INVALID, type ReadBody, SERVE_EXCHANGE, type ServeExchange, TOO_LARGE } from './exchange.js';
import { servingListen } from './listen-context.js';
import {
  HOST_REFUSED,
  jsonRpcError,
  type LimitName,
  PAYLOAD_TOO_LARGE,
  SESSION_NOT_FOUND,
  SESSION_REQUIRED,
  UNSUPPORTED_MEDIA_TYPE,
} from './replies.js';
import type { Delivered, SessionDirectory } from './session-directory.js';
import { openSession, ownerOf, type SessionLeg, serveSession, TransportSessionTable } from './transport-sessions.js';
import { OPENED, opensAtOnce, watchResponse } from './watch.js';

/**
 * Who may call the endpoint, from where, and how much each identity may hold open. The limits and
 * durations are whole numbers (milliseconds for the `…Ms` ones): one out of its range is refused
 * with a `RangeError` naming it when the handler is made.
 */
export interface HttpHandlerOptions {
  /**
   * Who is calling. Return the validated `AuthInfo`, or a `Response` (usually 401) to refuse.
   * Omit for an unauthenticated endpoint (every caller is then one identity for the limits).
   */
  authenticate?: (request: Request) => AuthInfo | Response | Promise<AuthInfo | Response>;
  /** Host header allowlist (DNS-rebinding protection). Default: localhost names. */
  allowedHosts?: string[];
  /** Origin allowlist for browser callers (host names, any scheme and port). Default: localhost origins. */
  allowedOrigins?: string[];
  /**
   * Pages on the allowed origins may call from another origin (CORS): their preflight is answered
   * (before `authenticate`: a preflight carries no credential) and each response lets the page
   * read it, the session id too. Default false: a browser lets only same-origin pages call, so no
   * page on some other port of an allowed host drives the endpoint unless you say so.
   */
  cors?: boolean;
  /** 2025 sessions idle (nothing in flight) longer than this are closed. Default 30 minutes. */
  sessionIdleMs?: number;
  /** Open 2025 sessions in all. Past it a new session only replaces its own identity's idle one. Default 1000. */
  maxSessions?: number;
  /** Open 2025 sessions per identity; past it that identity's least recently used idle session is closed. Default 100. */
  maxSessionsPerIdentity?: number;
  /** Requests in flight per identity on 2025 sessions — each open question is one. Default 100. */
  maxInFlightPerIdentity?: number;
  /**
   * A session whose client dropped a call and keeps no stream open is closed after this long.
   * Default 3 s; with an `eventStore`, 30 s (the client may be reconnecting to resume).
   */
  abandonedSessionMs?: number;
  /**
   * Resumable 2025 streams: each event a session's streams carry is kept here, every stream starts
   * with a priming event (with `retry`), and a client whose stream dropped — in the middle of a
   * question too — reconnects with `Last-Event-ID` and gets what it missed, then the rest. A call
   * whose stream dropped is not ended then; its session is, if the client does not come back
   * (`abandonedSessionMs`). Each session resumes only its own streams. See `createMemoryEventStore`.
   */
  eventStore?: EventStore;
  /** With an `eventStore`: the reconnection delay suggested to clients (SSE `retry`). Default 1000 ms. */
  retryMs?: number;
  /**
   * How often an SSE stream that carries nothing sends a keep-alive comment (`0`: never). A host
   * ends a connection that sends nothing for its idle timeout — Bun.serve's is 10 s by default —
   * and with it the stream a question waits on: the question would end as `cancel`
   * (`disconnected`) while the person still reads it. Keep this below the host's idle timeout.
   * Default 5000 ms.
   */
  keepAliveMs?: number;
  /** Several replicas: where sessions held by other replicas are found (see `SessionDirectory`). */
  sessions?: SessionDirectory;
  /**
   * Where `notify` publishes list changes and where this handler's 2026-07-28
   * `subscriptions/listen` streams hear them. Default: one of this process (the SDK's
   * `InMemoryServerEventBus`). Replicas whose clients should hear each other's changes share one
   * over their own pub/sub (the SDK's `ServerEventBus`).
   */
  bus?: ServerEventBus;
  onerror?: (error: Error) => void;
  now?: () => number;
}

/** A Web-standard endpoint serving every revision on one URL. */
export interface HttpHandler {
  fetch(request: Request): Promise<Response>;
  /**
   * Tells 2026-07-28 clients that the tools, prompts or resources the factory serves changed (or
   * one resource was updated): published on the `bus`, it reaches every `subscriptions/listen`
   * stream that asked for that kind of change, and the next request's fresh server serves the new
   * list. A 2025 session keeps the one server the factory made for it: change the tools on that
   * server (`kit.register`, or a hand-written tool's `RegisteredTool`) and the SDK tells its client
   * itself.
   */
  notify: ServerNotifier;
  /** Open 2025 sessions. */
  sessionCount(): number;
  /** Closes every 2025 session and the stateless 2026-07-28 leg. */
  close(): Promise<void>;
}

/**
 * One `/mcp` endpoint for every client: 2026-07-28 requests are served statelessly (a fresh server
 * per request, answers in the sealed `requestState`), 2025 clients get a real session (so the
 * server can push `elicitation/create` to them), routed by the SDK's own `isLegacyRequest`. Each
 * session is bound to the identity that opened it and counted against that identity's limits: a
 * session with a request in flight is never evicted, nobody's session is closed to make room for
 * someone else, and a request over a limit gets HTTP 429 at once.
 *
 * `factory` makes a server for each 2025 session (`asks: 'push'`: it pushes `elicitation/create`
 * on the session) and for each 2026-07-28 request (`asks: 'input_required'`: it returns questions
 * in results), with the caller's `AuthInfo` when `authenticate` gave one.
 *
 * On Node, serve it with `toNodeListener` (`@elicitkit/server/node`): it reads the body and writes
 * the response without a second conversion.
 *
 * @example
 * const http = createHttpHandler(() => kit.createServer(info, tools), { authenticate });
 * createServer(toNodeListener(http)).listen(7777, '127.0.0.1');
 */
export function createHttpHandler(
  factory: (asks: RevisionTraits['asks'], auth: AuthInfo | undefined) => McpServer,
  options: HttpHandlerOptions = {},
): HttpHandler {
  const hosts = options.allowedHosts ?? localhostAllowedHostnames();
  const origins = options.allowedOrigins ?? localhostAllowedOrigins();
  const now = options.now ?? Date.now;
  const keepAliveMs = whole(options, 'keepAliveMs', KEEP_ALIVE_MS, 0, MAX_TIMER_MS);
  const idleMs = whole(options, 'sessionIdleMs', 30 * 60_000, 1, Number.MAX_SAFE_INTEGER);
  const limits = {
    maxSessions: whole(options, 'maxSessions', 1000, 1, Number.MAX_SAFE_INTEGER),
    maxSessionsPerIdentity: whole(options, 'maxSessionsPerIdentity', 100, 1, Number.MAX_SAFE_INTEGER),
    maxInFlightPerIdentity: whole(options, 'maxInFlightPerIdentity', 100, 1, Number.MAX_SAFE_INTEGER),
  } satisfies Record<LimitName, number>;
  const abandonMs = whole(options, 'abandonedSessionMs', options.eventStore ? 30_000 : 3_000, 0, MAX_TIMER_MS);
  const retryMs = whole(options, 'retryMs', 1_000, 0, MAX_TIMER_MS);
  const table = new TransportSessionTable({ ...limits, idleMs, abandonMs }, now, async (entry) => {
    options.sessions?.closed(entry.id);
    await entry.transport.close().catch(() => {});
    await entry.server.close().catch(() => {});
    // Nothing resumes a closed session's streams: they go with it (so its store is bounded by open sessions).
    if (options.eventStore) forgetSessionEvents(options.eventStore, entry.id);
  });
  const leg: SessionLeg = {
    table,
    limits,
    factory: (auth) => factory('push', auth),
    ...(options.sessions ? { directory: options.sessions } : {}),
    ...(options.eventStore ? { events: { store: options.eventStore, retryMs } } : {}),
    keepAliveMs,
    now,
  };
  const sweeper = setInterval(() => table.sweepIdle(), Math.min(idleMs, 60_000));
  (sweeper as { unref?: () => void }).unref?.();
  const stateless = createMcpHandler((ctx) => factory('input_required', ctx.authInfo), {
    legacy: 'reject',
    keepAliveMs,
    ...(options.bus ? { bus: options.bus } : {}),
    ...(options.onerror ? { onerror: options.onerror } : {}),
  });

  const guard = hostGuard(hosts, origins);
  // Pages on other origins only when asked for: their origin passed the guard already.
  const crossOrigin = options.cors === true;

  async function sessionful(
    request: Request,
    body: unknown,
    auth: AuthInfo | undefined,
    exchange: Exchange,
    delivered?: Delivered,
  ): Promise<Response> {
    const id = request.headers.get('mcp-session-id');
    if (id) {
      const entry = table.get(id);
      const relayed =
        entry || !options.sessions || delivered
          ? undefined
          : await options.sessions.forward(id, ownerOf(auth), request, auth, bodyBytes(body));
      if (relayed) return relayed;
      // Another identity's session is reported as unknown: its existence is not revealed.
      const owns = entry && (delivered ? await delivered.owns(entry.owner) : entry.owner === ownerOf(auth));
      if (!entry || !owns) return jsonRpcError(404, SESSION_NOT_FOUND, 'Session not found');
      if (!delivered) options.sessions?.serving?.(id);
      return serveSession(leg, entry, request, body, auth, exchange);
    }
    if (request.method !== 'POST')
      return jsonRpcError(400, SESSION_REQUIRED, 'Bad Request: Mcp-Session-Id header required');
    return openSession(leg, request, body, auth, exchange);
  }

  const serve: ServeExchange = async (request, exchange) => {
    const refused = guard(request);
    if (refused) return refused;
    const origin = crossOrigin ? request.headers.get('origin') : null;
    if (!origin) return answer(request, exchange);
    // Asked before the request itself, without its credential: answered here, authenticating nothing.
    if (request.method === 'OPTIONS' && request.headers.has('access-control-request-method'))
      return preflight(request, origin);
    return readableBy(origin, await answer(request, exchange));
  };

  const answer: ServeExchange = async (request, exchange) => {
    // A request relayed from another replica carries no credential: it was authenticated there,
    // and the identity it was given comes with it, sealed (relay/frames.ts).
    const relayed = options.sessions?.delivered?.(request);
    let auth = relayed?.auth;
    if (!relayed && options.authenticate) {
      const verdict = await options.authenticate(request);
      if (verdict instanceof Response) return verdict;
      auth = verdict;
    }
    if (request.method !== 'POST') {
      if (await isLegacyRequest(request)) return sessionful(request, undefined, auth, exchange, relayed);
      return stateless.fetch(request, auth ? { authInfo: auth } : {});
    }
    // Both transports answer a POST that is not JSON so; said here, before reading anything.
    if (!isJsonContentType(request.headers.get('content-type')))
      return jsonRpcError(415, UNSUPPORTED_MEDIA_TYPE, 'Unsupported Media Type: Content-Type must be application/json');
    const read = await exchange.read(request);
    if (read === TOO_LARGE)
      return jsonRpcError(
        413,
        PAYLOAD_TOO_LARGE,
        `Payload Too Large: Request body must not exceed ${DEFAULT_MAX_REQUEST_BODY_SIZE} bytes`,
      );
    // Empty or not JSON: legacy by the SDK's own rule, answered by the session's transport.
    if (read.body === INVALID) return sessionful(read.request, INVALID, auth, exchange, relayed);
    if (await isLegacyRequest(read.request, read.body))
      return sessionful(read.request, read.body, auth, exchange, relayed);
    // A listen stream's bus knows the resources it follows (a bus that missed events tells it each).
    return servingListen(read.body, () =>
      stateless.fetch(read.request, { parsedBody: read.body, ...(auth ? { authInfo: auth } : {}) }),
    );
  };

  const handler: HttpHandler & { [SERVE_EXCHANGE]: ServeExchange } = {
    fetch: (request) => serve(request, FETCH),
    [SERVE_EXCHANGE]: serve,
    notify: stateless.notify,
    sessionCount: () => table.size,
    async close() {
      clearInterval(sweeper);
      await Promise.all(table.all().map((entry) => table.close(entry.id)));
      await stateless.close();
    },
  };
  return handler;
}

/**
 * Under the idle timeout of Bun.serve (10 s, checked every 4 s, so as early as 8 s), the host
 * that ends quiet connections soonest by default; the SDK's own keep-alive, 15 s, is past it.
 */
const KEEP_ALIVE_MS = 5_000;

/** The longest a timer waits: Node fires a longer one at once. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * A limit or duration of `options`, refused when the handler is made if it is not a whole number
 * in `[min, max]`: a `NaN` cap let every session in (`size >= NaN` is false) or refused every
 * request 429, a `NaN` idle time swept every millisecond and closed nothing, a timer past
 * `MAX_TIMER_MS` fired at once, and a keep-alive the transport cannot use sent none.
 */
function whole<K extends keyof HttpHandlerOptions>(
  options: HttpHandlerOptions,
  name: K,
  fallback: number,
  min: number,
  max: number,
): number {
  const value: unknown = options[name];
  if (value === undefined) return fallback;
  if (typeof value === 'number' && Number.isInteger(value) && value >= min && value <= max) return value;
  throw new RangeError(`${name} must be a whole number from ${min} to ${max}, not ${String(value)}`);
}

/** The `host[:port]` of an absolute URL; undefined for a relative one (Bun's, for an HTTP/1.0 request with no Host). */
function authorityOf(url: string): string | undefined {
  try {
    return new URL(url).host || undefined;
  } catch {
    return undefined;
  }
}

/** The SDK's Host check on `host` (its `hostHeaderValidationResponse`, for a name not in a header). */
function hostRefused(host: string | undefined, hosts: string[]): Response | undefined {
  const checked = validateHostHeader(host, hosts);
  return checked.ok ? undefined : jsonRpcError(403, HOST_REFUSED, checked.message);
}

/** What a page on an allowed origin may send, and how long its browser may keep that answer. */
const CORS_METHODS = 'GET, POST, DELETE';
const CORS_MAX_AGE = '600';
/** The response headers a page reads: its session, the revision, a challenge, when to retry. */
const CORS_EXPOSED = 'mcp-session-id, mcp-protocol-version, www-authenticate, retry-after';
/** A preflight's `access-control-request-headers`: header names, comma-separated. */
const HEADER_LIST = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+(?:\s*,\s*[!#$%&'*+.^_`|~0-9A-Za-z-]+)*$/;

/**
 * A browser's CORS preflight from an allowed origin: the methods the endpoint serves, and the
 * headers the page asked to send (the protocol's own, `authorization`, and a 2026-07-28 call's
 * `mcp-param-*`: whatever the client sends is the endpoint's to judge, as from any other client).
 */
function preflight(request: Request, origin: string): Response {
  const asked = request.headers.get('access-control-request-headers')?.trim() ?? '';
  const headers = new Headers({
    'access-control-allow-origin': origin,
    'access-control-allow-methods': CORS_METHODS,
    'access-control-max-age': CORS_MAX_AGE,
    vary: 'origin',
  });
  if (asked.length > 0 && asked.length <= 8_192 && HEADER_LIST.test(asked))
    headers.set('access-control-allow-headers', asked);
  return new Response(null, { status: 204, headers });
}

/** `response` as a page on `origin` (allowed) may read it. */
function readableBy(origin: string, response: Response): Response {
  const cors = {
    'access-control-allow-origin': origin,
    'access-control-expose-headers': CORS_EXPOSED,
  };
  try {
    for (const [name, value] of Object.entries(cors)) response.headers.set(name, value);
    response.headers.append('vary', 'origin');
    return response;
  } catch {
    // Headers that cannot change (a response made by `fetch`, from `authenticate`): a copy.
    const headers = new Headers(response.headers);
    for (const [name, value] of Object.entries(cors)) headers.set(name, value);
    headers.append('vary', 'origin');
    return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
  }
}

/** Host/Origin pairs kept as passed; past it the set starts again (a cache, not a limit). */
const ADMITTED_PAIRS = 256;

/**
 * A JSON POST's body, read once (bounded as the SDK's transports bound it) and parsed once, for
 * the routing decision and then handed to the transport as `parsedBody`. A body that is not JSON
 * comes back as INVALID with a request still holding its bytes, so the transport answers it as
 * it always has.
 */
async function readJson(request: Request): Promise<ReadBody> {
  let text: string;
  try {
    const read = await readRequestBody(request);
    if (read.tooLarge) return TOO_LARGE;
    text = read.text;
  } catch {
    return { request, body: INVALID };
  }
  try {
    if (text.length > 0) return { request, body: JSON.parse(text) };
  } catch {}
  return { request: new Request(request, { body: text }), body: INVALID };
}

/**
 * The Web face: the body read from the request, a streamed response followed by `watchResponse`,
 * a GET's stream opened at once (`opensAtOnce`).
 */
const FETCH: Exchange = {
  read: readJson,
  follow: (response, request, onEnd) =>
    watchResponse(response, request, onEnd, opensAtOnce(request, response) ? OPENED : undefined),
};

/**
 * A body the handler has read and parsed, as bytes to relay (its JSON again); undefined for none
 * or one that is not JSON, whose request is then relayed as it came (its own body read there).
 */
function bodyBytes(body: unknown): Uint8Array | undefined {
  return body === undefined || body === INVALID ? undefined : utf8.encode(JSON.stringify(body));
}
const utf8 = new TextEncoder();

/**
 * The DNS-rebinding check (the SDK's Host and Origin validation). It parses a URL per header; a
 * client sends the same Host and Origin on every request, so the pairs that passed are kept (a
 * few: they are per client, not per request).
 *
 * A request with no Host header is judged by the authority in its URL: an HTTP/2 request carries
 * it as `:authority`, not as a header (Deno.serve over TLS hands such a request no Host, and
 * every one was refused 403), as does a `Request` made in the same process. A browser always
 * sends one or the other, so a rebinding page is still judged by the name it used.
 */
function hostGuard(hosts: string[], origins: string[]): (request: Request) => Response | undefined {
  const admitted = new Set<string>();
  return (request) => {
    const header = request.headers.get('host');
    const host = header ?? authorityOf(request.url);
    // A missing or empty Host never passes, so it never becomes a key; no Origin and "" pass alike.
    const key = `${host ?? ''}\n${request.headers.get('origin') ?? ''}`;
    if (admitted.has(key)) return undefined;
    const refused =
      (header !== null ? hostHeaderValidationResponse(request, hosts) : hostRefused(host, hosts)) ??
      originValidationResponse(request, origins);
    if (refused) return refused;
    if (admitted.size >= ADMITTED_PAIRS) admitted.clear();
    admitted.add(key);
    return undefined;
  };
}
