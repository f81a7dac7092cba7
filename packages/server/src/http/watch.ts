/**
 * Follows a streamed response to its end, and tells finished from dropped. The transport does not
 * watch the request's signal, and Node's adapter only notices a closed socket when the stream next
 * writes (a keep-alive every `keepAliveMs`, 5 s): without this a client that went away keeps its
 * stream, its timers and its questions until they time out.
 *
 * `onEnd(true)` runs once when the client dropped the stream before it ended (the request's signal
 * aborted, or the body was cancelled); the inner stream is then cancelled, which frees the
 * transport's side of it. `onEnd(false)` runs once when it ended normally.
 *
 * `first`, when given, is sent before anything the stream carries (`OPENED`).
 *
 * The request itself is held until then, not just its signal: a `Request` built with a signal
 * follows it through a weak reference to its own controller, so once the request is collected its
 * signal no longer aborts (seen under load: a dropped stream went unnoticed).
 */
export function watchResponse(
  response: Response,
  request: Request,
  onEnd: (dropped: boolean) => void,
  first?: Uint8Array,
): Response {
  const inner = response.body;
  // Captured by the closures below, so the request lives exactly as long as the stream does.
  let held: Request | undefined = request;
  if (!inner) {
    onEnd(false);
    return response;
  }
  const reader = inner.getReader();
  let ended = false;
  let outer: ReadableStreamDefaultController<Uint8Array> | undefined;
  const end = (dropped: boolean) => {
    if (ended) return false;
    ended = true;
    held?.signal.removeEventListener('abort', dropNow);
    held = undefined;
    onEnd(dropped);
    return true;
  };
  function dropNow() {
    if (!end(true)) return;
    reader.cancel().catch(() => {});
    try {
      outer?.close();
    } catch {
      // Already closed or errored: nothing left to end.
    }
  }
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      outer = controller;
      if (first) controller.enqueue(first);
    },
    async pull(controller) {
      try {
        const { done, value } = await reader.read();
        if (ended) return;
        if (done) {
          end(false);
          controller.close();
        } else controller.enqueue(value);
      } catch (error) {
        if (end(true)) controller.error(error);
      }
    },
    cancel(reason) {
      end(true);
      return reader.cancel(reason);
    },
  });
  if (request.signal.aborted) dropNow();
  else request.signal.addEventListener('abort', dropNow, { once: true });
  return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
}

/**
 * Whether `response` answers a GET with an SSE stream: the standalone stream, or a resumption of
 * one. Node writes a response's headers only with its first byte, and such a stream may carry
 * nothing for minutes (its first keep-alive comes after `keepAliveMs`): its client would not know the
 * stream was open, nor would a proxy that times out a response's headers. Such a response is
 * opened at once: its headers flushed (Node's face), or an SSE comment sent first (the Web face,
 * which Node's adapters serve the same way).
 */
export function opensAtOnce(request: { method?: string | undefined }, response: Response): boolean {
  return (
    request.method === 'GET' &&
    response.body !== null &&
    (response.headers.get('content-type')?.startsWith('text/event-stream') ?? false)
  );
}

/** An SSE comment (a line opening with `:`), which every client skips: it only gets the headers out. */
export const OPENED = new TextEncoder().encode(': open\n\n');
