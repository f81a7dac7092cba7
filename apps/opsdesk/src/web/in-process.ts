/**
 * opsdesk's MCP endpoint for a client in the same process (the web app's chats), in `fetch`'s
 * shape so that it goes where an SDK transport takes its `fetch`. It is the handler `serve --http`
 * serves on its port, with the same bearer tokens, Host check and limits; only the socket and the
 * HTTP parser are left out, which were most of the cost of an answer sent from the web app (see
 * `bench/README.md`). A shutdown counts its requests like the socket's, and once closed it fails
 * the way `fetch` to a closed port does, so a client handles both the same way.
 */
import { INTERNAL_ERROR_BODY } from './last-resort.js';

/** The requests doing work, so that a shutdown can wait for them. */
export interface InFlight {
  /** One more request doing work; call what it returns once, when its response has ended. */
  begin(): () => void;
  /** Resolves when no request is doing work, or after `limitMs` at most. */
  drained(): Promise<void>;
}

export function createInFlight(limitMs: number): InFlight {
  let count = 0;
  const waiting: (() => void)[] = [];
  return {
    begin() {
      count++;
      let ended = false;
      return () => {
        if (ended) return;
        ended = true;
        count--;
        if (count === 0) for (const resolve of waiting.splice(0)) resolve();
      };
    },
    async drained() {
      if (count === 0) return;
      await new Promise<void>((resolve) => {
        waiting.push(resolve);
        setTimeout(resolve, limitMs).unref();
      });
    },
  };
}

export interface InProcessOptions {
  /** The endpoint's URL, `http://127.0.0.1:<port>/mcp`: a request must name it, as over the network. */
  url: string;
  /** The MCP handler (refusing new work while the server shuts down). */
  serve(request: Request): Promise<Response>;
  /** True once the server has closed: requests then fail as at a closed port. */
  closed(): boolean;
  inFlight: InFlight;
  /** An error nothing answered (the client gets a generic internal error). */
  onError(error: unknown, where: string): void;
}

/**
 * @example
 * new StreamableHTTPClientTransport(new URL(serving.url), { fetch: serving.fetch, requestInit });
 */
export function inProcessFetch(options: InProcessOptions): typeof fetch {
  const { url, serve, closed, inFlight, onError } = options;
  const host = new URL(url).host;
  return async (input, init) => {
    if (closed()) throw refused(url);
    const request = new Request(input, init);
    if (request.url !== url)
      return new Response('Not found', { status: 404, headers: { 'content-type': 'text/plain' } });
    // What an HTTP client sends and the handler's DNS-rebinding check reads.
    if (!request.headers.has('host')) request.headers.set('host', host);
    // Long-lived GET streams do not hold up a shutdown; requests doing work do.
    const end = request.method === 'GET' ? undefined : inFlight.begin();
    let response: Response;
    try {
      response = await serve(request);
    } catch (error) {
      end?.();
      onError(error, `${request.method} /mcp (in process)`);
      return new Response(INTERNAL_ERROR_BODY, { status: 500, headers: { 'content-type': 'application/json' } });
    }
    return end ? endsWithBody(response, end) : response;
  };
}

/** What `fetch` throws for a port nobody listens on: a `TypeError` caused by `ECONNREFUSED`. */
function refused(url: string): TypeError {
  const cause = Object.assign(new Error(`connect ECONNREFUSED: opsdesk at ${url} has closed`), {
    code: 'ECONNREFUSED',
  });
  return new TypeError('fetch failed', { cause });
}

/**
 * The response, with `end` called once the server has written it: at once for a JSON answer (the
 * handler resolves it with the whole body), after a stream's last event (a 2025 call's questions
 * and result) — whether or not the client has read it yet, as a socket's response ends when it is
 * written. What the client has not read waits in the stream, as it would in a socket's buffers.
 */
function endsWithBody(response: Response, end: () => void): Response {
  const source = response.body;
  if (!source || !response.headers.get('content-type')?.startsWith('text/event-stream')) {
    end();
    return response;
  }
  const written = new TransformStream<Uint8Array, Uint8Array>(undefined, undefined, {
    highWaterMark: Number.POSITIVE_INFINITY,
  });
  // Ends when the stream closes, fails, or the client cancels it (which cancels the source).
  source.pipeTo(written.writable).then(end, end);
  return new Response(written.readable, {
    status: response.status,
    statusText: response.statusText,
    headers: response.headers,
  });
}
