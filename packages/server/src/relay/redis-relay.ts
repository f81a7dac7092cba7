import { DEFAULT_MAX_REQUEST_BODY_SIZE } from '@modelcontextprotocol/server';
import type { Redis } from 'ioredis';
import { bounded, storeTimeout } from '../claims/bounded.js';
import { sha256 } from '../digest.js';
import { SERVE_EXCHANGE, type ServeExchange } from '../http/exchange.js';
import type { SessionDirectory } from '../http/session-directory.js';
import { checkSecret } from '../secret.js';
import { type DirectOptions, Links } from './direct.js';
import {
  directoryDown,
  directoryRebuilding,
  dropHeld,
  dropIfLapsed,
  Hearing,
  HOLDER_GONE,
  type PeerLost,
  payOwed,
  type RelayCore,
  readBody,
  receiveFrame,
  receiveOnLink,
  relayTo,
  SHUTDOWN,
  subscriptionLost,
  TOO_LARGE,
  tooLarge,
} from './ends.js';
import { type DropReason, frameKey, sealFrames } from './frames.js';
import { Publisher } from './publisher.js';
import { RedisClock } from './redis-clock.js';
import { SessionEntries, type SessionEntry } from './session-entries.js';
import { Unanswered } from './unanswered.js';

/** How `createRedisRelay` names things and how often it checks that replicas are alive. */
export interface RedisRelayOptions {
  /**
   * The secret every replica shares (the kit's state secret will do): frames are sealed with a key
   * derived from it, and a frame that does not open with it is dropped. Required: at least 32 bytes
   * (a string's UTF-8), random — a shorter one throws a `RangeError`.
   */
  secret: string | Uint8Array;
  /** This replica's id (unique among the replicas). Default: a random UUID. */
  replica?: string;
  /**
   * Prefix of every key and channel: one directory of sessions per prefix. Default
   * `elicitkit:relay:`. Replicas of one server share it; two servers on one Redis with one secret
   * need one each, or each relays to the other's sessions.
   */
  prefix?: string;
  /**
   * How long a session's entry, and a replica's liveness, live without its heartbeat, ms: a replica
   * killed without closing is reported gone (its sessions "not found") this long after, answered
   * 503 to send again until then. Default 30 s. `timeoutMs + livenessMs` must stay below two
   * thirds of it (else a `RangeError`): a requester gives up on a holder whose Redis stalled from
   * then on, and the holder must have dropped the call by that moment.
   */
  sessionTtlMs?: number;
  /**
   * How often each end of a relay in progress through Redis checks that the other is still
   * subscribed, ms. Default 1 s. With `direct`, also how often each end pings its peer on a direct
   * connection while a relay waits on it or is held for it (a peer of an earlier version, which
   * does not answer, is not pinged): a peer not heard from on it (a `pong`, or anything else)
   * within `timeoutMs` and `livenessMs` more of a ping closes the connection, and its relays end
   * as when it is lost.
   */
  livenessMs?: number;
  /**
   * How long each of the relay's own Redis commands waits for an answer, ms — the directory lookup,
   * a session's entry written, the PUBLISH of a relayed request and of each frame of its response,
   * each liveness check, the subscription at `serve` — on a client that would wait for as long as
   * Redis is away (ioredis's offline queue, `maxRetriesPerRequest: null`). Past it the request is
   * answered 503 to send again (a relay in progress ends with an error) — once the holder is sure
   * to have dropped what it may have of it: its `abort` went out, or this replica's heartbeat has
   * lapsed (`sessionTtlMs`) and `livenessMs` more. A relayed request given up on is never delivered
   * later: Redis publishes it only before that moment on its own clock. Default 5 s, as the claim
   * and event stores.
   */
  timeoutMs?: number;
  /**
   * Relay on direct TCP connections between replicas, Redis staying the directory and the way
   * when a connection is not up: this replica listens (`host`, default `127.0.0.1`; `port`,
   * default any free one) and writes the address others reach it at (`advertise`, required when
   * listening on every interface) in its sessions' entries. Messages are sealed as on Redis. A
   * connection a relay uses is trusted only while its peer answers sealed pings on it (`livenessMs`).
   */
  direct?: DirectOptions;
  /**
   * Told of what went wrong with a relay, for the operator's log. On the replica that relayed the
   * request: each relay that ended without its whole response (a `RelayFailedError`: the holder,
   * the request's method, whether the response had begun, and why, as its client was told). On
   * the holder: each error a relayed request's handler or its response threw — its client is told
   * only that the request failed there, never the error, which may name files, SQL or what the
   * request carried. One that throws takes nothing down.
   */
  onerror?: (error: Error) => void;
}

