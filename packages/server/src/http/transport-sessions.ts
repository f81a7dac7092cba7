import {
  type AuthInfo,
  type EventStore,
  INTERNAL_ERROR,
  INVALID_REQUEST,
  isInitializeRequest,
  isJSONRPCErrorResponse,
  isJSONRPCNotification,
  isJSONRPCRequest,
  isJSONRPCResultResponse,
  isSpecType,
  type McpServer,
  PARSE_ERROR,
  type RequestId,
  WebStandardStreamableHTTPServerTransport,
} from '@modelcontextprotocol/server';
import { randomUUID } from '../digest.js';
import { sessionEvents } from './event-store.js';
import { type Exchange, INVALID, markResumable } from './exchange.js';
import { batchPastLimit, jsonRpcError, type LimitName, limitReached, SESSION_REQUIRED, streamOver } from './replies.js';
import type { SessionDirectory } from './session-directory.js';
import { type StreamsOver, streamsOver } from './streams-over.js';

/** One 2025 HTTP session, bound to who opened it. */
export interface TransportSession {
  id: string;
  transport: WebStandardStreamableHTTPServerTransport;
  server: McpServer;
  /** Who may use it: the identity and the credential it opened with. */
  owner: string;
  /** Whose limits it counts against. */
  identity: string;
  /** Last request, epoch ms. */
  seen: number;
  /**
   * Requests not answered yet: calls, and the questions they wait on. Counted from their POST to
   * their response, whether or not the stream they came on is still open (with an event store a
   * call whose stream dropped goes on, to be resumed), or until the client cancels them.
   */
  inFlight: number;
  /** The requests whose ids are in use: those counted, and a cancelled one until it can no longer answer (made on the first). */
  calls?: Map<RequestId, Call>;
  /**
   * Ids the client cancelled while no request of theirs was here (→ until when kept): a cancel that
   * overtook its request (posted together, or relayed on another way than its call). MCP forbids
   * reusing an id in a session, so one that comes later is that request, cancelled as it arrives.
   */
  cancelledEarly?: Map<RequestId, number>;
  /** POST response streams open. */
  posts?: number;
  /** With an event store: its POST streams that will carry nothing more, whose resumption is refused. */
  over?: StreamsOver;
  /** Open GET streams. */
  streams: number;
  /** The client dropped a stream with requests in flight and has not been heard from since. */
  dropped: boolean;
  abandon?: ReturnType<typeof setTimeout> | undefined;
}

export interface TransportSessionLimits {
  maxSessions: number;
  maxSessionsPerIdentity: number;
  maxInFlightPerIdentity: number;
  /** Idle sessions (nothing in flight) older than this are closed. */
  idleMs: number;
  /** A session whose client dropped a call and left no stream open is closed after this long. */
  abandonMs: number;
}

/** A request on a session, from its POST until nothing more can come of it. */
interface Call {
  /** Counted in `inFlight`: true until it is answered, ends with its stream, or is cancelled (once). */
  counted: boolean;
  /** Cancelled by the client: the server drops its response, unless it was already on its way. */
  withdrawn?: boolean;
  /** Its response is being sent: it ends when that is done, whatever came meanwhile. */
  responding?: boolean;
  /** Its response went out (or could not): nothing more is sent for it. */
  answered?: boolean;
  /** The POST it came in. */
  post?: Post;
  /** Its request id. */
  id: RequestId;
}

/**
 * One POST's requests. The transport ends a POST's stream once each of them has a response, and
 * a cancelled one never gets one (MCP: no response to a cancelled request), so a POST with a
 * cancelled request would stream keep-alives until the client went away — a request cancelled
 * before it came, headers and all. Its stream is ended here once each is answered or cancelled.
 */
interface Post {
  calls: Call[];
  /**
   * Ends its stream, whichever connection carries it (the POST's, or a GET resuming it), by `id`,
   * one of its requests the transport maps to it; set once the stream exists (`closeWhenSettled`),
   * cleared once it ended for good.
   */
  close?: ((id: RequestId) => void) | undefined;
  /** Its session's requests whose ids are in use (`TransportSession.calls`). */
  held: Map<RequestId, Call>;
  /**
   * With an event store its stream can be resumed, and closed again, as long as the session lasts
   * (`StreamsOver`); without one, once its connection ended nothing carries it (`done`).
   */
  resumable: boolean;
  done?: boolean;
}

