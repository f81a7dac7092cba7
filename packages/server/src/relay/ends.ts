/**
 * The relay's two ends on one replica, apart from Redis itself: the holder running a request
 * another replica relayed to it (`runRelayed`), the frames arriving on this replica's channel
 * (`receiveFrame`), and the replies a relay ends with when it cannot go on.
 */
import {
  type AuthInfo,
  DEFAULT_MAX_REQUEST_BODY_SIZE,
  INTERNAL_ERROR,
  INVALID_REQUEST,
} from '@modelcontextprotocol/server';
import { StoreTimeoutError } from '../claims/bounded.js';
import { sha256 } from '../digest.js';
import {
  TOO_LARGE as BODY_TOO_LARGE,
  type Exchange,
  INVALID,
  markRelayed,
  type ReadBody,
  type ServeExchange,
  STREAM_ONLY,
} from '../http/exchange.js';
import type { Delivered } from '../http/session-directory.js';
import { watchResponse } from '../http/watch.js';
import type { Link } from './direct.js';
import {
  checkEarlierIdentity,
  type DropReason,
  FRAME_TTL_MS,
  type Frame,
  type FrameKeys,
  FrameRefused,
  fromBase64,
  headerList,
  MAX_DATA_BYTES,
  open,
  type RelayedIdentity,
  sealFrames,
  toBase64,
} from './frames.js';
import type { Takes } from './publisher.js';
import { HolderGone, RelayedResponse, RelayFailedError, RelayInterrupted } from './relayed-response.js';
import type { Unanswered } from './unanswered.js';

/** What a holder sends back for a relayed request: its response's frames. */
type ResponseFrame = Extract<Frame, { t: 'head' | 'data' | 'end' | 'fail' }>;

/** A relay this replica runs for another (it holds the session). */
export interface Holding {
  /** The replica that asked: only it may abort. */
  requester: string;
  controller: AbortController;
  reader?: ReadableStreamDefaultReader<Uint8Array>;
  /** The direct connection it came on (its replies go back on it), if it did. */
  via?: Link;
  /** When it came (`performance.now()`). */
  since: number;
}

/**
 * What a replica watching another through Redis (`RelayCore.watch`) learns when that one no longer
 * listens on its channel: it stopped, or was killed, and its heartbeat lapsed (`gone`); it is cut
 * from Redis for a moment, its heartbeat current — or, known to beat, its heartbeat lapsed while
 * Redis still counts its subscription (`away`); or Redis could not be asked (`unreachable`). A
 * requester that knows which of the holder's subscriptions its request was published to (`watch`'s
 * `hearing`) also learns that the holder has subscribed again since (`again`): a request published
 * to the subscription that went may be lost, and Redis still counts one.
 */
export type PeerLost = 'gone' | 'away' | 'unreachable' | 'again';

/** A relay this replica waits on. */
export interface Waiting {
  relayed: RelayedResponse;
  holder: string;
  /** The direct connection it was sent on, if it was. */
  via?: Link;
  /**
   * Its connection closed: ends it, once the holder is sure to drop it — a connection lost at this
   * end only (the network between them gone) may still be open at the holder's.
   */
  lost?: () => void;
}

/** What one replica's relay keeps: its id and key, the relays in flight both ways, what it dropped. */
export interface RelayCore {
  replica: string;
  key: FrameKeys;
  /** Nonces of frames taken, until they expire. */
  seen: Map<string, number>;
  /** Nonces of messages that came after their expiry and were told (`takeLate`), until `LATE_MS` past it. */
  late: Map<string, number>;
  drops: Record<DropReason | 'sender', number>;
  /**
   * Relays this replica waits on → the response being rebuilt, the holder it must come from, and
   * the direct connection it was sent on, if it was.
   */
  waiting: Map<string, Waiting>;
  holding: Map<string, Holding>;
  /**
   * Requests this replica runs for another → the identity the requester authenticated (none for
   * an endpoint without authentication): never relayed again, so a stale entry cannot loop.
   */
  delivered: WeakMap<Request, Delivered>;
  /** The handler relayed requests run on, once `serve` gave it. */
  handler: RelayHandler | undefined;
  /**
   * Aborts this replica could not send (Redis refused the PUBLISH: it was down), by holder, with
   * how that holder reads messages: relay → whether only its stream ends (`resume`). Sent again before anything else to that holder, and once Redis
   * is back (`payOwed`).
   */
  owed: Map<string, { aead: boolean; relays: Map<string, boolean> }>;
  /** Requests this replica sent through Redis that their holder has not answered yet (`Unanswered`). */
  unanswered: Unanswered;
  /**
   * Relays this replica gave up on and waits to hear are dropped at their holder (`confirmDrop`):
   * relay → its holder, and what its `dropped` answer calls.
   */
  confirming: Map<string, { holder: string; confirmed: () => void }>;
  /**
   * Relays this replica was told to drop before it ran them (`abort` came first: the request on its
   * way on another route, or lost) → the requester, and until when (epoch ms) a request by that id
   * is not run: past it, one is refused as late anyway (`open`).
   */
  given: Map<string, { requester: string; until: number }>;
  /** How often each end of a relay checks on the other, ms (`RedisRelayOptions.livenessMs`). */
  livenessMs: number;
  /** Whether this replica's own liveness may have lapsed in Redis (`SessionEntries.mayHaveLapsed`). */
  mayHaveLapsed(): boolean;
  /**
   * Watches, every few moments, that `peer` still listens on its channel, calling `lost` when it
   * does not (or Redis cannot be asked); returns what stops watching. Both ends of a relay through
   * Redis watch each other: the requester its holder, the holder its requester. `beats`: `peer`
   * is known to keep its heartbeat (its directory entry says so), and one whose heartbeat lapsed
   * is not heard from even while Redis still counts its subscription (a host powered off or cut
   * off: Redis keeps a connection nobody closed until its keepalive gives up, minutes later).
   */
  watch(peer: string, lost: (why: PeerLost) => void, beats?: boolean, hearing?: string | null): () => void;
  /** Which of `peer`'s subscriptions to its channel is current (`SessionEntries.hearingOf`). Rejects when Redis cannot be asked. */
  hearingOf(peer: string): Promise<string | null>;
  /**
   * Watches, every few moments, that `peer` (known to beat) keeps its heartbeat, calling `lost`
   * once it does not (`gone`), or once Redis cannot be asked (`unreachable`: again at each check
   * it cannot); returns what stops watching. A relay on a direct connection waits on the
   * connection, and one to a host powered off or cut off stays open for minutes (until TCP gives
   * up on it): its holder's heartbeat lapsing closes it, and so, once this replica is sure its
   * peer has dropped what it relayed, does Redis not answering.
   */
  watchBeat(peer: string, lost: (why: 'gone' | 'unreachable') => void): () => void;
  /**
   * Whether `peer`'s heartbeat is current: a replica not listening on its channel but beating is
   * cut from Redis for a moment, not gone. Rejects when Redis cannot be asked.
   */
  beating(peer: string): Promise<boolean>;
  /**
   * Whether this replica hears its own channel (its subscription is up), and waiting, bounded, for
   * it to again: a relay through Redis sent while it is down would have its answer published to
   * nobody, and wait on it for ever.
   */
  hearing: Hearing;
  /** How long each Redis command of the relay waits for an answer, ms (`RedisRelayOptions.timeoutMs`). */
  timeoutMs: number;
  /** `RedisRelayOptions.onerror`, made safe: one that throws takes nothing down. */
  onerror(error: Error): void;
  /**
   * The moment on Redis's clock before which a command must run there to have run before `by` here
   * (`performance.now()`): a relayed request is published only before it (`Takes.before`).
   */
  redisBefore(by: number): Promise<number>;
  /**
   * Resolves once this replica's heartbeat has lapsed in Redis for sure (its last beat answered
   * `sessionTtlMs` ago), and `livenessMs` more: a holder that still reaches Redis has seen by then
   * that this replica is not heard from, and dropped what it relayed.
   */
  unheard(): Promise<void>;
  /**
   * Publishes a frame to a replica, sealed; resolves with how many listened. `takes`: how that
   * replica said it takes its messages (on its request, or in its directory entry) — several
   * frames in one (`batch`: the frames written for it at once go together), unsigned (`aead`).
   */
  publish(to: string, frame: Frame, takes?: Takes): Promise<number>;
}