/** The Redis-backed `SessionDirectory`: pass it to `createHttpHandler`, then `serve` that handler. */
export interface RedisRelay extends SessionDirectory {
  readonly replica: string;
  /** With `direct`, once serving: the `host:port` other replicas connect to (written in the directory). */
  readonly address: string | undefined;
  /** Subscribes this replica to its channel and runs the requests other replicas relay to it on `handler`. */
  serve(handler: { fetch(request: Request): Promise<Response> }): Promise<void>;
  /** Relays in flight, both ways (for tests and shutdown). */
  inFlight(): number;
  /** With `direct`: connections to and from other replicas open now, greeted or not (for tests). */
  connections(): number;
  /**
   * Messages dropped on this replica's channel, by why: a bad or missing signature, an envelope
   * or frame that is not what it must be, one meant for another replica, expired or seen before,
   * or one from a replica other than the one the relay is with (`sender`).
   */
  dropped(): Readonly<Record<DropReason | 'sender', number>>;
  /**
   * Unsubscribes, ends the relays in flight, and forgets this replica's sessions — waiting on Redis
   * for that at most 2 s: unreachable, the entries lapse on their own (`sessionTtlMs`).
   */
  close(): Promise<void>;
}

/**
 * 2025 sessions across replicas through Redis. Each replica records the sessions it holds
 * (`<prefix>session:<id>` → replica and a digest of the owner, kept alive by a heartbeat) and
 * listens on its own channel. A replica that gets a request for a session held elsewhere publishes
 * it to the holder's channel; the holder runs it on its own handler — authentication, limits and
 * the session's owner check included — and publishes the response back, head, chunks and end, so
 * an SSE stream (a `tools/call` with its `elicitation/create`, a GET stream) flows as it is written.
 *
 * A holder that is gone fails closed: PUBLISH reaching no subscriber answers "Session not found"
 * once its heartbeat has lapsed too (at once for one that stopped), 503 to send again while it
 * beats (cut from Redis for a moment: its sessions live); a relay in progress checks every second
 * that the holder is still subscribed, ending an SSE stream with a JSON-RPC error for the requests
 * it carried. Whenever a requester gives up on a relay, its holder drops it: told by an `abort`
 * (sent again once Redis is back if Redis refused it; where the relay may still run there, its
 * client is told only once the holder says it dropped it, or a heartbeat lapsed), by its own subscription's drop (which may
 * have lost that `abort`), or by its own watch that the requester still listens — and the calls it
 * carried end with it, on a session with an event store too (only a client that went away, told
 * nothing, may resume them) — so a call a client was told had failed never acts on a later answer.
 *
 * @example
 * import { Redis } from 'ioredis';
 * const relay = createRedisRelay(new Redis(url), { secret: process.env.ELICITKIT_SECRET });
 * const http = createHttpHandler(factory, { authenticate, sessions: relay });
 * await relay.serve(http);
 */