interface Bucket {
  sessions: Set<TransportSession>;
  inFlight: number;
}

/**
 * The open 2025 sessions, counted per identity. A session with a request in flight (so any open
 * question) is never evicted; room is only ever made by closing the *same* identity's least
 * recently used idle session, so no identity can push out another's.
 */
export class TransportSessionTable {
  private readonly entries = new Map<string, TransportSession>();
  private readonly buckets = new Map<string, Bucket>();

  constructor(
    private readonly limits: TransportSessionLimits,
    private readonly now: () => number,
    private readonly closeTransport: (entry: TransportSession) => Promise<void>,
  ) {}

  get size(): number {
    return this.entries.size;
  }

  get(id: string): TransportSession | undefined {
    return this.entries.get(id);
  }

  all(): TransportSession[] {
    return [...this.entries.values()];
  }

  /**
   * Makes room for one more session of `identity`, evicting that identity's least recently used
   * idle session if a cap is reached. Returns the limit that refuses it when nothing can go.
   */
  admit(identity: string): LimitName | undefined {
    // Looked at, not made: an identity refused here leaves nothing behind (a bucket is made by `add`).
    const bucket = this.buckets.get(identity) ?? NO_SESSIONS;
    if (bucket.sessions.size >= this.limits.maxSessionsPerIdentity && !this.evictIdle(bucket))
      return 'maxSessionsPerIdentity';
    if (this.entries.size >= this.limits.maxSessions && !this.evictIdle(bucket)) return 'maxSessions';
    return undefined;
  }

  add(entry: TransportSession): void {
    this.entries.set(entry.id, entry);
    this.bucket(entry.identity).sessions.add(entry);
  }

  /** Takes the session out of the table (synchronously, so its room is free at once) and closes it. */
  async close(id: string): Promise<void> {
    const entry = this.remove(id);
    if (entry) await this.closeTransport(entry);
  }

  remove(id: string): TransportSession | undefined {
    const entry = this.entries.get(id);
    if (!entry) return undefined;
    this.entries.delete(id);
    clearTimeout(entry.abandon);
    const bucket = this.bucket(entry.identity);
    bucket.sessions.delete(entry);
    bucket.inFlight -= entry.inFlight;
    if (bucket.sessions.size === 0) this.buckets.delete(entry.identity);
    return entry;
  }

  /** Whether `identity` may start `count` more requests now (a batch counts whole). */
  mayStart(identity: string, count = 1): boolean {
    return (this.buckets.get(identity)?.inFlight ?? 0) + count <= this.limits.maxInFlightPerIdentity;
  }

  /**
   * An id among `ids` that a request in flight on `entry` already has, or that `ids` holds twice:
   * JSON-RPC ids are the client's, and one reused would both escape the count and cross two
   * requests' responses.
   */
  reusedId(entry: TransportSession, ids: readonly RequestId[]): RequestId | undefined {
    // One request, the usual POST: nothing to compare it with but what is in flight.
    if (ids.length === 1) return entry.calls?.has(ids[0] as RequestId) ? ids[0] : undefined;
    const seen = new Set<RequestId>();
    for (const id of ids) {
      if (entry.calls?.has(id) || seen.has(id)) return id;
      seen.add(id);
    }
    return undefined;
  }

  /** The client spoke: the session is not idle. Whether it came back for what it dropped is `back`'s. */
  touch(entry: TransportSession): void {
    entry.seen = this.now();
  }

  /**
   * The client opened a stream on the session again (a POST's, a GET's): it is here, whatever it
   * dropped before. A request that opens none — a resumption refused, an answer posted — is no
   * coming back: a client that sent one and left kept its session, and the questions it dropped,
   * until they timed out.
   */
  private back(entry: TransportSession): void {
    entry.dropped = false;
    clearTimeout(entry.abandon);
    entry.abandon = undefined;
  }

