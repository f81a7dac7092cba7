import type {
  EventStore,
  JSONRPCMessage,
  RequestId,
  StreamId,
  WebStandardStreamableHTTPServerTransport,
} from '@modelcontextprotocol/server';

/**
 * The POST streams of a resumable session that will carry nothing more: each request on them was
 * answered or cancelled, one at least cancelled (`Post` in transport-sessions.ts). A client whose
 * stream closed without a response resumes it (GET with Last-Event-ID, as MCP asks), and the
 * transport keeps a cancelled request's stream for ever (only a response ends it), so that GET was
 * held open, keep-alives and all, until the client went away. Such a resumption is refused here
 * when nothing is left to replay after the client's event, and otherwise ended once replayed.
 */
export interface StreamsOver {
  /** The session's event store as its transport uses it: it notes the streams `mark` names. */
  store: EventStore;
  /**
   * Notes the stream of request `id` (one the transport still maps to its stream, and will as long
   * as the session lasts) as over; `close` ends whichever connection carries it then.
   */
  mark(transport: WebStandardStreamableHTTPServerTransport, id: RequestId, close: () => void): void;
  /** The stream `lastEventId` is an event of, if the store knows it. */
  streamOf(lastEventId: string): Promise<StreamId | undefined>;
  /** Whether `stream` is over and nothing was stored on it after `lastEventId`: a resumption has nothing to get. */
  nothingLeft(stream: StreamId, lastEventId: string): Promise<boolean>;
  /**
   * Ends the connection carrying `stream` if the stream is over: a resumption once what was left
   * has been replayed (the transport wrote it before handing out the response), or one that was
   * being replayed when the stream ended.
   */
  endIfOver(stream: StreamId): void;
}

/** At most this many streams noted per session, the oldest forgotten first (its resumption is then held as before). */
const MAX_STREAMS_OVER = 64;

/**
 * `inner` (a session's own store, `sessionEvents`) for its transport, with the streams that are
 * over noted. Which stream a request used is the transport's to know: `mark` has it send a message
 * related to the request after its stream closed, which it hands to the store under that stream's
 * id — noted here, and neither stored nor sent (no stream is open to write it to).
 */
export function streamsOver(inner: EventStore): StreamsOver {
  /** Each stream over → what ends the connection carrying it. */
  const over = new Map<StreamId, () => void>();
  const probes = new WeakMap<JSONRPCMessage, () => void>();
  const store: EventStore = {
    storeEvent(streamId, message) {
      const close = probes.get(message);
      if (!close) return inner.storeEvent(streamId, message);
      over.delete(streamId);
      over.set(streamId, close);
      if (over.size > MAX_STREAMS_OVER) over.delete(over.keys().next().value as StreamId);
      return Promise.resolve('');
    },
    replayEventsAfter: (lastEventId, sink) => inner.replayEventsAfter(lastEventId, sink),
  };
  const streamOf = inner.getStreamIdForEventId?.bind(inner);
  if (streamOf) store.getStreamIdForEventId = streamOf;
  return {
    store,
    mark(transport, id, close) {
      const probe: JSONRPCMessage = {
        jsonrpc: '2.0',
        method: 'notifications/message',
        params: { level: 'debug', data: 'stream over' },
      };
      probes.set(probe, close);
      // The transport finds the stream at once, and hands the probe to the store before it awaits anything.
      transport.send(probe, { relatedRequestId: id }).catch(() => {});
    },
    async streamOf(lastEventId) {
      if (!streamOf) return undefined;
      return streamOf(lastEventId).catch(() => undefined);
    },
    async nothingLeft(stream, lastEventId) {
      if (!over.has(stream)) return false;
      // What a resumption would get, counted: a reply stored while no connection carried the
      // stream is still the client's to get (its call waits on it).
      let left = 0;
      try {
        await inner.replayEventsAfter(lastEventId, {
          send: async () => {
            left++;
          },
        });
      } catch {
        return false;
      }
      return left === 0;
    },
    endIfOver(stream) {
      over.get(stream)?.();
    },
  };
}