export function createRedisRelay(redis: Redis, options: RedisRelayOptions): RedisRelay {
  const replica = options.replica ?? crypto.randomUUID();
  const prefix = options.prefix ?? 'elicitkit:relay:';
  // A frame sealed under a short or empty secret is one anyone on the Redis can make.
  const secret = checkSecret('secret', options.secret);
  const livenessMs = wholeMs('livenessMs', options.livenessMs, 1_000);
  const sessionTtlMs = wholeMs('sessionTtlMs', options.sessionTtlMs, 30_000);
  const timeoutMs = storeTimeout(options.timeoutMs);
  // A requester gives up on a holder whose heartbeat lapsed, from two thirds of `sessionTtlMs`
  // after that holder's Redis stalled (its last beat answered, a third before): the holder must
  // have dropped the call by then — given up on its Redis (`timeoutMs`), and asked (`livenessMs`).
  if (3 * (timeoutMs + livenessMs) >= 2 * sessionTtlMs)
    throw new RangeError(
      `timeoutMs (${timeoutMs}) + livenessMs (${livenessMs}) must stay below two thirds of sessionTtlMs (${sessionTtlMs}: ${Math.floor((2 * sessionTtlMs) / 3)} ms): a holder whose Redis stalls must have dropped a call before its requester gives up on it`,
    );
  if (options.direct) {
    const { helloTimeoutMs, maxConnections, port } = options.direct;
    wholeMs('direct.helloTimeoutMs', helloTimeoutMs, 5_000);
    wholeMs('direct.maxConnections', maxConnections, 1_024);
    if (port !== undefined && !(Number.isInteger(port) && port >= 0 && port <= 65_535))
      throw new RangeError(`direct.port must be a whole number from 0 to 65535, not ${String(port)}`);
  }
  const channelOf = (id: string) => `${prefix}replica:${id}`;
  let links: Links | undefined;
  const sessions = new SessionEntries(redis, prefix, replica, sessionTtlMs, () => links?.advertised, timeoutMs);
  const clock = new RedisClock(redis, timeoutMs);
  // A beat answered after a gap its liveness may have lapsed in: what this replica ran for others
  // from before it is dropped, as a request coming meanwhile would (`dropIfLapsed`).
  sessions.lapsed = (before) => dropHeld(core, before);
  // Its own connection (a subscribed one can do nothing else), queueing while it connects. Named,
  // so an operator (and a test) can tell it in CLIENT LIST.
  const subscriber = redis.duplicate({
    lazyConnect: true,
    enableOfflineQueue: true,
    connectionName: `${prefix.replace(/[^\w:.-]/g, '_')}relay:${replica}`,
  });
  subscriber.on('error', () => {});
  const key = frameKey(secret);
  const publisher = new Publisher(redis, key, replica, channelOf, timeoutMs);
  const core: RelayCore = {
    replica,
    key,
    seen: new Map(),
    late: new Map(),
    drops: { signature: 0, envelope: 0, schema: 0, misdirected: 0, expired: 0, replayed: 0, sender: 0 },
    waiting: new Map(),
    holding: new Map(),
    delivered: new WeakMap(),
    handler: undefined,
    owed: new Map(),
    unanswered: new Unanswered(),
    confirming: new Map(),
    given: new Map(),
    livenessMs,
    mayHaveLapsed: () => sessions.mayHaveLapsed(),
    // A frame the receiver would refuse is a rejection like a Redis failure, never a throw.
    publish: (to, frame, takes) => publisher.publish(to, frame, takes),
    watch: (peer, lost, beats, hearing) => watch(peer, lost, beats, hearing),
    hearingOf: (peer) => sessions.hearingOf(peer),
    watchBeat: (peer, lost) => watchBeat(peer, lost),
    beating: (peer) => sessions.beating(peer),
    hearing: new Hearing(),
    timeoutMs,
    onerror: (error) => {
      try {
        options.onerror?.(error);
      } catch {
        // The operator's logger failing takes no relay down with it.
      }
    },
    redisBefore: (by) => clock.before(by),
    // Up to a heartbeat's whole lapse (30 s): it holds no process open once all else closed (a
    // replica told to stop exited only then).
    unheard: () =>
      new Promise<void>((resolve) => {
        const lapse = setTimeout(resolve, sessions.lapsesIn() + livenessMs);
        (lapse as { unref?: () => void }).unref?.();
      }),
  };
  // Redis back after refusing commands: the aborts it refused go now. Back after a break, it may
  // have restarted and forgotten every entry and heartbeat: until every holder has written its
  // own again (each does at its next beat, or as it subscribes again), one missing is not read as
  // gone — a session not found, a holder not beating — but as not known yet.
  let wasReady = redis.status === 'ready';
  let rebuildingUntil = Number.NEGATIVE_INFINITY;
  const rebuilding = () => performance.now() < rebuildingUntil;
  const repay = () => {
    if (wasReady) rebuildingUntil = performance.now() + sessionTtlMs;
    wasReady = true;
    payOwed(core);
  };
  redis.on('ready', repay);
  if (options.direct)
    links = new Links(
      options.direct,
      {
        // Whatever a message holds, it is never thrown into the socket's handler.
        message: (message, link) => {
          try {
            receiveOnLink(core, message, link);
          } catch {
            core.drops.envelope++;
            link.close();
          }
        },
        hello: (to) => sealFrames(key, replica, to, [{ t: 'hello' }], Date.now(), true),
        lost: (link) => {
          // Nothing runs on a connection before it greeted: closing one (a stranger's, or one
          // evicted at `maxConnections`) costs no walk through the relays in flight.
          if (link.peer === undefined) return;
          for (const relay of core.waiting.values()) if (relay.via === link) relay.lost?.();
          for (const held of core.holding.values()) {
            if (held.via !== link) continue;
            held.controller.abort();
            void held.reader?.cancel().catch(() => {});
          }
        },
      },
      // A connection a relay uses is pinged as often as a relay through Redis is checked on, and
      // its peer given as long to answer as such a check takes at most, and a period more (a
      // heartbeat check due meanwhile says first what it found).
      {
        everyMs: livenessMs,
        withinMs: timeoutMs + livenessMs,
        ping: (to, p) => sealFrames(key, replica, to, [{ t: 'ping', p }], Date.now(), true),
      },
    );
  // Whether `peer` still listens on its channel; if not, whether it is gone or only cut from Redis.
  // One known to beat (`beats`) is asked both at once: subscribed as far as Redis can tell but not
  // beating, it is not heard from (a connection its host never closed, powered off or cut off,
  // lingers in Redis for minutes; or it is back and its next beat not written yet).
  // With `hearing` (which of the peer's subscriptions a request was published to), its liveness is
  // read for it too: another subscription since is `again`, whatever Redis counts.
  const check = async (peer: string, beats: boolean, hearing?: string | null): Promise<PeerLost | undefined> => {
    const [subscribed, beating] = await Promise.all([
      bounded(redis.pubsub('NUMSUB', channelOf(peer)), timeoutMs).then(
        (reply) => Number((reply as [string, number])[1]) > 0,
      ),
      hearing !== undefined
        ? sessions.hearingOf(peer).then((now) => (now === null ? false : now === hearing ? true : 'again'))
        : beats
          ? sessions.beating(peer)
          : undefined,
    ]);
    if (beating === 'again') return 'again';
    if (subscribed) return beating === false && beats ? 'away' : undefined;
    return (beating ?? (await sessions.beating(peer))) ? 'away' : 'gone';
  };
  // The relays in flight with each other replica, either way, and the one timer per replica that
  // asks, every `livenessMs`, about it (`ask`): one question per replica, however many relays
  // there are with it. Those through Redis, whether it still listens (`check`); those on a direct
  // connection to a holder known to beat, whether its heartbeat is current.
  type Lost = (why: PeerLost) => void;
  // A question not answered yet is not asked again: on a client that queues while Redis is away,
  // they would pile up, one every `livenessMs`; each gives up after `timeoutMs` ('unreachable').
  const watched = new Map<string, { ends: Set<Lost>; timer: ReturnType<typeof setInterval> }>();
  const poll = (key: string, ask: () => Promise<PeerLost | undefined>, lost: Lost) => {
    let watching = watched.get(key);
    if (!watching) {
      const ends = new Set<Lost>();
      let asking = false;
      const timer = setInterval(() => {
        if (asking) return;
        asking = true;
        void ask()
          .then(
            (why) => {
              if (why) for (const end of [...ends]) end(why);
            },
            () => {
              for (const end of [...ends]) end('unreachable');
            },
          )
          .finally(() => {
            asking = false;
          });
      }, livenessMs);
      (timer as { unref?: () => void }).unref?.();
      watching = { ends, timer };
      watched.set(key, watching);
    }
    // Its own function per relay: one lost twice is watched twice.
    const end: Lost = (why) => lost(why);
    watching.ends.add(end);
    return () => {
      const current = watched.get(key);
      if (!current?.ends.delete(end) || current.ends.size > 0) return;
      clearInterval(current.timer);
      watched.delete(key);
    };
  };
  const watch = (peer: string, lost: Lost, beats = false, hearing?: string | null) =>
    poll(
      `${beats ? 'beats' : 'listens'}:${peer}${hearing === undefined ? '' : `:${hearing}`}`,
      () => check(peer, beats, hearing),
      lost,
    );
  const watchBeat = (peer: string, lost: (why: 'gone' | 'unreachable') => void) =>
    poll(
      `direct:${peer}`,
      async () => ((await sessions.beating(peer)) || rebuilding() ? undefined : 'gone'),
      (why) => (why === 'gone' || why === 'unreachable') && lost(why),
    );

  const close = async (): Promise<void> => {
    for (const entry of core.holding.values()) {
      entry.controller.abort(SHUTDOWN);
      await entry.reader?.cancel().catch(() => {});
    }
    // The sessions are the holders' and go on: these requests are cut, and the holders told to
    // drop them (503, send again), never answered as if their sessions were gone. Each client is
    // told once its holder said it dropped the call — waiting on that at most 2 s: past it, told
    // all the same (the holder, no longer hearing this replica, drops it on its own).
    const shutting = 'this replica is shutting down';
    const told = [...core.waiting.values()].map(({ relayed }) => relayed.giveUp(shutting));
    await Promise.race([Promise.all(told), new Promise((resolve) => setTimeout(resolve, CLOSE_WAIT_MS).unref?.())]);
    for (const { relayed } of core.waiting.values()) relayed.fail(shutting, 'interrupted');
    // Nothing more is asked of the holders: the requests' clients were told.
    for (const { confirmed } of [...core.confirming.values()]) confirmed();
    for (const { timer } of watched.values()) clearInterval(timer);
    watched.clear();
    redis.off('ready', repay);
    clock.close();
    await sessions.closeAll();
    await links?.close();
    subscriber.disconnect();
  };
  return {
    replica,
    get address() {
      return links?.advertised;
    },
    opened: (id, owner) => sessions.open(id, owner),
    closed: (id) => sessions.close(id),
    delivered: (request) => core.delivered.get(request),
    serving: () => dropIfLapsed(core),
    async forward(id, owner, request, auth, read) {
      if (core.delivered.has(request)) return undefined;
      let entry: SessionEntry | undefined;
      try {
        entry = await sessions.find(id);
      } catch {
        return directoryDown();
      }
      // Unknown, here (but closed), or someone else's: the handler answers "Session not found" —
      // unless Redis may have forgotten it, and its holder not written it again yet.
      if (!entry) return rebuilding() ? directoryRebuilding() : undefined;
      if (entry.holder === replica) return undefined;
      const digest = sha256(owner, 'hex');
      if (entry.digest !== digest) return undefined;
      const { holder, batches, aead, address, wideIdentity, wholeIdentity, beats, sequenced, pings, acks } = entry;
      const body =
        request.method === 'GET' || request.method === 'HEAD'
          ? undefined
          : read && read.byteLength > DEFAULT_MAX_REQUEST_BODY_SIZE
            ? TOO_LARGE
            : (read ?? (await readBody(request)));
      if (body === TOO_LARGE) return tooLarge();
      const via = address && links ? links.to(holder, address) : undefined;
      const sent = await relayTo(core, {
        holder,
        takes: { batch: batches, aead, ...(via ? { via } : {}) },
        owner: digest,
        request,
        body,
        auth,
        wideIdentity,
        wholeIdentity,
        beats,
        sequenced,
        pings,
        acks,
        session: id,
      });
      if (sent !== HOLDER_GONE) return sent;
      // Not beating, it seems: after a Redis restart its heartbeat may just not be written again yet.
      if (rebuilding()) return directoryRebuilding();
      sessions.forget(id);
      return undefined;
    },
    async serve(handler) {
      const serve = (handler as Partial<Record<typeof SERVE_EXCHANGE, ServeExchange>>)[SERVE_EXCHANGE];
      core.handler = { fetch: (request) => handler.fetch(request), ...(serve ? { serve } : {}) };
      try {
        // Beating before it listens: nobody hears it only while it is not alive or cut from Redis.
        await sessions.beat();
        // Redis's clock read before any request is relayed (`RelayCore.redisBefore`).
        await clock.read();
        await listen(core, subscriber, channelOf(replica), timeoutMs, () => sessions.subscribedAgain());
        await links?.listen();
      } catch (error) {
        // A serve that fails (the direct port taken, Redis gone) stops what it started — the
        // heartbeat, the subscriber connection of the relay's own — not left for the caller to
        // know to close: its process would never exit, and go on beating as alive.
        await close().catch(() => {});
        throw error;
      }
    },
    inFlight: () => core.waiting.size + core.holding.size,
    connections: () => links?.open ?? 0,
    dropped: () => ({ ...core.drops }),
    close,
  };
}