/**
 * A handler relayed requests run on: any `fetch`, and for one made by `createHttpHandler` its
 * core (`serve`), handed the relayed body as it came (`relayedBody`) instead of a copy of it
 * streamed through a `Request` and read back.
 */
export interface RelayHandler {
  fetch(request: Request): Promise<Response>;
  serve?: ServeExchange;
}

/**
 * A relayed request: its method, URL and headers, and the signal its relay aborts. The signal is
 * the relay's own, not one the request follows (a second controller, a listener and a finalization
 * registration per request); the body, if any, is handed to the handler beside it.
 */
class RelayedRequest extends Request {
  readonly #signal: AbortSignal;

  constructor(url: string, init: RequestInit, signal: AbortSignal) {
    super(url, init);
    this.#signal = signal;
  }

  override get signal(): AbortSignal {
    return this.#signal;
  }
}

const decoder = new TextDecoder();

/**
 * What `createHttpHandler` reads from a relayed POST: the body it carried, bounded and parsed as
 * the handler's own fetch face reads one (the SDK's `readRequestBody`: its `content-length`, then
 * its bytes, against the SDK's bound; decoded as UTF-8 with invalid bytes replaced), and the
 * response followed to its end as that face follows it.
 */
function relayedBody(body: Uint8Array | undefined): Exchange {
  return {
    async read(request): Promise<ReadBody> {
      const bytes = body ?? new Uint8Array(0);
      if (
        Number(request.headers.get('content-length')) > DEFAULT_MAX_REQUEST_BODY_SIZE ||
        bytes.byteLength > DEFAULT_MAX_REQUEST_BODY_SIZE
      )
        return BODY_TOO_LARGE;
      const text = decoder.decode(bytes);
      try {
        if (text.length > 0) return { request, body: JSON.parse(text) };
      } catch {}
      // Empty or not JSON: the transport answers it from the request's own text.
      return { request: new Request(request, { body: text, signal: request.signal }), body: INVALID };
    },
    follow: watchResponse,
  };
}

