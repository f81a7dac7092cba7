import { DEFAULT_MAX_REQUEST_BODY_SIZE, INTERNAL_ERROR, INVALID_REQUEST } from '@modelcontextprotocol/server';
import type { Redis } from 'ioredis';
import { sha256 } from '../digest.js';
import type { Delivered, SessionDirectory } from '../http/session-directory.js';
import {
  type DropReason,
  type Frame,
  FrameRefused,
  frameKey,
  fromBase64,
  headerList,
  open,
  seal,
  toBase64,
} from './frames.js';
import { HolderGone, RelayedResponse, RelayInterrupted } from './relayed-response.js';

/** How `createRedisRelay` names things and how often it checks that replicas are alive. */
export interface RedisRelayOptions {
  /**
   * The secret every replica shares (the kit's state secret will do): frames are sealed with a key
   * derived from it, and a frame that does not open with it is dropped. Required.
   */
  secret: string | Uint8Array;
  /** This replica's id (unique among the replicas). Default: a random UUID. */
  replica?: string;
  /** Prefix of every key and channel. Default `elicitkit:relay:`. */
  prefix?: string;
  /** How long a session's entry lives without the holder's heartbeat, ms. Default 30 s. */
  sessionTtlMs?: number;
  /** How often a relay in progress checks that the holder is still subscribed, ms. Default 1 s. */
  livenessMs?: number;
}

/** The Redis-backed `SessionDirectory`: pass it to `createHttpHandler`, then `serve` that handler. */
export interface RedisRelay extends SessionDirectory {
  readonly replica: string;
  /** Subscribes this replica to its channel and runs the requests other replicas relay to it on `handler`. */
  serve(handler: { fetch(request: Request): Promise<Response> }): Promise<void>;
  /** Relays in flight, both ways (for tests and shutdown). */
  inFlight(): number;
  /**
   * Messages dropped on this replica's channel, by why: a bad or missing signature, an envelope
   * or frame that is not what it must be, one meant for another replica, expired or seen before,
   * or one from a replica other than the one the relay is with (`sender`).
   */
  dropped(): Readonly<Record<DropReason | 'sender', number>>;
  /** Unsubscribes, ends the relays in flight, and forgets this replica's sessions. */
  close(): Promise<void>;
}

interface Holding {
  /** The replica that asked: only it may abort. */
  requester: string;
  controller: AbortController;
  reader?: ReadableStreamDefaultReader<Uint8Array>;
}

/**
 * 2025 sessions across replicas through Redis. Each replica records the sessions it holds
 * (`<prefix>session:<id>` → replica and a digest of the owner, kept alive by a heartbeat) and
 * listens on its own channel. A replica that gets a request for a session held elsewhere publishes
 * it to the holder's channel; the holder runs it on its own handler — authentication, limits and
 * the session's owner check included — and publishes the response back, head, chunks and end, so
 * an SSE stream (a `tools/call` with its `elicitation/create`, a GET stream) flows as it is written.
 *
 * A holder that is gone fails closed and fast: PUBLISH reaching no subscriber answers "Session
 * not found" at once, and a relay in progress checks every second that the holder is still
 * subscribed, ending an SSE stream with a JSON-RPC error for the requests it carried.
 *
 * @example
 * import { Redis } from 'ioredis';
 * const relay = createRedisRelay(new Redis(url), { secret: process.env.ELICITKIT_SECRET });
 * const http = createHttpHandler(factory, { authenticate, sessions: relay });
 * await relay.serve(http);
 */
