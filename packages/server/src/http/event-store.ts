import {
  type EventId,
  type EventStore,
  isJSONRPCErrorResponse,
  isJSONRPCResultResponse,
  type JSONRPCMessage,
  type StreamId,
} from '@modelcontextprotocol/server';

/** How much a memory event store keeps: each a whole number, at least 1 (else a `RangeError`). */
export interface MemoryEventStoreOptions {
  /** Events kept per stream; older ones are dropped (a client that far behind misses them). Default 1000. */
  maxEventsPerStream?: number;
  /**
   * Streams kept per session. Past it, that session's own streams make room: the least recently
   * written of those that carried a response first, and only when none has, the least recently
   * written still waiting for one. No session's traffic ever drops another's streams; a session's
   * streams go when it closes. Default 200 (twice the default `maxInFlightPerIdentity`).
   */
  maxStreamsPerSession?: number;
  /**
   * How long a stream that carried a response is kept after its last event. One still waiting for
   * its response (a question open for an hour, say) is kept as long as its session. Default 10
   * minutes.
   */
  ttlMs?: number;
  /**
   * What the whole store holds at most, in characters of the events' JSON. Each session's streams
   * are bounded by their count, but one identity may hold many sessions (`maxSessionsPerIdentity`)
   * and each response may be large: past this, the session holding the most gives up its least
   * recently written stream that carried its response, then the next heaviest, until the store is
   * within it. Under pressure nobody keeps more than the others; a stream still waiting for its
   * response (an open question) is never dropped for it. Default 64 MiB.
   */
  maxBytes?: number;
  now?: () => number;
}

interface Stream {
  events: { seq: number; message: JSONRPCMessage; size: number }[];
  touched: number;
  /** Characters of its events' JSON. */
  size: number;
}

/**
 * One session's streams. Both maps are in write order (a written stream is moved to the end): the
 * first is the least recently written. `next` only grows, so an event id never names another event,
 * even for a stream id written again after it was dropped (a session's GET stream).
 */
interface Session {
  next: number;
  waiting: Map<StreamId, Stream>;
  answered: Map<StreamId, Stream>;
  /** Characters of its streams' events' JSON. */
  size: number;
}

/** `<stream>#<seq>`: the stream is what comes before the last `#`. */
const SEPARATOR = '#';
/** `<session>/<stream>`: how `sessionEvents` names a session's streams. */
const SESSION_SEPARATOR = '/';

/** What `forgetSessionEvents` calls on a store that keeps streams per session. */
const FORGET_SESSION = Symbol('elicitkit forget session events');
type ForgetsSessions = { [FORGET_SESSION]?: (sessionId: string) => void };

/**
 * The events of 2025 response streams, in this process, so a client whose stream dropped
 * reconnects with `Last-Event-ID` and gets what it missed (the SDK's `EventStore`). Bounded per
 * stream and per session (`createHttpHandler` tells it when a session closes, and its streams go
 * with it), and in time for streams that carried their response. Give it to
 * `createHttpHandler({ eventStore })`; several replicas may each keep their own (a session's
 * stream is resumed on the replica that holds it, where a relayed reconnection is sent), or share
 * `createRedisEventStore`.
 *
 * @example
 * import { createMemoryEventStore } from '@elicitkit/server/stores';
 * const http = createHttpHandler(factory, { eventStore: createMemoryEventStore() });
 */