export async function runRelayed(
  core: RelayCore,
  frame: Extract<Frame, { t: 'request' }>,
  back: string,
  via?: Link,
): Promise<void> {
  const { holding, delivered } = core;
  // Answered the way it came: on its direct connection, or on the requester's channel.
  const takes: Takes = { batch: frame.batch === true, aead: frame.aead === true, ...(via ? { via } : {}) };
  // Numbered in the order given to the publisher, which is the order they go out in.
  let next = 0;
  const publish =
    frame.seq === true
      ? (to: string, f: ResponseFrame) => core.publish(to, { ...f, i: next++ }, takes)
      : (to: string, f: ResponseFrame) => core.publish(to, f, takes);
  const controller = new AbortController();
  const entry: Holding = { requester: back, controller, since: performance.now(), ...(via ? { via } : {}) };
  holding.set(frame.r, entry);
  // Held for its connection: the requester, if it answers pings (it said so on the request), is
  // pinged on it while it runs, and the connection closed — the relay dropped with it — when it
  // does not answer in time: one that can no longer hear this replica there has given up on it.
  if (via && frame.ping === true) via.answering();
  const release = via?.use();
  // Redis not answering whether the requester listens (`timeoutMs`) drops it too: that requester's
  // own questions go unanswered as well, and it gives up on the relay — and this replica would not
  // hear its `abort`.
  // A requester that no longer listens has given up on this relay (its subscription's drop failed
  // its relays, and told its client so), even if its `abort` never came: dropped here too, so a
  // call its client was told had failed never goes on. On a direct connection, its closing says it.
  // A requester whose host died without closing anything (powered off, cut off) still listens as
  // far as Redis can tell, and its connection stays open for minutes: one known to keep its
  // heartbeat is not heard from once that lapses — through Redis its relays are dropped, on a
  // direct connection the connection is closed. A requester that asks for numbered frames (`seq`)
  // is of a version that beats.
  const beats = frame.seq === true;
  // On a direct connection, Redis not answering whether the requester beats drops the relay as
  // through Redis: the requester gives up on it too (and closes the connection) once it is sure
  // this replica has dropped it, and a frozen requester would otherwise hold it for as long as TCP
  // keeps the connection.
  const unwatch = via
    ? beats
      ? core.watchBeat(back, (why) => (why === 'gone' ? via.close() : drop(entry, UNREACHABLE)))
      : () => {}
    : core.watch(back, (why) => drop(entry, why === 'unreachable' ? UNREACHABLE : UNHEARD), beats);
  let headSent = false;
  try {
    const handler = core.handler;
    if (!handler) throw new Ended('this replica is not serving yet');
    const body = frame.body === undefined ? undefined : fromBase64(frame.body);
    const request = handler.serve
      ? new RelayedRequest(frame.url, { method: frame.method, headers: frame.headers }, controller.signal)
      : new Request(frame.url, {
          method: frame.method,
          headers: frame.headers,
          signal: controller.signal,
          ...(body === undefined ? {} : { body: body as BodyInit }),
        });
    markRelayed(request);
    const owner = frame.owner;
    delivered.set(request, {
      auth: frame.auth && {
        // The credential stayed with the replica that checked it.
        token: '',
        clientId: frame.auth.clientId,
        scopes: frame.auth.scopes,
        ...(frame.auth.expiresAt === undefined ? {} : { expiresAt: frame.auth.expiresAt }),
        ...(frame.auth.extra === undefined ? {} : { extra: frame.auth.extra }),
        ...(frame.auth.resource === undefined ? {} : { resource: new URL(frame.auth.resource) }),
      },
      owns: async (sessionOwner) => sha256(sessionOwner, 'hex') === owner,
    });
    const response = await (handler.serve ? handler.serve(request, relayedBody(body)) : handler.fetch(request));
    const head = { t: 'head', r: frame.r, status: response.status, headers: headerList(response.headers) } as const;
    // A JSON reply or a bare status travels whole, in one message, when one frame holds it; SSE
    // streams, and longer replies, go piece by piece.
    if (!response.body || !response.headers.get('content-type')?.startsWith('text/event-stream')) {
      const body = response.body ? new Uint8Array(await response.arrayBuffer()) : undefined;
      if (!body || body.byteLength <= MAX_DATA_BYTES) {
        await publish(back, { ...head, end: true, ...(body?.byteLength ? { body: toBase64(body) } : {}) });
        return;
      }
      headSent = true;
      await publish(back, head);
      for (const d of pieces(body)) if ((await publish(back, { t: 'data', r: frame.r, d })) === 0) return;
      await publish(back, { t: 'end', r: frame.r });
      return;
    }
    // Not awaited one by one: one connection keeps them in order, and a chunk is not held up by
    // the previous one's round trip. Nobody listening any more (the requesting replica is gone)
    // drops the request here too; a piece that could not be sent ends it with a `fail`.
    let failed: unknown;
    const sent = (f: ResponseFrame) =>
      void publish(back, f).then(
        (listeners) => listeners === 0 && controller.abort(),
        (error: unknown) => {
          failed ??= error;
          controller.abort();
        },
      );
    headSent = true;
    sent(head);
    const reader = response.body.getReader();
    entry.reader = reader;
    for (;;) {
      const { done, value } = await reader.read();
      if (done || controller.signal.aborted) break;
      for (const d of pieces(value)) sent({ t: 'data', r: frame.r, d });
    }
    if (controller.signal.reason === SHUTDOWN) throw new Ended('the server instance holding this session stopped');
    // Told, in case it only paused (its heartbeat lapsed while its process was stopped, or while
    // it could not write to Redis): it still listens, and would wait for the rest for ever.
    const ended = ENDED.get(controller.signal.reason);
    if (ended !== undefined) throw new Ended(ended);
    if (failed !== undefined) throw new Ended(UNSENT_MESSAGE);
    if (controller.signal.aborted) await reader.cancel().catch(() => {});
    else sent({ t: 'end', r: frame.r });
  } catch (error) {
    // What the relay's own ending says goes to the requester; what the handler or its response
    // threw stays here (`onerror`): it may name files, SQL or what the request carried, and its
    // client is told only that the request failed, as a 500 tells it before the head.
    // (A handler that rejects once the relay dropped its request — the signal aborted — did what
    // it was told.)
    if (!(error instanceof Ended) && !controller.signal.aborted)
      core.onerror(error instanceof Error ? error : new Error(String(error)));
    const message = error instanceof Ended ? error.message : RESPONSE_FAILED;
    // Before the head, a holder that goes on (only its stopping ends its sessions) answers as a
    // server does when a request fails: an error response, so the requester does not take the
    // session for gone — 503 to send again when it is only not serving yet, or was cut from Redis
    // for a moment. After it, or stopping, a `fail`.
    const ended = ENDED.get(controller.signal.reason);
    const frameOf =
      headSent || controller.signal.reason === SHUTDOWN
        ? ({ t: 'fail', r: frame.r, message } as const)
        : !core.handler
          ? failedHead(frame.r, 503, NOT_SERVING)
          : ended !== undefined
            ? failedHead(frame.r, 503, `Service unavailable: ${ended}; send the request again`)
            : failedHead(frame.r, 500, FAILED);
    await publish(back, frameOf).catch(() => 0);
  } finally {
    unwatch();
    release?.();
    holding.delete(frame.r);
  }
}

/**
 * Drops every relay this replica runs for another when its own liveness may have lapsed
 * (`RelayCore.mayHaveLapsed`): its process was paused, or it could not reach Redis, for as long as
 * its heartbeat lives, and its requesters may have taken it for gone or cut off meanwhile — and
 * told their clients the calls failed, their `abort`s still unread here. Run before this replica
 * takes anything else a client sent (its own, or relayed), so an answer that was sent once the
 * client was told never meets the call it was told of.
 */
export function dropIfLapsed(core: RelayCore): void {
  if (core.holding.size > 0 && core.mayHaveLapsed()) dropHeld(core, Number.POSITIVE_INFINITY);
}