  /**
   * A POST with the requests `ids` began; returns what to call when its response ends. They count
   * until answered (`responding`), cancelled (`withdraw`), or until their stream ends: finished,
   * or dropped where nothing resumes them (`resumable` false: the call ends with its stream).
   */
  beginCall(entry: TransportSession, ids: readonly RequestId[], resumable: boolean): (dropped: boolean) => void {
    entry.calls ??= new Map();
    const calls = entry.calls;
    // Distinct and new (`reusedId` refused the rest before): each counts once.
    const mine: [RequestId, Call][] = [];
    const post: Post = { calls: [], held: calls, resumable };
    for (const id of ids) {
      if (calls.has(id)) continue;
      const call: Call = { counted: true, post, id };
      calls.set(id, call);
      post.calls.push(call);
      mine.push([id, call]);
    }
    entry.inFlight += mine.length;
    this.bucket(entry.identity).inFlight += mine.length;
    entry.posts = (entry.posts ?? 0) + 1;
    this.back(entry);
    return (dropped) => {
      // Dropped where it can be resumed, its stream goes on (a GET resuming it carries it on).
      if (!dropped || !resumable) post.close = undefined;
      if (!resumable) post.done = true;
      if (this.entries.get(entry.id) !== entry) return;
      entry.posts = (entry.posts ?? 1) - 1;
      if (dropped) entry.dropped = true;
      if (!dropped || !resumable) for (const [id, call] of mine) this.release(entry, id, call);
      this.checkAbandoned(entry);
    };
  }

  /**
   * The server is sending the response to request `id`; returns what to call once it went out (or
   * could not: the call is over either way). Taken before the send, so a cancel arriving meanwhile
   * neither frees the place a second time nor frees the id while this response still uses it.
   */
  responding(entry: TransportSession, id: RequestId): () => void {
    const call = entry.calls?.get(id);
    if (!call) return NOTHING;
    call.responding = true;
    return () => {
      if (this.entries.get(entry.id) !== entry) return;
      call.answered = true;
      this.uncount(entry, call);
      this.forget(entry, id, call);
      this.settle(call.post);
      this.checkAbandoned(entry);
    };
  }

  /**
   * The client cancelled the requests `ids` of this session (`notifications/cancelled`, delivered
   * to its server): the SDK drops a cancelled request's response, so nothing else would ever free
   * its place. Each frees it at once; an id not in flight here (finished, never sent, another
   * session's) is nothing. The id stays in use until the server has surely seen the cancel — its
   * handler's signal aborts a few microtasks later, so after one turn of the event loop — and
   * while its POST's stream may still be closed by it (`settle`: the transport maps a cancelled
   * request to its stream for good, and a POST reusing the id would take it over) — unless a
   * response was already on its way, which then ends it: a late response never ends a request
   * that reused the id.
   */
  withdraw(entry: TransportSession, ids: readonly RequestId[]): void {
    if (this.entries.get(entry.id) !== entry) return;
    for (const id of ids) {
      const call = entry.calls?.get(id);
      if (!call) {
        this.cancelEarly(entry, id);
        continue;
      }
      call.withdrawn = true;
      this.uncount(entry, call);
      this.settle(call.post);
      this.forgetWithdrawn(entry, id, call);
    }
  }

  /**
   * Frees the id of `call`, withdrawn, after one turn of the event loop if its POST's stream can no
   * longer be closed by it (`Post.done`): else when it can (`release`), or with its session.
   */
  private forgetWithdrawn(entry: TransportSession, id: RequestId, call: Call): void {
    if (call.post && !call.post.done) return;
    const later = setTimeout(() => {
      if (!call.responding) this.forget(entry, id, call);
    }, 0);
    (later as { unref?: () => void }).unref?.();
  }

  /**
   * Ends the stream of the POST that carried `calls` (as `beginCall` counted them) with `close`
   * once each of its requests is answered or cancelled, at once if they all are — only when one
   * was cancelled: otherwise the transport ends it after the last response. Called once its
   * stream exists (the transport returned it), so `close` finds it.
   */
  closeWhenSettled(calls: readonly (readonly [RequestId, Call | undefined])[], close: (id: RequestId) => void): void {
    const post = calls.find(([, call]) => call?.post)?.[1]?.post;
    if (!post) return;
    post.close = close;
    this.settle(post);
  }

