import type { IncomingMessage, ServerResponse } from 'node:http';
import { DEFAULT_MAX_REQUEST_BODY_SIZE, INTERNAL_ERROR, type RequestId } from '@modelcontextprotocol/server';
import { ElicitkitUsageError } from '../errors.js';
import {
  type Exchange,
  INVALID,
  type ReadBody,
  SERVE_EXCHANGE,
  type ServeExchange,
  type TellsGone,
  TOO_LARGE,
  WHEN_GONE,
} from './exchange.js';
import type { HttpHandler } from './handler.js';
import { opensAtOnce } from './watch.js';

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
 * requests (answers to questions, notifications) never have theirs read. A tool call's signal
 * does not read it either: it is told of the client going away directly (`WHEN_GONE`).
 *
 * It holds its exchange, not the other way round: while a response streams, the exchange keeps
 * only what writing it needs, and a request nothing else holds (a GET stream's) is let go.
 */
class NodeRequest extends Request implements TellsGone {
  readonly #exchange: NodeExchange;

  constructor(url: string, init: RequestInit, exchange: NodeExchange) {
    super(url, init);
    this.#exchange = exchange;
  }

  override get signal(): AbortSignal {
    return this.#exchange.signal();
  }

  [WHEN_GONE](fn: () => void): void {
    this.#exchange.whenGone(fn);
  }
}

function requestOf(req: IncomingMessage, exchange: NodeExchange): NodeRequest {
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
  // HTTP/2 names the host in `:authority` only: it is the request's Host, for the Host check too.
  const authority = single(h[':authority']);
  if (h.host === undefined && authority !== undefined) headers.host = authority;
  const host = h.host ?? authority ?? 'localhost';
  return new NodeRequest(
    `http://${host}${req.url ?? '/'}`,
    { method: (req.method ?? 'GET').toUpperCase(), headers },
    exchange,
  );
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

/**
 * One exchange's state, in one object: what the handler is told when its response ends, the
 * stream being written, and whether the client went away. While a response streams (an open
 * question's, a GET stream's) this, the socket's `close` listener (`drop`) and the stream's reader
 * are all that is held for it — not the request, the `Response` or its headers.
 */
class NodeExchange implements Exchange {
  dropped = false;
  tooLarge = false;
  private finished = false;
  private onEnd: ((dropped: boolean) => void) | undefined;
  private followed: ReadableStream<Uint8Array> | undefined;
  private reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
  /** Resolves a wait for the socket to drain (`drained`). */
  wake: (() => void) | undefined;
  /** The request's signal, once something read it. */
  private abort: AbortController | undefined;
  /** Told when the client goes (a tool call's signal, through `WHEN_GONE`). */
  private gone: (() => void) | undefined;

  constructor(
    private readonly req: IncomingMessage,
    /** A body Express parsed already: handed on once, not held while the response streams. */
    private parsedBody: unknown,
  ) {}

  /** The response's socket closed: unless the response had ended, the client went away. */
  readonly drop = (): void => {
    if (this.finished || this.dropped) return;
    this.dropped = true;
    this.abort?.abort();
    const gone = this.gone;
    this.gone = undefined;
    gone?.();
    if (this.onEnd) this.end(true);
    // Frees the handler's side of the stream (the transport's, for a session's call).
    (this.reader ?? this.followed)?.cancel().catch(() => {});
    this.wake?.();
  };

  /** The request's signal: made when first read, aborted when the client goes (or at once if it has). */
  signal(): AbortSignal {
    if (!this.abort) {
      this.abort = new AbortController();
      if (this.dropped) this.abort.abort();
    }
    return this.abort.signal;
  }

  whenGone(fn: () => void): void {
    if (this.dropped) {
      fn();
      return;
    }
    const before = this.gone;
    this.gone = before
      ? () => {
          before();
          fn();
        }
      : fn;
  }

  async read(r: Request): Promise<ReadBody> {
    const parsed = this.parsedBody;
    if (parsed !== undefined) {
      this.parsedBody = undefined;
      return { request: r, body: parsed };
    }
    const bytes = await bytesOf(this.req, DEFAULT_MAX_REQUEST_BODY_SIZE);
    if (bytes === GONE) throw GONE;
    if (bytes === TOO_LARGE) {
      // The rest of the body is not read: the connection cannot carry another request.
      this.tooLarge = true;
      return TOO_LARGE;
    }
    // As the SDK's adapter decoded it: invalid UTF-8 replaced, a byte-order mark dropped.
    const text = decoder.decode(bytes);
    try {
      if (text.length > 0) return { request: r, body: JSON.parse(text) };
    } catch {}
    // Not JSON: the transport answers it from the text, as it always has.
    return { request: new Request(r, { body: text }), body: INVALID };
  }

  follow(response: Response, _request: Request, told: (dropped: boolean) => void): Response {
    this.onEnd = told;
    this.followed = response.body ?? undefined;
    return response;
  }

  /** Tells the handler, once, that the response ended. */
  end(wasDropped: boolean): void {
    const told = this.onEnd;
    this.onEnd = undefined;
    told?.(wasDropped);
  }

  /** The response ended normally. */
  finish(res: ServerResponse): void {
    this.finished = true;
    this.end(false);
    res.end();
  }

  /** Writes `body` to the socket, honouring backpressure, until it ends or the client goes. */
  async write(res: ServerResponse, body: ReadableStream<Uint8Array>): Promise<void> {
    const reader = body.getReader();
    this.reader = reader;
    this.followed = undefined;
    try {
      for (;;) {
        // Each chunk is written in `put`, so the frame waiting for the next one holds none (an
        // open question's stream waits for minutes after its request went out).
        const step = this.put(res, await reader.read());
        if (step === STOP) return;
        if (step === DONE) break;
        if (step === DRAIN) {
          await drained(res, this);
          if (this.dropped) return;
        }
      }
    } catch {
      // The stream broke (told as a drop, as `watchResponse` tells it): the connection is cut, not
      // the response ended, which would hand the client what came so far as all of it (half a
      // JSON reply read as a whole one, with its 200).
      if (this.dropped) return;
      this.finished = true;
      this.end(true);
      res.destroy();
      return;
    }
    this.finish(res);
  }

  /** One read of the stream, written. */
  private put(res: ServerResponse, read: ReadableStreamReadResult<Uint8Array>): Step {
    if (this.dropped) return STOP;
    if (read.done) return DONE;
    return res.write(read.value) ? MORE : DRAIN;
  }
}

const MORE = 0;
const DRAIN = 1;
const DONE = 2;
const STOP = 3;
type Step = typeof MORE | typeof DRAIN | typeof DONE | typeof STOP;

/** Resolves once `res` drains, or its client goes (`drop` wakes it). */
async function drained(res: ServerResponse, exchange: NodeExchange): Promise<void> {
  await new Promise<void>((resolve) => {
    exchange.wake = resolve;
    res.once('drain', resolve);
  });
  exchange.wake = undefined;
}

/**
 * One request: read, handed to the handler's core, its response written; the end reported once.
 * The writing is the exchange's own (`write`): this function's frame, with the request and the
 * `Response` in it, is over once the head is written.
 */
async function exchangeOn(
  serve: ServeExchange,
  req: IncomingMessage,
  res: ServerResponse,
  parsedBody: unknown,
): Promise<void> {
  const exchange = new NodeExchange(req, parsedBody);
  res.on('close', exchange.drop);
  if (res.destroyed) exchange.drop();

  let response: Response;
  try {
    response = await serve(requestOf(req, exchange), exchange);
  } catch (error) {
    if (error === GONE || exchange.dropped) return;
    response = internalError(echoableId(parsedBody));
  }
  if (exchange.dropped) {
    // The client left while it was being served: nothing to write, the stream is freed.
    exchange.end(true);
    if (response.body && !response.body.locked) response.body.cancel().catch(() => {});
    return;
  }
  res.writeHead(response.status, headersOf(response, exchange.tooLarge));
  // A GET's stream may carry nothing for a while: its headers go now, not with its first byte.
  if (opensAtOnce(req, response)) res.flushHeaders();
  const body = response.body;
  if (!body) {
    exchange.finish(res);
    return;
  }
  return exchange.write(res, body);
}

/** A response's headers as `writeHead` takes them. */
function headersOf(response: Response, tooLarge: boolean): Record<string, string | string[]> {
  const headers: Record<string, string | string[]> = {};
  response.headers.forEach((value, name) => {
    headers[name] = name === 'set-cookie' ? response.headers.getSetCookie() : value;
  });
  if (tooLarge) headers.connection = 'close';
  return headers;
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
