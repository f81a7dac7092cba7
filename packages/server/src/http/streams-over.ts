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
 * held open, keep-alives and all, until the client went away. Such a resumption is refused here.
 */
export interface StreamsOver {
  /** The session's event store as its transport uses it: it notes the streams `mark` names. */
  store: EventStore;
  /** Notes the stream of request `id` (one the transport still maps to its stream) as over. */
  mark(transport: WebStandardStreamableHTTPServerTransport, id: RequestId): void;
  /** Whether `lastEventId` is an event of a stream noted as over. */
  isOver(lastEventId: string): Promise<boolean>;
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
  const over = new Set<StreamId>();
  const probes = new WeakSet<JSONRPCMessage>();
  const store: EventStore = {
    storeEvent(streamId, message) {
      if (!probes.has(message)) return inner.storeEvent(streamId, message);
      over.delete(streamId);
      over.add(streamId);
      if (over.size > MAX_STREAMS_OVER) over.delete(over.values().next().value as StreamId);
      return Promise.resolve('');
    },
    replayEventsAfter: (lastEventId, sink) => inner.replayEventsAfter(lastEventId, sink),
  };
  const streamOf = inner.getStreamIdForEventId?.bind(inner);
  if (streamOf) store.getStreamIdForEventId = streamOf;
  return {
    store,
    mark(transport, id) {
      const probe: JSONRPCMessage = {
        jsonrpc: '2.0',
        method: 'notifications/message',
        params: { level: 'debug', data: 'stream over' },
      };
      probes.add(probe);
      transport.send(probe, { relatedRequestId: id }).catch(() => {});
    },
    async isOver(lastEventId) {
      if (over.size === 0 || !streamOf) return false;
      const stream = await streamOf(lastEventId).catch(() => undefined);
      return stream !== undefined && over.has(stream);
    },
  };
}