/** How long `close` waits for the holders of the relays it waits on to say they dropped them. */
const CLOSE_WAIT_MS = 2_000;

/** An option that is a whole number, at least 1 (its default when not given), else a `RangeError` naming it. */
function wholeMs(name: string, value: number | undefined, otherwise: number): number {
  if (value === undefined) return otherwise;
  if (Number.isSafeInteger(value) && value >= 1) return value;
  throw new RangeError(`${name} must be a whole number from 1 to ${Number.MAX_SAFE_INTEGER}, not ${String(value)}`);
}

/** Subscribes to this replica's channel: every frame on it goes to `receiveFrame`. */
async function listen(
  core: RelayCore,
  subscriber: Redis,
  own: string,
  timeoutMs: number,
  /** Says, in this replica's liveness, that it listens on a new subscription (`SessionEntries.subscribedAgain`). */
  again: () => Promise<void>,
): Promise<void> {
  subscriber.on('message', (channel: string, message: string) => {
    if (channel !== own) return;
    // Whatever a message holds, it is never thrown into ioredis's handler: a throw there
    // would take the replica, and every session on it, down.
    try {
      receiveFrame(core, message);
    } catch {
      core.drops.envelope++;
    }
  });
  // Pub/sub delivers at most once: whatever was published for us while this connection was down is
  // gone (ioredis subscribes again on reconnecting, but nothing is replayed): the relays through
  // it end, both ways (`subscriptionLost`).
  subscriber.on('close', () => {
    core.hearing.set(false);
    subscriptionLost(core);
  });
  await bounded(subscriber.connect(), timeoutMs);
  await bounded(subscriber.subscribe(own), timeoutMs);
  core.hearing.set(true);
  // Connected again: heard once subscribed again (ioredis subscribes again on its own; this one,
  // after it on the same connection, answers once the channel is ours again).
  // Its requesters, whose requests published to the subscription that went may be lost (Redis
  // counts this one as it counted that), learn of it from its liveness.
  subscriber.on('ready', () => {
    subscriber.subscribe(own).then(
      () => {
        core.hearing.set(subscriber.status === 'ready');
        void again().catch(() => {});
      },
      () => {},
    );
  });
}
