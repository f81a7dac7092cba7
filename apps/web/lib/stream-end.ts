import type { JSONRPCMessage, RequestId, Transport, TransportSendOptions } from '@modelcontextprotocol/client';

/**
 * Reports a request whose response stream ended without its response. The SDK's HTTP transport
 * tells the sender when a request's stream has ended (`onRequestStreamEnd`, after any resumption
 * it tries), but the client's `request()` passes no such callback: a server or proxy that ends the
 * stream cleanly without answering leaves the call waiting for its timeout — a person's whole
 * answering time. This wraps `send` to pass one, and watches incoming messages so a stream that
 * carried its response (the usual end) is told apart from one that did not. Call after
 * `client.connect(transport)`, which sets the `onmessage` this wraps.
 *
 * @example
 * guardStreamEnds(transport, () => dropConnection()); // the call in flight fails as "may have run"
 */
export function guardStreamEnds(transport: Transport, ended: (id: RequestId) => void): void {
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
        if (waiting.delete(id)) ended(id);
      },
    }).catch((error: unknown) => {
      // Not sent: the client's own request() reports that failure.
      waiting.delete(id);
      throw error;
    });
  };
  // Every message the client is given passes through here first.
  const deliver = transport.onmessage;
  transport.onmessage = (message, extra) => {
    if (('result' in message || 'error' in message) && 'id' in message && message.id !== undefined) {
      waiting.delete(message.id);
    }
    deliver?.(message, extra);
  };
}