export function createRedisRelay(redis: Redis, options: RedisRelayOptions): RedisRelay {
  const replica = options.replica ?? crypto.randomUUID();
  const key = frameKey(options.secret);
  /** Nonces of frames taken, until they expire. */
  const seen = new Map<string, number>();
  const drops: Record<DropReason | 'sender', number> = {
    signature: 0,
    envelope: 0,
    schema: 0,
    misdirected: 0,
    expired: 0,
    replayed: 0,
    sender: 0,
  };
  const prefix = options.prefix ?? 'elicitkit:relay:';
  const ttlMs = options.sessionTtlMs ?? 30_000;
  const livenessMs = options.livenessMs ?? 1_000;
  const channelOf = (id: string) => `${prefix}replica:${id}`;
  const sessionKey = (id: string) => `${prefix}session:${id}`;
  const own = channelOf(replica);
  // Its own connection (a subscribed one can do nothing else), queueing while it connects. Named,
  // so an operator (and a test) can tell it in CLIENT LIST.
  const subscriber = redis.duplicate({
    lazyConnect: true,
    enableOfflineQueue: true,
    connectionName: `${prefix.replace(/[^\w:.-]/g, '_')}relay:${replica}`,
  });
  subscriber.on('error', () => {});
  // Each session this replica holds → its directory entry (this replica and the owner's digest).
  const held = new Map<string, string>();
  /** Relays this replica waits on → the response being rebuilt and the holder it must come from. */
  const waiting = new Map<string, { relayed: RelayedResponse; holder: string }>();
  const holding = new Map<string, Holding>();
  // Requests this replica runs for another → the identity the requester authenticated (none for
  // an endpoint without authentication): never relayed again, so a stale entry cannot loop.
  const delivered = new WeakMap<Request, Delivered>();
  // Where sessions were found: a session never moves, so its entry is read from Redis once. A stale
  // one costs nothing — the replica it names answers "Session not found" itself, or nobody listens
  // on its channel and the entry is dropped.
  const located = new Map<string, string>();
  let handler: { fetch(request: Request): Promise<Response> } | undefined;
  let heartbeat: ReturnType<typeof setInterval> | undefined;

  // Async, so a frame refused by `seal` is a rejection like a Redis failure, never a throw.
  const publish = async (to: string, frame: Frame) => redis.publish(channelOf(to), seal(key, replica, to, frame));
  const remember = (id: string, entry: string) => {
    // Bounded: the oldest go first (a Map iterates in insertion order).
    if (located.size >= LOCATED_MAX) located.delete(located.keys().next().value as string);
    located.set(id, entry);
  };

  async function run(frame: Extract<Frame, { t: 'request' }>, back: string): Promise<void> {
    const controller = new AbortController();
    const entry: Holding = { requester: back, controller };
    holding.set(frame.r, entry);
    try {
      if (!handler) throw new Error('this replica is not serving yet');
      const request = new Request(frame.url, {
        method: frame.method,
        headers: frame.headers,
        signal: controller.signal,
        ...(frame.body === undefined ? {} : { body: fromBase64(frame.body) as BodyInit }),
      });
      const owner = frame.owner;
      delivered.set(request, {
        auth: frame.auth && {
          // The credential stayed with the replica that checked it.
          token: '',
          clientId: frame.auth.clientId,
          scopes: frame.auth.scopes,
          ...(frame.auth.expiresAt === undefined ? {} : { expiresAt: frame.auth.expiresAt }),
        },
        owns: async (sessionOwner) => sha256(sessionOwner, 'hex') === owner,
      });
      const response = await handler.fetch(request);
      const head = { t: 'head', r: frame.r, status: response.status, headers: headerList(response.headers) } as const;
      // A JSON reply or a bare status travels whole, in one message; only SSE streams chunk by chunk.
      if (!response.body || !response.headers.get('content-type')?.startsWith('text/event-stream')) {
        const body = response.body ? new Uint8Array(await response.arrayBuffer()) : undefined;
        await publish(back, { ...head, end: true, ...(body?.byteLength ? { body: toBase64(body) } : {}) });
        return;
      }
      // Not awaited one by one: one connection keeps them in order, and a chunk is not held up by
      // the previous one's round trip. Nobody listening any more (the requesting replica is gone)
      // drops the request here too.
      const sent = (f: Frame) =>
        void publish(back, f).then(
          (listeners) => listeners === 0 && controller.abort(),
          () => controller.abort(),
        );
      sent(head);
      const reader = response.body.getReader();
      entry.reader = reader;
      for (;;) {
        const { done, value } = await reader.read();
        if (done || controller.signal.aborted) break;
        sent({ t: 'data', r: frame.r, d: toBase64(value) });
      }
      if (controller.signal.reason === SHUTDOWN) throw new Error('the server instance holding this session stopped');
      if (controller.signal.aborted) await reader.cancel().catch(() => {});
      else sent({ t: 'end', r: frame.r });
    } catch (error) {
      await publish(back, { t: 'fail', r: frame.r, message: String((error as Error).message).slice(0, 2_000) }).catch(
        () => 0,
      );
    } finally {
      holding.delete(frame.r);
    }
  }

  function receive(message: string): void {
    const opened = open(key, replica, message, seen);
    if ('dropped' in opened) {
      drops[opened.dropped]++;
      return;
    }
    const { from, frame } = opened;
    switch (frame.t) {
      case 'request':
        // One relay id per request: a second request reusing a live one's id is not run.
        if (holding.has(frame.r)) drops.sender++;
        else void run(frame, from);
        return;
      case 'abort': {
        const entry = holding.get(frame.r);
        if (!entry) return;
        if (entry.requester !== from) {
          drops.sender++;
          return;
        }
        entry.controller.abort();
        void entry.reader?.cancel().catch(() => {});
        return;
      }
      default: {
        const relay = waiting.get(frame.r);
        if (!relay) return;
        if (relay.holder !== from) {
          drops.sender++;
          return;
        }
        relay.relayed.accept(frame);
      }
    }
  }

  async function holderAlive(holder: string): Promise<boolean> {
    const reply = (await redis.pubsub('NUMSUB', channelOf(holder))) as [string, number];
    return Number(reply[1]) > 0;
  }

  return {
    replica,
    async opened(id, owner) {
      const entry = `${replica}\n${sha256(owner, 'hex')}`;
      await redis.set(sessionKey(id), entry, 'PX', ttlMs);
      held.set(id, entry);
    },
    closed(id) {
      if (!held.delete(id)) return;
      void redis.del(sessionKey(id)).catch(() => {});
    },
    delivered: (request) => delivered.get(request),
    async forward(id, owner, request, auth) {
      if (delivered.has(request)) return undefined;
      let entry = located.get(id) ?? null;
      if (entry === null) {
        try {
          entry = await redis.get(sessionKey(id));
        } catch {
          return directoryDown();
        }
        if (entry !== null) remember(id, entry);
      }
      const [holder, digest] = entry?.split('\n') ?? [];
      // Unknown, here (but closed), or someone else's: the handler answers "Session not found".
      if (!holder || !digest || holder === replica || digest !== sha256(owner, 'hex')) return undefined;
      const body = request.method === 'GET' || request.method === 'HEAD' ? undefined : await readBody(request);
      if (body === TOO_LARGE) return tooLarge();
      const r = crypto.randomUUID();
      const relayed = new RelayedResponse({
        requestBody: body,
        alive: () => holderAlive(holder),
        livenessMs,
        abort: () => void publish(holder, { t: 'abort', r }).catch(() => {}),
        done: () => waiting.delete(r),
      });
      waiting.set(r, { relayed, holder });
      request.signal.addEventListener('abort', () => relayed.cancel(), { once: true });
      try {
        const reached = await publish(holder, {
          t: 'request',
          r,
          method: request.method as Extract<Frame, { t: 'request' }>['method'],
          url: request.url,
          // No credential crosses Redis: the holder acts on the identity checked here, and on the
          // digest of its owner (checked here against the session's entry) for the session's.
          owner: sha256(owner, 'hex'),
          headers: headerList(request.headers).filter(([name]) => !CREDENTIALS.has(name)),
          ...(body ? { body: toBase64(body) } : {}),
          ...(auth
            ? {
                auth: {
                  clientId: auth.clientId,
                  scopes: auth.scopes,
                  ...(auth.expiresAt === undefined ? {} : { expiresAt: auth.expiresAt }),
                },
              }
            : {}),
        });
        if (reached === 0) throw new HolderGone();
        return await relayed.response();
      } catch (error) {
        relayed.fail('the relay could not be sent', 'interrupted');
        waiting.delete(r);
        if (error instanceof RelayInterrupted) return relayInterrupted(error.message);
        if (error instanceof FrameRefused) return unrelayable(error.message);
        if (!(error instanceof HolderGone)) return directoryDown();
        // The holder stopped: its sessions are gone with it. Forget the entry so the next request is
        // answered without a round trip.
        located.delete(id);
        void redis.del(sessionKey(id)).catch(() => {});
        return undefined;
      }
    },
    async serve(h) {
      handler = h;
      subscriber.on('message', (channel: string, message: string) => {
        if (channel !== own) return;
        // Whatever a message holds, it is never thrown into ioredis's handler: a throw there
        // would take the replica, and every session on it, down.
        try {
          receive(message);
        } catch {
          drops.envelope++;
        }
      });
      // Pub/sub delivers at most once: whatever the holders published for us while this
      // connection was down is gone (ioredis subscribes again on reconnecting, but nothing is
      // replayed). A relay waiting on it could hang or go on with a hole in its stream, so each one
      // ends now with an error its client can act on; the sessions themselves are untouched.
      subscriber.on('close', () => {
        for (const { relayed } of waiting.values()) {
          relayed.fail('the relay lost its Redis subscription and may have missed part of the response', 'interrupted');
        }
      });
      await subscriber.connect();
      await subscriber.subscribe(own);
      // Written again, not merely extended: an entry dropped while this replica was briefly
      // unreachable (a requester found nobody on its channel) comes back with the next beat.
      heartbeat = setInterval(() => {
        if (held.size === 0) return;
        const pipeline = redis.pipeline();
        for (const [id, entry] of held) pipeline.set(sessionKey(id), entry, 'PX', ttlMs);
        void pipeline.exec().catch(() => {});
      }, ttlMs / 3);
      (heartbeat as { unref?: () => void }).unref?.();
    },
    inFlight: () => waiting.size + holding.size,
    dropped: () => ({ ...drops }),
    async close() {
      clearInterval(heartbeat);
      for (const entry of holding.values()) {
        entry.controller.abort(SHUTDOWN);
        await entry.reader?.cancel().catch(() => {});
      }
      for (const { relayed } of waiting.values()) relayed.fail('this replica is shutting down');
      if (held.size > 0) await redis.del(...[...held.keys()].map(sessionKey)).catch(() => 0);
      held.clear();
      subscriber.disconnect();
    },
  };
}

