import { SdkError, SdkErrorCode, SdkHttpError } from '@modelcontextprotocol/client';

/**
 * How a request to an MCP server failed at the connection level, as opposed to a tool or protocol
 * error (which a working server sent back, so the connection is fine):
 * - `refused`: nothing listens there (`ECONNREFUSED`), so the request was never sent;
 * - `session-unknown`: HTTP 404 to a request carrying a session id, the Streamable HTTP answer of
 *   a server that does not know the session (it restarted); it did not process the request;
 * - `lost`: the connection broke (reset, socket closed, the SDK's `ConnectionClosed`), so a
 *   request in flight may or may not have run.
 */
export type ConnectionFailure = 'refused' | 'session-unknown' | 'lost';

/** Node and undici error codes of a connection nobody accepted. */
const REFUSED = new Set(['ECONNREFUSED']);
/** Node and undici error codes of a connection that broke after it was made. */
const LOST = new Set(['ECONNRESET', 'EPIPE', 'ECONNABORTED', 'UND_ERR_SOCKET', 'UND_ERR_CLOSED']);
/** HTTP 404: the Streamable HTTP spec's answer to an unknown `Mcp-Session-Id`. */
const HTTP_NOT_FOUND = 404;

/**
 * Classifies an error by its type and its `cause` chain (never by message text): the SDK's typed
 * errors, then Node's error codes (fetch's `TypeError` carries them as its cause). Undefined for
 * anything else — a tool error, a JSON-RPC error, a timeout, an abort — which must not reconnect.
 *
 * @example
 * connectionFailure(new TypeError('fetch failed', { cause: Object.assign(new Error(), { code: 'ECONNREFUSED' }) })); // 'refused'
 */
export function connectionFailure(error: unknown, depth = 0): ConnectionFailure | undefined {
  if (depth > 8 || typeof error !== 'object' || error === null) return undefined;
  if (SdkHttpError.isInstance(error)) return error.status === HTTP_NOT_FOUND ? 'session-unknown' : undefined;
  if (SdkError.isInstance(error)) {
    return error.code === SdkErrorCode.ConnectionClosed ? 'lost' : connectionFailure(error.cause, depth + 1);
  }
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && REFUSED.has(code)) return 'refused';
  if (typeof code === 'string' && LOST.has(code)) return 'lost';
  // `localhost` may resolve to several addresses: refused only when every attempt was.
  const errors = (error as { errors?: unknown }).errors;
  if (Array.isArray(errors) && errors.length > 0) {
    const kinds = errors.map((e) => connectionFailure(e, depth + 1));
    if (kinds.every((k) => k === 'refused')) return 'refused';
    if (kinds.some((k) => k !== undefined)) return 'lost';
  }
  return connectionFailure((error as { cause?: unknown }).cause, depth + 1);
}

/** What `watchedFetch` reports. */
export interface FetchWatch {
  /** A request or its response stream failed at the connection level. */
  failed(kind: ConnectionFailure): void;
  /** The server answered a POST (a 2xx): whatever it carried reached the server. */
  answered(): void;
}

/**
 * A `fetch` for the SDK's HTTP transport that reports connection-level failures as they happen,
 * including a response stream that breaks mid-way (the SDK only logs that, leaving the call it
 * carried waiting for its timeout). `failed` is told after the failing request's own rejection
 * has settled, so that request is judged by its own error. `inner` is the `fetch` it watches: the
 * global one, or an endpoint's in this process (the bundled opsdesk's `serving.fetch`).
 *
 * @example
 * new StreamableHTTPClientTransport(url, { fetch: watchedFetch({ failed: drop, answered: () => {} }) });
 */
export function watchedFetch(watch: FetchWatch, inner: typeof fetch = fetch): typeof fetch {
  const report = (kind: ConnectionFailure | undefined) => {
    if (kind) setImmediate(() => watch.failed(kind));
  };
  return async (input, init) => {
    let response: Response;
    try {
      response = await inner(input, init);
    } catch (error) {
      report(connectionFailure(error));
      throw error;
    }
    if (response.ok && init?.method === 'POST') watch.answered();
    const headers = new Headers(init?.headers);
    if (response.status === HTTP_NOT_FOUND && headers.has('mcp-session-id')) report('session-unknown');
    const source = response.body;
    if (!source) return response;
    const reader = source.getReader();
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        try {
          const read = await reader.read();
          if (read.done) controller.close();
          else controller.enqueue(read.value);
        } catch (error) {
          // An abort the client asked for is no failure of the server.
          if (!init?.signal?.aborted) report(connectionFailure(error));
          controller.error(error);
        }
      },
      cancel: (reason) => reader.cancel(reason),
    });
    return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
  };
}