  /**
   * Ends `post`'s stream if it is open, one of its requests was cancelled and none is left to
   * answer — by the id of a cancelled one, still its own: an answered one's is free again, and a
   * POST reusing it (MCP forbids it; a client may) has the transport map it to that POST's stream.
   * When each cancelled one was answered all the same, the transport ends the stream itself.
   */
  private settle(post: Post | undefined): void {
    if (!post?.close || !post.calls.some((c) => c.withdrawn) || !post.calls.every(settled)) return;
    const close = post.close;
    post.close = undefined;
    const own = post.calls.find((c) => c.withdrawn && !c.responding && post.held.get(c.id) === c);
    if (own) close(own.id);
  }

  /**
   * Remembers a cancel for `id`, not in flight on `entry` (`cancelledEarly`): finished, never sent,
   * or not here yet. At most `MAX_EARLY_CANCELS` per session, each for `EARLY_CANCEL_MS`, the
   * oldest going first.
   */
  private cancelEarly(entry: TransportSession, id: RequestId): void {
    const early = entry.cancelledEarly ?? new Map<RequestId, number>();
    entry.cancelledEarly = early;
    const now = this.now();
    for (const [old, until] of early) {
      if (until > now && early.size < MAX_EARLY_CANCELS) break;
      early.delete(old);
    }
    early.delete(id);
    early.set(id, now + EARLY_CANCEL_MS);
  }

  /** Those of `ids` the client cancelled before they came (`cancelledEarly`), forgotten as they are taken. */
  cancelledBefore(entry: TransportSession, ids: readonly RequestId[]): RequestId[] {
    const early = entry.cancelledEarly;
    if (!early || early.size === 0) return [];
    const now = this.now();
    const taken: RequestId[] = [];
    for (const id of ids) {
      const until = early.get(id);
      if (until === undefined) continue;
      early.delete(id);
      if (until > now) taken.push(id);
    }
    return taken;
  }

  /**
   * A GET stream opened; returns what to call when it ends. Dropped while requests are in flight
   * (a resumed call's stream), it counts as the client dropping them.
   */
  beginStream(entry: TransportSession): (dropped: boolean) => void {
    entry.streams++;
    this.back(entry);
    return (dropped) => {
      if (this.entries.get(entry.id) !== entry) return;
      entry.streams--;
      if (dropped && entry.inFlight > 0) entry.dropped = true;
      this.checkAbandoned(entry);
    };
  }

  /**
   * `call` (request `id`) ended with its stream: its place is freed (once), and its id unless a
   * cancel or a response under way frees it in its own time.
   */
  private release(entry: TransportSession, id: RequestId, call: Call): void {
    this.uncount(entry, call);
    if (!call.withdrawn && !call.responding) this.forget(entry, id, call);
    else if (call.withdrawn) this.forgetWithdrawn(entry, id, call);
  }

  /** Frees `call`'s place in the counts, the first time only. */
  private uncount(entry: TransportSession, call: Call): void {
    if (!call.counted) return;
    call.counted = false;
    entry.inFlight--;
    this.bucket(entry.identity).inFlight--;
  }

  /** Frees the id `call` held, if it still holds it. */
  private forget(entry: TransportSession, id: RequestId, call: Call): void {
    if (entry.calls?.get(id) === call) entry.calls.delete(id);
  }

  /** Closes every idle session not heard from within `idleMs`. */
  sweepIdle(): void {
    const cutoff = this.now() - this.limits.idleMs;
    for (const entry of this.all()) if (entry.inFlight === 0 && entry.seen < cutoff) void this.close(entry.id);
  }

  /**
   * A client that dropped a call and holds no stream open has gone (a process exiting closes them
   * all at once). Its session is closed after a short grace, unless it comes back.
   */
  private checkAbandoned(entry: TransportSession): void {
    if (!entry.dropped || (entry.posts ?? 0) > 0 || entry.streams > 0 || entry.abandon) return;
    entry.abandon = setTimeout(() => void this.close(entry.id), this.limits.abandonMs);
    (entry.abandon as { unref?: () => void }).unref?.();
  }

