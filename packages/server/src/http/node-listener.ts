import type { IncomingMessage, ServerResponse } from 'node:http';
import { DEFAULT_MAX_REQUEST_BODY_SIZE, INTERNAL_ERROR, type RequestId } from '@modelcontextprotocol/server';
import { ElicitkitUsageError } from '../errors.js';
import { type Exchange, INVALID, type ReadBody, SERVE_EXCHANGE, type ServeExchange, TOO_LARGE } from './exchange.js';
import type { HttpHandler } from './handler.js';

/** A `node:http` request listener (Express's `(req, res, next)` too: a function third argument is not a body). */
export type NodeListener = (req: IncomingMessage, res: ServerResponse, parsedBody?: unknown) => Promise<void>;

/**
 * Serves a handler made by `createHttpHandler` on `node:http` (or Express): the body is read from
 * the socket once (bounded as the SDK's transports bound it, 413 past it) and parsed once, and the
 * response is written straight to the socket, honouring backpressure. A client that goes away is
 * noticed at once: the end of its response stream is reported to the handler directly (its
 * calls, questions and in-flight counts released), and the request's `signal` — made only when
 * something reads it — aborts.
 *
 * What `toNodeHandler` from `@modelcontextprotocol/node` does, in one conversion instead of two.
 * Express: pass a body `express.json()` already parsed as the third argument. The `Request` the
 * handler's `authenticate` is given carries the headers, not the body.
 *
 * @example
 * import { createServer } from 'node:http';
 * import { createHttpHandler } from '@elicitkit/server';
 * import { toNodeListener } from '@elicitkit/server/node';
 *
 * const http = createHttpHandler(() => kit.createServer(info, tools), { authenticate });
 * createServer(toNodeListener(http)).listen(7777, '127.0.0.1');
 */
export function toNodeListener(handler: HttpHandler): NodeListener {
  const serve = (handler as Partial<Record<typeof SERVE_EXCHANGE, ServeExchange>>)[SERVE_EXCHANGE];
  if (!serve)
    throw new ElicitkitUsageError(
      'NOT_AN_HTTP_HANDLER',
      'toNodeListener serves a handler made by createHttpHandler (of this copy of @elicitkit/server); wrap other fetch handlers with toNodeHandler from @modelcontextprotocol/node.',
    );
  return (req, res, parsedBody) =>
    exchangeOn(serve, req, res, typeof parsedBody === 'function' ? undefined : parsedBody);
}

/**
 * The Web request a Node request becomes: its headers, no body (that is read from the socket), and
 * a signal made on demand. Every `Request` has a signal of its own, but following another one costs
 * undici a second controller, a listener and a finalization registration per request — and most
 * requests (answers to questions, notifications) never have theirs read.
 */
class NodeRequest extends Request {
  #abort: AbortController | undefined;
  #gone = false;

