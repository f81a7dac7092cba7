import type { EventId, EventStore, JSONRPCMessage, StreamId } from '@modelcontextprotocol/server';

/** How much a memory event store keeps. */
export interface MemoryEventStoreOptions {
  /** Events kept per stream; older ones are dropped (a client that far behind cannot resume). Default 1000. */
  maxEventsPerStream?: number;
  /** Streams kept; the least recently written goes first. Default 10,000. */
  maxStreams?: number;
  /** How long a stream's events are kept after its last event. Default 10 minutes. */
  ttlMs?: number;
  now?: () => number;
}

interface Stream {
  events: { seq: number; message: JSONRPCMessage }[];
  next: number;
  touched: number;
}

/** `<stream>#<seq>`: the stream is what comes before the last `#`. */
const SEPARATOR = '#';

/**
 * The events of 2025 response streams, in this process, so a client whose stream dropped
 * reconnects with `Last-Event-ID` and gets what it missed (the SDK's `EventStore`). Bounded per
 * stream, in streams and in time. Give it to `createHttpHandler({ eventStore })`; several
 * replicas may each keep their own (a session's stream is resumed on the replica that holds it,
 * where a relayed reconnection is sent), or share `createRedisEventStore`.
 *
 * @example
 * import { createMemoryEventStore } from '@elicitkit/server/stores';
 * const http = createHttpHandler(factory, { eventStore: createMemoryEventStore() });
 */
export function createMemoryEventStore(options: MemoryEventStoreOptions = {}): EventStore {
  const perStream = options.maxEventsPerStream ?? 1000;
  const maxStreams = options.maxStreams ?? 10_000;
  const ttlMs = options.ttlMs ?? 10 * 60_000;
  const now = options.now ?? Date.now;
  // Insertion order is write order (a written stream is moved to the end): the first is the oldest.
  const streams = new Map<StreamId, Stream>();
  const live = (id: StreamId): Stream | undefined => {
    const stream = streams.get(id);
    if (stream && now() - stream.touched > ttlMs) {
      streams.delete(id);
      return undefined;
    }
    return stream;
  };
  return {
    async storeEvent(streamId, message) {
      const stream = live(streamId) ?? { events: [], next: 1, touched: 0 };
      streams.delete(streamId);
      streams.set(streamId, stream);
      stream.touched = now();
      const seq = stream.next++;
      stream.events.push({ seq, message });
      if (stream.events.length > perStream) stream.events.shift();
      while (streams.size > maxStreams) streams.delete(streams.keys().next().value as StreamId);
      return `${streamId}${SEPARATOR}${seq}`;
    },
    async getStreamIdForEventId(eventId) {
      const parsed = parseEventId(eventId);
      return parsed && live(parsed.stream) ? parsed.stream : undefined;
    },
    async replayEventsAfter(lastEventId, { send }) {
      const parsed = parseEventId(lastEventId);
      const stream = parsed && live(parsed.stream);
      if (!parsed || !stream) throw new Error('unknown event id');
      for (const event of stream.events.filter((e) => e.seq > parsed.seq)) {
        await send(`${parsed.stream}${SEPARATOR}${event.seq}`, event.message);
      }
      return parsed.stream;
    },
  };
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
  const prefix = `${sessionId}/`;
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