  private evictIdle(bucket: Bucket): boolean {
    let victim: TransportSession | undefined;
    for (const entry of bucket.sessions) {
      if (entry.inFlight === 0 && (!victim || entry.seen < victim.seen)) victim = entry;
    }
    if (!victim) return false;
    void this.close(victim.id);
    return true;
  }

  private bucket(identity: string): Bucket {
    let bucket = this.buckets.get(identity);
    if (!bucket) {
      bucket = { sessions: new Set(), inFlight: 0 };
      this.buckets.set(identity, bucket);
    }
    return bucket;
  }
}

const NOTHING = (): void => {};

/** Nothing more comes of `call` on its stream: answered, or cancelled with no response under way. */
const settled = (call: Call): boolean => call.answered === true || (call.withdrawn === true && !call.responding);

/** The bucket of an identity with no session here (never written: `admit` only reads it). */
const NO_SESSIONS: Bucket = Object.freeze({ sessions: new Set<TransportSession>(), inFlight: 0 }) as Bucket;

/** What opening and serving a 2025 session needs from its handler (`createHttpHandler`). */
export interface SessionLeg {
  table: TransportSessionTable;
  limits: Record<LimitName, number>;
  /** A server for a new session (`asks: 'push'`), with the caller's `AuthInfo`. */
  factory: (auth: AuthInfo | undefined) => McpServer;
  directory?: SessionDirectory;
  /** Resumable streams: where their events are kept, and the `retry` suggested. */
  events?: { store: EventStore; retryMs: number };
  /** How often a quiet SSE stream sends a keep-alive comment (`HttpHandlerOptions.keepAliveMs`). */
  keepAliveMs: number;
  now: () => number;
}

/** A request on a session this replica holds, for its owner: counted against the identity's limits, its stream followed. */
export async function serveSession(
  leg: SessionLeg,
  entry: TransportSession,
  request: Request,
  body: unknown,
  auth: AuthInfo | undefined,
  exchange: Exchange,
): Promise<Response> {
  leg.table.touch(entry);
  const extra = auth ? { authInfo: auth } : {};
  if (request.method === 'GET') {
    const last = request.headers.get('last-event-id');
    const stream = last && entry.over ? await entry.over.streamOf(last) : undefined;
    // Refused only when nothing is left for the client on it: a reply stored while its connection
    // was gone is replayed, and then the resumption ends (below).
    if (last && stream !== undefined && (await entry.over?.nothingLeft(stream, last))) return streamOver();
    const response = await entry.transport.handleRequest(request, extra);
    if (response.status !== 200 || !response.body) return response;
    const followed = exchange.follow(response, request, leg.table.beginStream(entry));
    // Over now — before, or while the transport replayed it (closing it then found no connection):
    // nothing more will come on it, so it ends once what was replayed is read.
    if (stream !== undefined) entry.over?.endIfOver(stream);
    return followed;
  }
  if (request.method !== 'POST') {
    const response = await entry.transport.handleRequest(request, extra);
    // Only a DELETE the transport did ends the session: one it refused (a bad protocol version
    // header, say) leaves the session and its open questions as they were, as the 4xx says.
    if (request.method === 'DELETE' && response.ok) await leg.table.close(entry.id);
    return response;
  }
  const ids = requestIds(body);
  const first = ids[0];
  if (first === undefined) {
    const response = await entry.transport.handleRequest(request, { ...extra, ...parsed(body) });
    // 202: the transport took the messages and gave them to the server, cancels too.
    if (response.status === 202) leg.table.withdraw(entry, cancelledIds(body));
    return response;
  }
  const reused = leg.table.reusedId(entry, ids);
  if (reused !== undefined)
    return jsonRpcError(
      400,
      INVALID_REQUEST,
      `Bad Request: request id ${JSON.stringify(reused)} is already in use by a request in flight on this session; give each request an id of its own.`,
      reused,
    );
  if (ids.length > leg.limits.maxInFlightPerIdentity)
    return batchPastLimit(ids.length, leg.limits.maxInFlightPerIdentity, first);
  if (!leg.table.mayStart(entry.identity, ids.length))
    return limitReached('maxInFlightPerIdentity', leg.limits.maxInFlightPerIdentity, first);
  const ended = leg.table.beginCall(entry, ids, leg.events !== undefined);
  // Its calls as counted now: a cancel that comes while the transport takes them marks them, and
  // those the client cancelled before they came are cancelled once the server has them.
  const calls = ids.map((id) => [id, entry.calls?.get(id)] as const);
  const early = leg.table.cancelledBefore(entry, ids);
  if (leg.events) markResumable(request);
  let response: Response;
  try {
    response = await entry.transport.handleRequest(request, { ...extra, ...parsed(body) });
  } catch (error) {
    ended(false);
    throw error;
  }
  if (early.length > 0) leg.table.withdraw(entry, early);
  cancelAgain(entry, calls, { ...extra, request });
  if (response.status !== 200 || !response.body) {
    ended(false);
    return response;
  }
  // A batch may cancel too: its requests were counted above, before its cancels free anything.
  leg.table.withdraw(entry, cancelledIds(body));
  // The transport maps each request of the POST to its one stream, for good once one is cancelled;
  // `id` is a cancelled one, kept in use as long as it can be resumed (so never taken over).
  leg.table.closeWhenSettled(calls, (id) => {
    const close = () => entry.transport.closeSSEStream(id);
    close();
    entry.over?.mark(entry.transport, id, close);
  });
  return exchange.follow(response, request, ended);
}