  override get signal(): AbortSignal {
    if (!this.#abort) {
      this.#abort = new AbortController();
      if (this.#gone) this.#abort.abort();
    }
    return this.#abort.signal;
  }

  /** The client went away: the signal aborts (now, or as soon as it is made). */
  gone(): void {
    if (this.#gone) return;
    this.#gone = true;
    this.#abort?.abort();
  }
}

function requestOf(req: IncomingMessage): NodeRequest {
  const h = req.headers;
  // A plain record, copied once by the Request (a Headers built first is copied twice).
  const headers: Record<string, string> = {};
  for (const name in h) {
    const value = h[name];
    // HTTP/2 pseudo-headers (`:authority`) are not headers of the request.
    if (value === undefined || name.charCodeAt(0) === COLON) continue;
    // Node keeps only set-cookie as a list; appended one by one they would read back joined so.
    headers[name] = typeof value === 'string' ? value : value.join(', ');
  }
  const host = h.host ?? single(h[':authority']) ?? 'localhost';
  return new NodeRequest(`http://${host}${req.url ?? '/'}`, { method: (req.method ?? 'GET').toUpperCase(), headers });
}

const COLON = 58;
const single = (value: string | string[] | undefined) => (Array.isArray(value) ? value[0] : value);

/** The client closed its connection while its body was being read. */
const GONE = Symbol('client gone');
const decoder = new TextDecoder();

/**
 * The body's bytes, up to `limit`: TOO_LARGE past it (by `content-length` before reading, or as
 * the bytes arrive), GONE when the connection closes before the body ends.
 */
function bytesOf(req: IncomingMessage, limit: number): Promise<Uint8Array | typeof TOO_LARGE | typeof GONE> {
  if (Number(single(req.headers['content-length'])) > limit) return Promise.resolve(TOO_LARGE);
  if (req.readableEnded) return Promise.resolve(new Uint8Array(0));
  // Closed before the body was read (the client left while `authenticate` ran): nothing will come.
  if (req.destroyed) return Promise.resolve(GONE);
  return new Promise((resolve) => {
    const chunks: Uint8Array[] = [];
    let size = 0;
    const finish = (result: Uint8Array | typeof TOO_LARGE | typeof GONE) => {
      req.off('data', data);
      req.off('end', end);
      req.off('close', gone);
      req.off('error', gone);
      resolve(result);
    };
    const data = (chunk: Uint8Array | string) => {
      const bytes = typeof chunk === 'string' ? new TextEncoder().encode(chunk) : chunk;
      size += bytes.byteLength;
      if (size > limit) finish(TOO_LARGE);
      else chunks.push(bytes);
    };
    const end = () => finish(chunks.length === 1 ? (chunks[0] as Uint8Array) : concat(chunks, size));
    const gone = () => finish(GONE);
    req.on('data', data);
    req.on('end', end);
    req.on('close', gone);
    req.on('error', gone);
  });
}

function concat(chunks: Uint8Array[], size: number): Uint8Array {
  const all = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    all.set(chunk, at);
    at += chunk.byteLength;
  }
  return all;
}

/** One request: read, handed to the handler's core, its response written; the end reported once. */
async function exchangeOn(
  serve: ServeExchange,
  req: IncomingMessage,
  res: ServerResponse,
  parsedBody: unknown,
): Promise<void> {
  let request: NodeRequest | undefined;
  let onEnd: ((dropped: boolean) => void) | undefined;
  let followed: ReadableStream<Uint8Array> | undefined;
  let reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
  let finished = false;
  let dropped = false;
  let tooLarge = false;
  let wake: (() => void) | undefined;
  const end = (wasDropped: boolean) => {
    const told = onEnd;
    onEnd = undefined;
    told?.(wasDropped);
  };
  const drop = () => {
    if (finished || dropped) return;
    dropped = true;
    request?.gone();
    if (onEnd) end(true);
    // Frees the handler's side of the stream (the transport's, for a session's call).
    (reader ?? followed)?.cancel().catch(() => {});
    wake?.();
  };
  res.on('close', drop);
  if (res.destroyed) drop();

  const exchange: Exchange = {
    async read(r): Promise<ReadBody> {
      if (parsedBody !== undefined) return { request: r, body: parsedBody };
      const bytes = await bytesOf(req, DEFAULT_MAX_REQUEST_BODY_SIZE);
      if (bytes === GONE) throw GONE;
      if (bytes === TOO_LARGE) {
        // The rest of the body is not read: the connection cannot carry another request.
        tooLarge = true;
        return TOO_LARGE;
      }
      // As the SDK's adapter decoded it: invalid UTF-8 replaced, a byte-order mark dropped.
      const text = decoder.decode(bytes);
      try {
        if (text.length > 0) return { request: r, body: JSON.parse(text) };
      } catch {}
      // Not JSON: the transport answers it from the text, as it always has.
      return { request: new Request(r, { body: text }), body: INVALID };
    },
    follow(response, _request, told) {
      onEnd = told;
      followed = response.body ?? undefined;
      return response;
    },
  };

  let response: Response;
  try {
    request = requestOf(req);
    if (dropped) request.gone();
    response = await serve(request, exchange);
  } catch (error) {
    if (error === GONE || dropped) return;
    response = internalError(echoableId(parsedBody));
  }
  if (dropped) {
    // The client left while it was being served: nothing to write, the stream is freed.
    end(true);
    if (response.body && !response.body.locked) response.body.cancel().catch(() => {});
    return;
  }

  const headers: Record<string, string | string[]> = {};
  response.headers.forEach((value, name) => {
    headers[name] = name === 'set-cookie' ? response.headers.getSetCookie() : value;
  });
  if (tooLarge) headers.connection = 'close';
  res.writeHead(response.status, headers);
  const body = response.body;
  if (!body) {
    finished = true;
    end(false);
    res.end();
    return;
  }
  reader = body.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (dropped) return;
      if (done) break;
      if (!res.write(value)) {
        await new Promise<void>((resolve) => {
          wake = resolve;
          res.once('drain', resolve);
        });
        wake = undefined;
        if (dropped) return;
      }
    }
  } catch {
    // The stream broke (told as a drop, as `watchResponse` tells it): the response ends there.
    if (dropped) return;
    finished = true;
    end(true);
    res.end();
    return;
  }
  finished = true;
  end(false);
  res.end();
}

/** The id to echo on the adapter's own 500: a single request's (string or number), else null. */
function echoableId(body: unknown): RequestId | null {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return null;
  const { method, id } = body as { method?: unknown; id?: unknown };
  if (typeof method !== 'string') return null;
  return typeof id === 'string' || typeof id === 'number' ? id : null;
}

function internalError(id: RequestId | null): Response {
  return new Response(
    JSON.stringify({ jsonrpc: '2.0', error: { code: INTERNAL_ERROR, message: 'Internal server error' }, id }),
    { status: 500, headers: { 'content-type': 'application/json' } },
  );
}