/** Why a relayed request was dropped at the holder when this replica shuts down (its requester is told). */
const SHUTDOWN = Symbol('shutdown');

const TOO_LARGE = Symbol('too large');
/** Headers that carry a credential: never relayed. */
const CREDENTIALS = new Set(['authorization', 'proxy-authorization', 'cookie']);
const LOCATED_MAX = 10_000;

/** The body to relay, or TOO_LARGE past the SDK's own request bound (it would refuse it anyway). */
async function readBody(request: Request): Promise<Uint8Array | typeof TOO_LARGE> {
  if (Number(request.headers.get('content-length') ?? 0) > DEFAULT_MAX_REQUEST_BODY_SIZE) return TOO_LARGE;
  const body = new Uint8Array(await request.arrayBuffer());
  return body.byteLength > DEFAULT_MAX_REQUEST_BODY_SIZE ? TOO_LARGE : body;
}

function tooLarge(): Response {
  return new Response(
    JSON.stringify({
      jsonrpc: '2.0',
      error: { code: INVALID_REQUEST, message: `Request body larger than ${DEFAULT_MAX_REQUEST_BODY_SIZE} bytes` },
      id: null,
    }),
    { status: 413, headers: { 'content-type': 'application/json' } },
  );
}

function relayInterrupted(reason: string): Response {
  return new Response(
    JSON.stringify({
      jsonrpc: '2.0',
      error: { code: INTERNAL_ERROR, message: `Service unavailable: ${reason}; send the request again` },
      id: null,
    }),
    { status: 503, headers: { 'content-type': 'application/json', 'retry-after': '1' } },
  );
}

function unrelayable(reason: string): Response {
  return new Response(
    JSON.stringify({ jsonrpc: '2.0', error: { code: INVALID_REQUEST, message: `Cannot relay: ${reason}` }, id: null }),
    { status: 400, headers: { 'content-type': 'application/json' } },
  );
}

function directoryDown(): Response {
  return new Response(
    JSON.stringify({
      jsonrpc: '2.0',
      error: { code: INTERNAL_ERROR, message: 'Service unavailable: the session directory (Redis) cannot be reached' },
      id: null,
    }),
    { status: 503, headers: { 'content-type': 'application/json', 'retry-after': '5' } },
  );
}