/**
 * An `initialize` without a session: a new session for the caller, counted before anything is
 * awaited, told to the directory (other replicas) before it is handed out.
 */
export async function openSession(
  leg: SessionLeg,
  request: Request,
  body: unknown,
  auth: AuthInfo | undefined,
  exchange: Exchange,
): Promise<Response> {
  if (body === INVALID) return jsonRpcError(400, PARSE_ERROR, 'Parse error');
  if (!isInitializeRequest(body))
    return jsonRpcError(400, SESSION_REQUIRED, 'Bad Request: Mcp-Session-Id header required');
  const identity = auth?.clientId ?? '';
  const ids = requestIds(body);
  const rpcId = ids[0] ?? null;
  if (!leg.table.mayStart(identity))
    return limitReached('maxInFlightPerIdentity', leg.limits.maxInFlightPerIdentity, rpcId);
  const refused = leg.table.admit(identity);
  if (refused) return limitReached(refused, leg.limits[refused], rpcId);
  // The id is made here, so the session is counted before anything is awaited: a burst of
  // initializes cannot all slip under a cap.
  const id = randomUUID();
  const server = leg.factory(auth);
  const over = leg.events ? streamsOver(sessionEvents(leg.events.store, id)) : undefined;
  // A DELETE is handled by the transport, then the session is taken out and its server closed
  // below (`existing`), so nothing is left half-closed.
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: () => id,
    keepAliveMs: leg.keepAliveMs,
    ...(leg.events && over ? { eventStore: over.store, retryInterval: leg.events.retryMs } : {}),
  });
  const entry: TransportSession = {
    id,
    transport,
    server,
    owner: ownerOf(auth),
    identity,
    seen: leg.now(),
    inFlight: 0,
    streams: 0,
    dropped: false,
    ...(over ? { over } : {}),
  };
  leg.table.add(entry);
  answeredThrough(transport, leg.table, entry);
  const ended = leg.table.beginCall(entry, ids, leg.events !== undefined);
  if (leg.events) markResumable(request);
  let response: Response;
  try {
    await server.connect(transport);
    response = await transport.handleRequest(request, { parsedBody: body, ...(auth ? { authInfo: auth } : {}) });
  } catch (error) {
    ended(false);
    await leg.table.close(id);
    throw error;
  }
  if (transport.sessionId !== id || response.status !== 200) {
    ended(false);
    await leg.table.close(id);
    return response;
  }
  try {
    await leg.directory?.opened(id, entry.owner);
  } catch {
    // Other replicas could not find it: fail closed rather than hand out a session that 404s.
    ended(false);
    await leg.table.close(id);
    return jsonRpcError(503, INTERNAL_ERROR, 'Service unavailable: the session directory cannot be reached', rpcId);
  }
  return exchange.follow(response, request, ended);
}

