import {
  type JSONRPCMessage,
  ProtocolErrorCode,
  type RequestId,
  type Transport,
  type TransportSendOptions,
} from '@modelcontextprotocol/client';

/**
 * The message of the error a request gets when its stream ended without its response.
 *
 * @example
 * if (error instanceof ProtocolError && error.message.includes(STREAM_ENDED_MESSAGE)) warnMayHaveRun();
 */
export const STREAM_ENDED_MESSAGE =
  'The server ended the response stream without answering this request: it may or may not have run.';

/**
 * Settles a request whose response stream ended without its response. The SDK's HTTP transport
 * tells the sender when a request's stream has ended (`onRequestStreamEnd`, after any resumption
 * it tries), but the client's `request()` passes no such callback: a server or proxy that ends the
 * stream cleanly without answering leaves the call waiting for its timeout — a person's whole
 * answering time. This wraps `send` to pass one, and watches incoming messages so a stream that
 * carried its response (the usual end) is told apart from one that did not. By default such a
 * request fails at once with a JSON-RPC error (`STREAM_ENDED_MESSAGE`, `data.streamEnded`);
 * `ended` replaces that (a host that drops the whole connection instead). Call after
 * `client.connect(transport)`, which sets the `onmessage` this wraps. Transports that never end a
 * request's stream (stdio) never call it, so guarding them changes nothing.
 *
 * @example
 * await client.connect(transport);
 * guardStreamEnds(transport); // a call whose stream ends empty rejects now, not at its timeout
 */
export function guardStreamEnds(transport: Transport, ended?: (id: RequestId) => void): void {
  const waiting = new Set<RequestId>();
  const send = transport.send.bind(transport);
  transport.send = (message: JSONRPCMessage, options?: TransportSendOptions) => {
    // Only requests; and where the SDK passes its own callback (a subscription), it handles the end.
    if (!('method' in message) || !('id' in message) || message.id === undefined || options?.onRequestStreamEnd) {
      return send(message, options);
    }
    const { id } = message;
    waiting.add(id);
    return send(message, {
      ...options,
      onRequestStreamEnd: () => {
        if (!waiting.delete(id)) return;
        if (ended) ended(id);
        else fail(id);
      },
    }).catch((error: unknown) => {
      // Not sent: the client's own request() reports that failure.
      waiting.delete(id);
      throw error;
    });
  };
  const fail = (id: RequestId) =>
    deliver?.({
      jsonrpc: '2.0',
      id,
      error: { code: ProtocolErrorCode.InternalError, message: STREAM_ENDED_MESSAGE, data: { streamEnded: true } },
    });
  // Every message the client is given passes through here first.
  const deliver = transport.onmessage;
  transport.onmessage = (message, extra) => {
    if (('result' in message || 'error' in message) && 'id' in message && message.id !== undefined) {
      waiting.delete(message.id);
    }
    deliver?.(message, extra);
  };
}