export function createMemoryEventStore(options: MemoryEventStoreOptions = {}): EventStore {
  const perStream = storeBound('maxEventsPerStream', options.maxEventsPerStream, 1000);
  const perSession = storeBound('maxStreamsPerSession', options.maxStreamsPerSession, 200);
  const ttlMs = storeBound('ttlMs', options.ttlMs, 10 * 60_000);
  const maxBytes = storeBound('maxBytes', options.maxBytes, 64 * 1024 * 1024);
  const now = options.now ?? Date.now;
  const sessions = new Map<string, Session>();
  /** Characters held by every session together. */
  let held = 0;
  const sessionOf = (stream: StreamId): Session | undefined => sessions.get(sessionKey(stream));
  /** Takes `stream` out of `session`'s `from` map, and its size out of the counts. */
  const drop = (session: Session, from: Map<StreamId, Stream>, id: StreamId) => {
    const stream = from.get(id);
    if (!stream) return;
    from.delete(id);
    session.size -= stream.size;
    held -= stream.size;
  };
  const live = (session: Session | undefined, id: StreamId): Stream | undefined => {
    const waiting = session?.waiting.get(id);
    if (waiting) return waiting;
    const answered = session?.answered.get(id);
    if (session && answered && now() - answered.touched > ttlMs) {
      drop(session, session.answered, id);
      return undefined;
    }
    return answered;
  };
  /** Past `maxBytes`: the heaviest session's least recently written answered stream goes, until within it. */
  const withinBytes = () => {
    while (held > maxBytes) {
      let heaviest: Session | undefined;
      for (const session of sessions.values())
        if (session.answered.size > 0 && session.size > (heaviest?.size ?? -1)) heaviest = session;
      // Only streams waiting for their response are left: each is an open question, bounded by its identity's in-flight cap.
      if (!heaviest) return;
      drop(heaviest, heaviest.answered, heaviest.answered.keys().next().value as StreamId);
    }
  };
  const store: EventStore & ForgetsSessions = {
    async storeEvent(streamId, message) {
      const key = sessionKey(streamId);
      let session = sessions.get(key);
      if (!session) {
        session = { next: 1, waiting: new Map(), answered: new Map(), size: 0 };
        sessions.set(key, session);
      }
      const stream = live(session, streamId) ?? { events: [], touched: 0, size: 0 };
      const answered =
        session.answered.has(streamId) || isJSONRPCResultResponse(message) || isJSONRPCErrorResponse(message);
      session.waiting.delete(streamId);
      session.answered.delete(streamId);
      (answered ? session.answered : session.waiting).set(streamId, stream);
      stream.touched = now();
      const seq = session.next++;
      const size = JSON.stringify(message)?.length ?? 0;
      stream.events.push({ seq, message, size });
      stream.size += size;
      session.size += size;
      held += size;
      if (stream.events.length > perStream) {
        const gone = stream.events.shift()?.size ?? 0;
        stream.size -= gone;
        session.size -= gone;
        held -= gone;
      }
      makeRoom(session, perSession, drop);
      withinBytes();
      return `${streamId}${SEPARATOR}${seq}`;
    },
    async getStreamIdForEventId(eventId) {
      const parsed = parseEventId(eventId);
      return parsed && live(sessionOf(parsed.stream), parsed.stream) ? parsed.stream : undefined;
    },
    async replayEventsAfter(lastEventId, { send }) {
      const parsed = parseEventId(lastEventId);
      const stream = parsed && live(sessionOf(parsed.stream), parsed.stream);
      if (!parsed || !stream) throw new Error('unknown event id');
      for (const event of stream.events.filter((e) => e.seq > parsed.seq)) {
        await send(`${parsed.stream}${SEPARATOR}${event.seq}`, event.message);
      }
      return parsed.stream;
    },
    [FORGET_SESSION]: (sessionId) => {
      held -= sessions.get(sessionId)?.size ?? 0;
      sessions.delete(sessionId);
    },
  };
  return store;
}

/**
 * A bound or lifetime of an event store, refused when the store is made unless a whole number of
 * at least 1: a negative `maxStreamsPerSession` made the memory store loop for ever on its first
 * event (the whole process with it), `NaN` bounded nothing, and Redis refuses a negative MAXLEN
 * (every event, every response with it, lost) or a fractional PEXPIRE (the stream kept for ever).
 */
export function storeBound(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (Number.isSafeInteger(value) && value >= 1) return value;
  throw new RangeError(`${name} must be a whole number from 1 to ${Number.MAX_SAFE_INTEGER}, not ${String(value)}`);
}

/** Drops `session`'s own streams past `max`: those that carried a response first, the least recently written first. */
function makeRoom(
  session: Session,
  max: number,
  drop: (session: Session, from: Map<StreamId, Stream>, id: StreamId) => void,
): void {
  while (session.waiting.size + session.answered.size > max) {
    const from = session.answered.size > 0 ? session.answered : session.waiting;
    drop(session, from, from.keys().next().value as StreamId);
  }
}

/** The session a stream id belongs to (`sessionEvents` names them); streams named otherwise share one. */
function sessionKey(stream: StreamId): string {
  const cut = stream.indexOf(SESSION_SEPARATOR);
  return cut < 0 ? '' : stream.slice(0, cut);
}

/**
 * Session `sessionId` closed: `store` drops its streams now (a store that keeps none per session,
 * or outlives sessions on its own terms, such as Redis with its expiry, is left as it is).
 */
export function forgetSessionEvents(store: EventStore, sessionId: string): void {
  (store as ForgetsSessions)[FORGET_SESSION]?.(sessionId);
}

/** The stream and sequence an event id names, or undefined for one this store did not make. */
export function parseEventId(eventId: EventId): { stream: StreamId; seq: number } | undefined {
  const cut = eventId.lastIndexOf(SEPARATOR);
  if (cut <= 0) return undefined;
  const seq = Number(eventId.slice(cut + 1));
  if (!Number.isSafeInteger(seq) || seq < 1) return undefined;
  return { stream: eventId.slice(0, cut), seq };
}

/**
 * `store` as one session's transport sees it: its streams are named under the session, and an
 * event id of another session's stream is unknown here — a client, whoever it is, resumes only
 * the streams of the session it holds.
 */
export function sessionEvents(store: EventStore, sessionId: string): EventStore {
  const prefix = `${sessionId}${SESSION_SEPARATOR}`;
  const own = (stream: StreamId | undefined) => stream?.startsWith(prefix) === true;
  const streamOf = async (eventId: EventId) =>
    store.getStreamIdForEventId ? store.getStreamIdForEventId(eventId) : parseEventId(eventId)?.stream;
  return {
    storeEvent: (streamId, message) => store.storeEvent(`${prefix}${streamId}`, message),
    async getStreamIdForEventId(eventId) {
      const stream = await streamOf(eventId);
      return own(stream) ? stream?.slice(prefix.length) : undefined;
    },
    async replayEventsAfter(lastEventId, { send }) {
      if (!own(await streamOf(lastEventId))) throw new Error('unknown event id');
      const stream = await store.replayEventsAfter(lastEventId, { send });
      return stream.slice(prefix.length);
    },
  };
}