/**
 * Drops every relay this replica runs for another that came before `before` (`performance.now()`):
 * its liveness may have lapsed in Redis meanwhile (`SessionEntries.lapsed`: a beat answered only
 * after a gap as long as its heartbeat lives), whatever it says now.
 */
export function dropHeld(core: RelayCore, before: number): void {
  for (const held of core.holding.values()) if (held.since < before) drop(held, LAPSED);
}

/** Drops a relay this replica runs for another: its request's signal aborts (`reason`), its response is cancelled. */
function drop(entry: Holding, reason?: unknown): void {
  entry.controller.abort(reason);
  void entry.reader?.cancel().catch(() => {});
}

/**
 * This replica's Redis subscription dropped. Pub/sub delivers at most once, so whatever was sent to
 * it meanwhile is gone, both ways. A relay it waits on could hang or go on with a hole in its
 * stream: each ends now with an error its client can act on. A relay it runs for another may have
 * missed its requester's `abort` — the requester may have told its client the call failed (its
 * watch saw nobody on this replica's channel) — so each is dropped too, its requester told (503
 * before the head, a `fail` after it) in case it still waits. The sessions themselves are
 * untouched. Relays on direct connections get everything on them, and are not cut.
 */
export function subscriptionLost(core: RelayCore): void {
  for (const { relayed, via } of core.waiting.values()) {
    if (via) continue;
    relayed.fail('the relay lost its Redis subscription and may have missed part of the response', 'interrupted');
  }
  for (const held of core.holding.values()) if (!held.via) drop(held, LOST);
}

/**
 * Tells `holder` to drop relay `r`, and the calls it carried with it (with `resume`, only its
 * stream: our client went away, told nothing). An abort ending calls that Redis refused (it is
 * down) is owed: sent again before anything else to that holder, and once Redis is back
 * (`payOwed`), so a call this replica told its client had failed never takes an answer that comes
 * later. One that went out is no longer owed, whoever heard it: a holder not listening then either
 * is gone or lost its subscription, which drops every relay it ran through Redis, ending its calls
 * (`subscriptionLost`). Resolves with whether it went out (through Redis: Redis ran its PUBLISH).
 */
function sendAbort(
  core: RelayCore,
  holder: string,
  r: string,
  takes: Takes,
  resume = false,
  ack = false,
): Promise<boolean> {
  const frame: Frame = resume ? { t: 'abort', r, resume } : ack ? { t: 'abort', r, ack } : { t: 'abort', r };
  return core.publish(holder, frame, takes).then(
    () => {
      const owed = core.owed.get(holder);
      if (owed?.relays.delete(r) && owed.relays.size === 0) core.owed.delete(holder);
      return true;
    },
    () => {
      // Only through Redis: a direct connection that could not carry it closed, which drops, at
      // the holder, every relay it carried.
      if (takes.via) return false;
      const owed = core.owed.get(holder) ?? { aead: takes.aead === true, relays: new Map<string, boolean>() };
      // Bounded: the oldest go first (a holder that stays unreachable watches this replica too).
      if (owed.relays.size >= MAX_OWED) owed.relays.delete(owed.relays.keys().next().value as string);
      owed.relays.set(r, resume);
      core.owed.set(holder, owed);
      return false;
    },
  );
}

/**
 * Tells `holder` to drop relay `r` (through Redis), and resolves once it is sure to have: it said
 * so (`dropped`: a holder whose directory entry says it does, `acks`), its heartbeat lapsed (it is
 * gone, and its sessions with it), or this replica's own has (`RelayCore.unheard`: a holder that
 * reaches Redis has seen by then that this replica is not heard from, and dropped it). Asked again
 * every `livenessMs` until then: Redis counting a listener is no proof it got the abort (its
 * subscription may drop with it in flight), and one it reached nobody with reaches the holder once
 * it listens again. The abort having gone out is not enough: the holder reads it in its own time,
 * and an answer its client sends straight to it, told the call failed, could come first. Asked on
 * the relay's direct connection too while it is up (`link`), which may carry it with Redis away;
 * the holder answers each the way it came. A holder of an earlier version, which does not answer,
 * is taken to have dropped it once the abort went out through Redis.
 */
function confirmDrop(
  core: RelayCore,
  holder: string,
  r: string,
  takes: Takes,
  acks: boolean,
  link: () => Link | undefined,
): Promise<void> {
  if (!acks)
    return Promise.race([
      sendAbort(core, holder, r, takes).then((sent) => (sent ? undefined : new Promise<void>(() => {}))),
      core.unheard(),
    ]);
  return new Promise<void>((resolve) => {
    let over = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const confirmed = () => {
      if (over) return;
      over = true;
      clearTimeout(timer);
      if (core.confirming.get(r)?.confirmed === confirmed) core.confirming.delete(r);
      resolve();
    };
    core.confirming.set(r, { holder, confirmed });
    void core.unheard().then(confirmed);
    const ask = () => {
      if (over) return;
      void sendAbort(core, holder, r, takes, false, true);
      const via = link();
      if (via?.open) void sendAbort(core, holder, r, { ...takes, via }, false, true);
      timer = setTimeout(
        () =>
          void core.beating(holder).then(
            (beats) => (beats ? ask() : confirmed()),
            () => ask(),
          ),
        core.livenessMs,
      );
      (timer as { unref?: () => void }).unref?.();
    };
    ask();
  });
}

/**
 * Remembers that relay `r` was given up by `requester` before it ran here: its request, still on
 * its way (on a direct connection, the abort through Redis; or lost, and sent on by nobody), is not
 * run when it comes. Kept until a request sealed before the abort is past its expiry here for sure.
 */
function giveUp(core: RelayCore, r: string, requester: string): void {
  const now = Date.now();
  for (const [id, { until }] of core.given) {
    if (until > now && core.given.size < MAX_GIVEN) break;
    core.given.delete(id);
  }
  core.given.set(r, { requester, until: now + 3 * FRAME_TTL_MS });
}

/** At most this many relays given up before they came are remembered (`giveUp`); the oldest go first. */
const MAX_GIVEN = 10_000;

/**
 * Sends again the aborts owed to `holder` (to every holder, without one), through Redis. Queued in
 * this turn, they go in the same write as, and before, whatever this turn sends it next.
 */