/**
 * The client cancelled some of `calls` before they came (`cancelledBefore`, withdrawn since) or
 * while the transport was taking them (its cancel, in another POST, came after they were
 * counted). The server dropped such a cancel as one for a request it did not know: the transport
 * hands a notification to the server at once
 * but a request only after a step it awaits (its stream's priming event), so that cancel reached
 * the server before the request did, and was dropped there as one for a request it did not know. It is given again, now
 * that the server has the request: the person who cancelled is not left with a call that runs.
 * One the server did see first is given twice, which does nothing more.
 */
function cancelAgain(
  entry: TransportSession,
  calls: readonly (readonly [RequestId, Call | undefined])[],
  extra: { authInfo?: AuthInfo; request: Request },
): void {
  for (const [id, call] of calls)
    if (call?.withdrawn)
      entry.transport.onmessage?.(
        { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: id, reason: CANCELLED_EARLY } },
        extra,
      );
}

const CANCELLED_EARLY = 'The client cancelled the request as it arrived.';
/** At most this many early cancels kept per session (`cancelledEarly`). */
const MAX_EARLY_CANCELS = 64;
/**
 * How long an early cancel waits for its request: longer than a request relayed between replicas
 * can take to arrive (its frame is refused past twice its lifetime, `relay/frames.ts`).
 */
const EARLY_CANCEL_MS = 60_000;

function parsed(body: unknown): { parsedBody?: unknown } {
  return body === INVALID ? {} : { parsedBody: body };
}

/** The ids of the JSON-RPC requests in a POST (responses and notifications start no work). */
function requestIds(body: unknown): RequestId[] {
  const messages = Array.isArray(body) ? body : [body];
  const ids: RequestId[] = [];
  for (const m of messages) if (mayBeRequest(m) && isJSONRPCRequest(m)) ids.push(m.id);
  return ids;
}

/**
 * The ids the cancels (`notifications/cancelled`) in a POST name. Checked as the spec types them,
 * as the server checks them before it aborts anything: a cancel the server would not act on must
 * not free a place while its request goes on.
 */
function cancelledIds(body: unknown): RequestId[] {
  const messages = Array.isArray(body) ? body : [body];
  const ids: RequestId[] = [];
  for (const m of messages)
    if (
      isCancel(m) &&
      isJSONRPCNotification(m) &&
      isSpecType.CancelledNotification(m) &&
      m.params.requestId !== undefined
    )
      ids.push(m.params.requestId);
  return ids;
}

/** Cheap first look, so an answer or another notification never reaches a schema check. */
function isCancel(m: unknown): boolean {
  return typeof m === 'object' && m !== null && (m as { method?: unknown }).method === 'notifications/cancelled';
}

/**
 * Tells `table` each response the session's server sends, whichever stream it goes on (or none:
 * its stream dropped): that request is no longer in flight.
 */
function answeredThrough(
  transport: WebStandardStreamableHTTPServerTransport,
  table: TransportSessionTable,
  entry: TransportSession,
): void {
  const send = transport.send.bind(transport);
  transport.send = async (message, options) => {
    const sent =
      (isJSONRPCResultResponse(message) || isJSONRPCErrorResponse(message)) && message.id !== undefined
        ? table.responding(entry, message.id)
        : NOTHING;
    try {
      await send(message, options);
    } finally {
      sent();
    }
  };
}

/**
 * Whether `m` has what every JSON-RPC request has (a method and an id): the SDK's schema check
 * runs only then. A client's answer to a question is a response, and a failed schema parse (zod
 * building its issues) was most of what routing an answer cost.
 */
function mayBeRequest(m: unknown): boolean {
  return typeof m === 'object' && m !== null && 'method' in m && 'id' in m;
}

export function ownerOf(auth: AuthInfo | undefined): string {
  return auth ? `${auth.clientId}\0${auth.token}` : '';
}
