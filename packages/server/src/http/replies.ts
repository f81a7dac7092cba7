import { INVALID_REQUEST, type RequestId } from '@modelcontextprotocol/server';

/** Server-defined JSON-RPC codes the SDK's own sessionful examples answer with. */
export const SESSION_REQUIRED = -32_000;
export const SESSION_NOT_FOUND = -32_001;
/** The code the SDK's Host and Origin checks answer 403 with. */
export const HOST_REFUSED = -32_000;
/** The codes the SDK's transports answer 413 and 415 with (HTTP status says which). */
export const PAYLOAD_TOO_LARGE = -32_000;
export const UNSUPPORTED_MEDIA_TYPE = -32_000;
/** The code of a 405 to a GET resuming a stream that is over (`streamOver`), as the SDK's transports answer 405. */
export const STREAM_OVER = -32_000;
/**
 * The JSON-RPC error code of a request a per-identity or server-wide limit refused (HTTP 429);
 * `error.data.limit` names the limit.
 *
 * @example
 * if (error instanceof ProtocolError && error.code === LIMIT_REACHED) await wait(retryAfter);
 */
export const LIMIT_REACHED = -32_029;

/** Which limit refused a request. */
export type LimitName = 'maxSessions' | 'maxSessionsPerIdentity' | 'maxInFlightPerIdentity';

/** How long a refused client is told to wait before trying again, seconds. */
const RETRY_AFTER_SECONDS = 5;

export function jsonRpcError(status: number, code: number, message: string, id: RequestId | null = null): Response {
  return new Response(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id }), {
    status,
    headers: { 'content-type': 'application/json' },
  });
}

/** HTTP 429 with a JSON-RPC error naming the limit: refused at once, never left hanging. */
export function limitReached(limit: LimitName, max: number, id: RequestId | null): Response {
  const what = (
    {
      maxSessions: `The server holds its limit of ${max} open sessions, none of them yours to close.`,
      maxSessionsPerIdentity: `You have ${max} open sessions, the limit, each with a request in flight. Close one (DELETE) or wait for one to finish.`,
      maxInFlightPerIdentity: `Your requests in flight would pass the limit of ${max} (each open question is one). Wait for one to finish.`,
    } satisfies Record<LimitName, string>
  )[limit];
  return new Response(
    JSON.stringify({
      jsonrpc: '2.0',
      error: { code: LIMIT_REACHED, message: `Too many requests: ${what}`, data: { limit, max } },
      id,
    }),
    {
      status: 429,
      headers: { 'content-type': 'application/json', 'retry-after': String(RETRY_AFTER_SECONDS) },
    },
  );
}

/**
 * HTTP 400 to a POST whose batch starts more requests than `maxInFlightPerIdentity`: it could
 * never start, however long the client waited, so it is no 429 (which says to retry) but a request
 * to send fewer at once.
 */
export function batchPastLimit(count: number, max: number, id: RequestId | null): Response {
  return jsonRpcError(
    400,
    INVALID_REQUEST,
    `Bad Request: a batch of ${count} requests is more than the ${max} an identity may have in flight at once (maxInFlightPerIdentity), so it could never start; send at most ${max} in one POST.`,
    id,
  );
}

/**
 * HTTP 405 to a GET resuming (Last-Event-ID) a POST stream that will carry nothing more: each of
 * its requests was answered or cancelled. MCP lets a server answer a GET 405 (it offers no stream
 * there); a client stops resuming on it, where an SSE stream that just ends is resumed again.
 */
export function streamOver(): Response {
  return new Response(
    JSON.stringify({
      jsonrpc: '2.0',
      error: {
        code: STREAM_OVER,
        message:
          'Method Not Allowed: the stream Last-Event-ID names is over — each request it carried was answered or cancelled, and nothing more will come on it.',
      },
      id: null,
    }),
    { status: 405, headers: { 'content-type': 'application/json', allow: 'GET, POST, DELETE' } },
  );
}