export function payOwed(core: RelayCore, holder?: string): void {
  for (const [to, owed] of core.owed) {
    if (holder !== undefined && to !== holder) continue;
    for (const [r, resume] of owed.relays) void sendAbort(core, to, r, { aead: owed.aead }, resume);
  }
}

/** At most this many aborts owed to one holder. */
const MAX_OWED = 10_000;

export function receiveFrame(core: RelayCore, message: string): void {
  const opened = open(core.key, core.replica, message, core.seen, Date.now(), core.late);
  if ('dropped' in opened) {
    core.drops[opened.dropped]++;
    if (opened.late) for (const frame of opened.late.frames) takeLate(core, opened.late.from, frame);
    return;
  }
  for (const frame of opened.frames) take(core, opened.from, frame);
}

/**
 * A frame that came through Redis after its expiry: this replica, or the one it came from, was
 * paused or cut off (its connection to Redis kept) for longer than a frame lives. It is not acted
 * on as if it came in time, but the relay it belongs to lost it, and would wait for ever on what it
 * should have said — a holder's `fail` told to a requester paused past it, a requester's `abort`
 * to a holder: so an `abort` still drops its relay (all it asks is that the holder stop), a
 * response's frame not taken yet ends its relay with an error (`RelayedResponse.late`: a copy of
 * one taken, replayed once expired, changes nothing), and a request is answered 503, to send
 * again, without running. (On a direct connection, such a frame closes the connection, and every relay on
 * it ends: `receiveOnLink`.)
 */
function takeLate(core: RelayCore, from: string, frame: Frame): void {
  switch (frame.t) {
    case 'hello':
    case 'ping':
    case 'pong':
      return;
    case 'abort':
    case 'dropped':
      take(core, from, frame);
      return;
    case 'request': {
      if (core.holding.has(frame.r)) return;
      const head = failedHead(frame.r, 503, `Service unavailable: ${TOO_LATE}; send the request again`);
      const takes: Takes = { batch: frame.batch === true, aead: frame.aead === true };
      void core.publish(from, frame.seq === true ? { ...head, i: 0 } : head, takes).catch(() => 0);
      return;
    }
    default: {
      if (frame.t === 'head' || frame.t === 'fail') core.unanswered.answered(from, frame.r);
      const relay = core.waiting.get(frame.r);
      if (relay?.holder === from) relay.relayed.late(frame);
    }
  }
}

const TOO_LATE =
  'the request arrived after it expired (the server instance holding its session was paused, or cut off, for too long)';

/**
 * A message on a direct connection (`direct.ts`): opened as one from Redis, and the connection
 * closed on anything a replica holding the key would not send — a message that does not open, a
 * first message that is not a `hello` (a `ping` too: only a greeted peer is answered), one from
 * another replica than the one that greeted. A `hello` opened on a connection this replica
 * accepted is answered with its own, a `ping` with a `pong` (`take`).
 */
export function receiveOnLink(core: RelayCore, message: string, link: Link): void {
  const opened = open(core.key, core.replica, message, core.seen);
  if ('dropped' in opened) {
    core.drops[opened.dropped]++;
    link.close();
    return;
  }
  const [first] = opened.frames;
  if (link.peer === undefined) {
    if (
      opened.frames.length !== 1 ||
      first?.t !== 'hello' ||
      (link.expects !== undefined && link.expects !== opened.from)
    ) {
      core.drops.sender++;
      link.close();
      return;
    }
    link.peer = opened.from;
    if (link.inbound) link.send(sealFrames(core.key, core.replica, opened.from, [first], Date.now(), true));
    return;
  }
  if (opened.from !== link.peer || opened.frames.some((f) => f.t === 'hello')) {
    core.drops.sender++;
    link.close();
    return;
  }
  for (const frame of opened.frames) take(core, opened.from, frame, link);
}

/** Acts on one frame `from` sent (on a direct connection: `via`). */
function take(core: RelayCore, from: string, frame: Frame, via?: Link): void {
  const { drops, holding, waiting } = core;
  switch (frame.t) {
    case 'hello':
      // Only a direct connection's first message means anything (`receiveOnLink`).
      return;
    case 'ping':
      // Answered on the connection it came on (through Redis it means nothing): a peer that pings
      // answers pings too.
      if (!via) return;
      via.answering();
      via.send(sealFrames(core.key, core.replica, from, [{ t: 'pong', p: frame.p }], Date.now(), true));
      return;
    case 'pong':
      // Its bytes were the peer's word already (`Link`: anything from it counts, not only this).
      return;
    case 'request':
      // One relay id per request: a second request reusing a live one's id is not run; nor is
      // one its requester gave up on before it came (its `abort` overtook it, on another route).
      if (holding.has(frame.r)) drops.sender++;
      else if (core.given.get(frame.r)?.requester === from) core.given.delete(frame.r);
      else {
        dropIfLapsed(core);
        void runRelayed(core, frame, from, via);
      }
      return;
    case 'abort': {
      const entry = holding.get(frame.r);
      if (entry && entry.requester !== from) {
        drops.sender++;
        return;
      }
      // Given up (the client told the calls failed): they end. Its client gone: only the stream.
      // (Aborting the request's signal ends its calls at once: a later answer meets none.)
      if (entry) drop(entry, frame.resume ? STREAM_ONLY : undefined);
      else giveUp(core, frame.r, from);
      // Said the way it came, once it is so: the requester tells its client only now.
      if (frame.ack)
        void core.publish(from, { t: 'dropped', r: frame.r }, { aead: true, ...(via ? { via } : {}) }).catch(() => 0);
      return;
    }
    case 'dropped': {
      const confirming = core.confirming.get(frame.r);
      if (!confirming) return;
      if (confirming.holder !== from) {
        drops.sender++;
        return;
      }
      confirming.confirmed();
      return;
    }
    default: {
      // Its first answer: the request reached its holder (even one this replica gave up on since).
      if (frame.t === 'head' || frame.t === 'fail') core.unanswered.answered(from, frame.r);
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

/** `bytes` in base64 pieces of at most MAX_DATA_BYTES each. */
function* pieces(bytes: Uint8Array): Generator<string> {
  if (bytes.byteLength <= MAX_DATA_BYTES) {
    yield toBase64(bytes);
    return;
  }
  for (let at = 0; at < bytes.byteLength; at += MAX_DATA_BYTES) yield toBase64(bytes.subarray(at, at + MAX_DATA_BYTES));
}

const NOT_SERVING =
  'Service unavailable: the server instance holding this session is not serving yet; send the request again';
const FAILED = 'Internal error: the request failed on the server instance holding its session';
const RESPONSE_FAILED = 'the response failed on the server instance holding its session';
const UNSENT_MESSAGE = 'the server instance holding this session could not send the rest of the response';
const LOST_MESSAGE = 'the server instance holding this session lost its Redis subscription and dropped the request';
const UNHEARD_MESSAGE =
  'the server instance holding this session no longer heard from the one relaying the request and dropped it';
const LAPSED_MESSAGE =
  'the server instance holding this session was not heard from for a while (paused, or cut from Redis) and dropped the request';
const UNREACHABLE_MESSAGE =
  'the server instance holding this session could not reach Redis to hear from the one relaying the request, and dropped it';

/**
 * The whole response of a relayed request that failed on the holder before its head: 500, or 503
 * to send again (the holder is not serving yet, or was cut from Redis), a JSON-RPC error, and no
 * detail of what failed.
 */
function failedHead(r: string, status: 500 | 503, message: string): ResponseFrame {
  const body = encoder.encode(JSON.stringify({ jsonrpc: '2.0', error: { code: INTERNAL_ERROR, message }, id: null }));
  return {
    t: 'head',
    r,
    status,
    headers: [
      ['content-type', 'application/json'],
      ...(status === 503 ? [['retry-after', '1'] as [string, string]] : []),
    ],
    end: true,
    body: toBase64(body),
  };
}

const encoder = new TextEncoder();

/** What `relayTo` answers when nobody holds the session any more (the caller forgets its entry). */
export const HOLDER_GONE = Symbol('holder gone');

/**
 * Relays `request` to the replica holding its session and waits for the response, rebuilt as the
 * holder writes it. No credential crosses Redis: the holder acts on the identity checked here,
 * and on the digest of the session's owner (checked here against the session's entry).
 */
export async function relayTo(
  core: RelayCore,
  to: {
    holder: string;
    /**
     * How the holder takes what this replica sends: `batch` read on a request and `aead` (read on a
     * request, and unsigned messages), as its directory entry says; `via`, a direct connection to
     * it that has greeted (`direct.ts`), which the request goes on.
     */
    takes: Takes;
    /** SHA-256 (hex) of the owner, checked against the session's entry. */
    owner: string;
    request: Request;
    body: Uint8Array | undefined;
    auth: AuthInfo | undefined;
    /**
     * The holder's directory entry says it takes an identity up to `MAX_IDENTITY` characters; one
     * of an earlier version takes at most 64 scopes of 256, and a client id of 1,024.
     */
    wideIdentity: boolean;
    /** The holder's directory entry says it takes an identity's `extra` and `resource` (`SessionEntry.wholeIdentity`). */
    wholeIdentity: boolean;
    /** The holder's directory entry says it keeps its heartbeat (`SessionEntry.beats`). */
    beats: boolean;
    /** The holder's directory entry says it numbers a response's frames (`SessionEntry.sequenced`). */
    sequenced: boolean;
    /**
     * The holder's directory entry says it answers pings on a direct connection
     * (`SessionEntry.pings`): a relay on one pings it while it waits (`Link.use`).
     */
    pings: boolean;
    /** The holder's directory entry says it answers an abort that asks (`SessionEntry.acks`). */
    acks: boolean;
    /** The session the request is on: its requests keep their order (`RelayCore.unanswered`). */
    session: string;
  },
): Promise<Response | typeof HOLDER_GONE> {
  const { holder, owner, request, body, auth } = to;
  const batch = to.takes.batch === true;
  const aead = to.takes.aead === true;
  // A holder owed an abort gets it first, in order with this request: through Redis, both. So does
  // one with a request on this session through Redis it has not answered (it may not have reached
  // it yet): this one goes behind it, never past it on a faster route.
  let via = core.owed.has(holder) || core.unanswered.awaits(holder, to.session) ? undefined : to.takes.via;
  const r = crypto.randomUUID();
  // Recorded once bound for Redis, before any await: a request made meanwhile sees it.
  if (!via) core.unanswered.record(holder, to.session, r);
  let unwatch = () => {};
  // A relay through Redis is watched: its holder no longer listening ends it. One on a direct
  // connection ends with the connection, which its holder's heartbeat lapsing closes.
  // A request the holder may have is given up on only once the holder is sure to have dropped it
  // (`confirmDrop`: it said so, or a heartbeat lapsed) — never before, so its client is never told
  // it failed while the holder could still act on it.
  let givingUp: Promise<void> | undefined;
  const dropped = () => {
    givingUp ??= confirmDrop(core, holder, r, { aead }, to.acks, () => (linkLost ? undefined : via));
    return givingUp;
  };
  const watch = (hearing?: string | null) =>
    core.watch(
      holder,
      (why) => {
        if (why === 'gone') relayed.fail('the server instance holding this session stopped');
        else if (why === 'away')
          relayed.fail('the server instance holding this session is cut from Redis for a moment', 'interrupted');
        // Subscribed again since the request was published: it may have been lost in the gap, or
        // reached the new subscription — dropped there first, so it never runs after its client
        // was told to send it again.
        else if (why === 'again')
          void relayed.giveUp('the server instance holding this session lost its Redis subscription for a moment');
        else void relayed.giveUp('the session directory (Redis) cannot be reached');
      },
      to.beats,
      hearing,
    );
  // While it waits on a direct connection, the connection is in use: a holder that answers pings
  // is pinged on it, and the connection closed — this relay ending as below (`lost`) — when no
  // answer comes back in time.
  let release = () => {};
  const relayed = new RelayedResponse({
    requestBody: body,
    sequenced: to.sequenced,
    failed: (reason, started) => core.onerror(new RelayFailedError(holder, request.method, reason, started)),
    dropped,
    abort: (resume) => void sendAbort(core, holder, r, { aead, ...(via ? { via } : {}) }, resume),
    done: () => {
      unwatch();
      release();
      core.waiting.delete(r);
    },
  });
  if (!via) unwatch = watch();
  else if (to.beats) {
    // Its heartbeat lapsed: the connection is closed, and every relay on it ends. Redis not
    // answering whether it beats (a holder frozen or cut off keeps its connection open for
    // minutes, and this replica cannot tell): given up on as through Redis, once the holder is
    // sure to have dropped it — the relay ends with the directory's error, and the connection,
    // which may lead nowhere, is closed once no relay waits on it (each of them is told so).
    const link = via;
    let givenUp = false;
    unwatch = core.watchBeat(holder, (why) => {
      if (why === 'gone') link.close();
      else if (!givenUp) {
        givenUp = true;
        void relayed.giveUp('the session directory (Redis) cannot be reached').then(() => {
          for (const other of core.waiting.values()) if (other.via === link) return;
          link.close();
        });
      }
    });
  }
  // A connection lost here may be open still at the holder's end (the network between them gone,
  // its keepalive not given up yet), the call going on there: the holder is told through Redis,
  // as when Redis does not answer, before the client is.
  let linkLost = false;
  const waiting: Waiting = {
    relayed,
    holder,
    ...(via
      ? {
          via,
          lost: () => {
            if (linkLost) return;
            linkLost = true;
            void relayed.giveUp('the relay lost its connection to the replica holding the session');
          },
        }
      : {}),
  };
  core.waiting.set(r, waiting);
  if (via) {
    if (to.pings) via.answering();
    release = via.use();
  }
  request.signal.addEventListener('abort', () => relayed.cancel(), { once: true });
  // Set while a PUBLISH of the request is unanswered.
  let published = false;
  try {
    const identity = auth && relayedAuth(auth);
    if (identity && !to.wideIdentity) checkEarlierIdentity(identity);
    else if (identity && !to.wholeIdentity && (identity.extra !== undefined || identity.resource !== undefined))
      checkEarlierIdentity(identity);
    const frame: Frame = {
      t: 'request',
      r,
      method: request.method as Extract<Frame, { t: 'request' }>['method'],
      url: request.url,
      owner,
      headers: headerList(request.headers).filter(([name]) => !CREDENTIALS.has(name)),
      ...(body ? { body: toBase64(body) } : {}),
      ...(batch ? { batch: true as const } : {}),
      ...(aead ? { aead: true as const } : {}),
      ...(to.sequenced ? { seq: true as const } : {}),
      ...(identity ? { auth: identity } : {}),
      // This replica answers the holder's pings on the connection the request goes on.
      ...(via && to.pings ? { ping: true as const } : {}),
    };
    // Longer than a direct connection carries (headers near their bounds), it goes through Redis.
    const tooLong = (error: unknown) => {
      if (via && error instanceof RangeError) return 0;
      throw error;
    };
    // Through Redis, given up on after `timeoutMs` (a client that queues while Redis is away would
    // hold it for as long as Redis is), and published only if Redis runs the PUBLISH before then
    // on its own clock: a request its client was told had failed never reaches its holder later,
    // whatever the clocks of the replicas say.
    const throughRedis = async () => {
      await heard(core);
      const local = performance.now() + core.timeoutMs;
      // Which subscription of the holder's it is published to, read on the same connection just
      // ahead of the PUBLISH (so in its order on Redis, and no round trip of its own): the watch
      // ends it if the holder subscribes again while it waits. Redis counting a subscriber is no
      // proof the request arrived — pub/sub drops what is in flight when a connection drops, and
      // anyone may subscribe to a channel. Not read (Redis slow to answer it), it is watched as before.
      const hearing = core.hearingOf(holder).catch(() => undefined);
      const before = { local, redis: await core.redisBefore(local) };
      payOwed(core, holder);
      published = true;
      const reached = await core.publish(holder, frame, { aead, before });
      published = false;
      const heardOn = await hearing;
      if (reached > 0 && heardOn !== undefined) {
        unwatch();
        unwatch = watch(heardOn);
      }
      return reached;
    };
    let reached = via ? await core.publish(holder, frame, { aead, via }).catch(tooLong) : await throughRedis();
    if (reached === 0 && via) {
      // The connection closed under it (or would not carry it) and nothing was sent on it. Its
      // closing ended the relays on it (this one too, if it was already waiting: its client is
      // told to send again, once the holder is told to drop it); otherwise the request goes
      // through Redis.
      if (relayed.settled || linkLost) return await relayed.response();
      via = undefined;
      delete waiting.via;
      release();
      core.unanswered.record(holder, to.session, r);
      unwatch();
      unwatch = watch();
      reached = await throughRedis();
    }
    if (reached === 0) core.unanswered.answered(holder, r);
    // Nobody listening is a holder gone only once its heartbeat lapsed: one cut from Redis for a
    // moment holds its sessions still, and its client is told to send again, the entry kept.
    if (reached === 0)
      throw (await core.beating(holder))
        ? new RelayInterrupted('the server instance holding this session is cut from Redis for a moment')
        : new HolderGone();
    return await relayed.response();
  } catch (error) {
    // A PUBLISH Redis did not answer may have reached the holder before the moment it was given up.
    if (published && error instanceof StoreTimeoutError && !relayed.settled) await dropped();
    relayed.fail(
      error instanceof RelayInterrupted || error instanceof FrameRefused
        ? error.message
        : error instanceof HolderGone
          ? 'the server instance holding this session stopped'
          : 'the relay could not be sent: the session directory (Redis) cannot be reached',
      error instanceof HolderGone ? 'gone' : 'interrupted',
    );
    core.unanswered.answered(holder, r);
    core.waiting.delete(r);
    if (error instanceof RelayInterrupted) return relayInterrupted(error.message);
    if (error instanceof FrameRefused) return unrelayable(error.message);
    if (!(error instanceof HolderGone)) return directoryDown();
    return HOLDER_GONE;
  }
}

/**
 * Resolves once this replica hears its channel (at once when it does); throws `RelayInterrupted`
 * (503, send again) when its subscription is not back within `RESUBSCRIBE_WAIT_MS`.
 */
async function heard(core: RelayCore): Promise<void> {
  if (core.hearing.up || (await core.hearing.until(RESUBSCRIBE_WAIT_MS))) return;
  throw new RelayInterrupted('this server instance is reconnecting to Redis');
}

/** How long a relay through Redis waits for this replica's own subscription to be back. */
const RESUBSCRIBE_WAIT_MS = 2_000;

/** Whether a replica hears its channel; `until` waits, bounded, for it to. */
export class Hearing {
  private heard = false;
  private readonly waiters = new Set<(up: boolean) => void>();

  get up(): boolean {
    return this.heard;
  }

  set(up: boolean): void {
    this.heard = up;
    if (!up) return;
    for (const waiter of [...this.waiters]) waiter(true);
  }

  /** Resolves true once it hears, false if it does not within `ms`. */
  until(ms: number): Promise<boolean> {
    if (this.heard) return Promise.resolve(true);
    return new Promise((resolve) => {
      const done = (up: boolean) => {
        clearTimeout(timer);
        this.waiters.delete(done);
        resolve(up);
      };
      const timer = setTimeout(() => done(false), ms);
      this.waiters.add(done);
    });
  }
}

/**
 * The identity a relayed request carries: who, with what scopes, until when, its `extra` (as JSON)
 * and `resource` — never the token. Without `extra`, an app whose `identify` names the person by
 * it (one client id serving several people) had the call done for nobody on the holder.
 */
function relayedAuth(auth: AuthInfo): RelayedIdentity {
  const extra = auth.extra === undefined ? undefined : (JSON.parse(JSON.stringify(auth.extra)) as unknown);
  return {
    clientId: auth.clientId,
    scopes: auth.scopes,
    ...(auth.expiresAt === undefined ? {} : { expiresAt: auth.expiresAt }),
    ...(typeof extra === 'object' && extra !== null && !Array.isArray(extra)
      ? { extra: extra as Record<string, unknown> }
      : {}),
    ...(auth.resource === undefined ? {} : { resource: String(auth.resource) }),
  };
}

/** Why a relayed request was dropped at the holder when this replica shuts down (its requester is told). */
export const SHUTDOWN = Symbol('shutdown');

/** How a relay this replica runs for another ends on the relay's own account: its message is the requester's to see. */
class Ended extends Error {}

/** Why one was dropped when this replica's Redis subscription dropped (`subscriptionLost`; its requester is told). */
const LOST = Symbol('subscription lost');
/**
 * Why one through Redis was dropped when its requester was no longer heard from (its requester is
 * told: one whose heartbeat lapsed may only have paused, and still listen).
 */
const UNHEARD = Symbol('requester not heard from');
/** Why one through Redis was dropped when Redis did not answer whether its requester still listens. */
const UNREACHABLE = Symbol('Redis unreachable');
/**
 * Why one was dropped when this replica's own liveness may have lapsed (`dropIfLapsed`): its
 * requester may have taken it for gone, and told its client the call failed.
 */
const LAPSED = Symbol('liveness lapsed');
/** What the requester is told of a relay dropped for each of these reasons (503 before the head). */
const ENDED = new Map<unknown, string>([
  [LOST, LOST_MESSAGE],
  [UNHEARD, UNHEARD_MESSAGE],
  [UNREACHABLE, UNREACHABLE_MESSAGE],
  [LAPSED, LAPSED_MESSAGE],
]);

export const TOO_LARGE = Symbol('too large');
/** Headers that carry a credential: never relayed. */
export const CREDENTIALS = new Set(['authorization', 'proxy-authorization', 'cookie']);

/** The body to relay, or TOO_LARGE past the SDK's own request bound (it would refuse it anyway). */
export async function readBody(request: Request): Promise<Uint8Array | typeof TOO_LARGE> {
  if (Number(request.headers.get('content-length') ?? 0) > DEFAULT_MAX_REQUEST_BODY_SIZE) return TOO_LARGE;
  const body = new Uint8Array(await request.arrayBuffer());
  return body.byteLength > DEFAULT_MAX_REQUEST_BODY_SIZE ? TOO_LARGE : body;
}

export function tooLarge(): Response {
  return new Response(
    JSON.stringify({
      jsonrpc: '2.0',
      error: { code: INVALID_REQUEST, message: `Request body larger than ${DEFAULT_MAX_REQUEST_BODY_SIZE} bytes` },
      id: null,
    }),
    { status: 413, headers: { 'content-type': 'application/json' } },
  );
}

export function relayInterrupted(reason: string): Response {
  return new Response(
    JSON.stringify({
      jsonrpc: '2.0',
      error: { code: INTERNAL_ERROR, message: `Service unavailable: ${reason}; send the request again` },
      id: null,
    }),
    { status: 503, headers: { 'content-type': 'application/json', 'retry-after': '1' } },
  );
}

export function unrelayable(reason: string): Response {
  return new Response(
    JSON.stringify({ jsonrpc: '2.0', error: { code: INVALID_REQUEST, message: `Cannot relay: ${reason}` }, id: null }),
    { status: 400, headers: { 'content-type': 'application/json' } },
  );
}

export function directoryDown(): Response {
  return new Response(
    JSON.stringify({
      jsonrpc: '2.0',
      error: { code: INTERNAL_ERROR, message: 'Service unavailable: the session directory (Redis) cannot be reached' },
      id: null,
    }),
    { status: 503, headers: { 'content-type': 'application/json', 'retry-after': '5' } },
  );
}

/**
 * A session this replica cannot find while Redis may have forgotten it (it came back after a
 * break, and the holder's heartbeat has not written its entries again yet): not "Session not
 * found", which a 2025 client takes as its session's end, but a 503 to send again.
 */
export function directoryRebuilding(): Response {
  return new Response(
    JSON.stringify({
      jsonrpc: '2.0',
      error: {
        code: INTERNAL_ERROR,
        message:
          'Service unavailable: the session directory (Redis) is being written again after a break; send the request again',
      },
      id: null,
    }),
    { status: 503, headers: { 'content-type': 'application/json', 'retry-after': '1' } },
  );
}
