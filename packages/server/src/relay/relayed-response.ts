import { INTERNAL_ERROR, isJSONRPCRequest, type RequestId } from '@modelcontextprotocol/server';
import { type Frame, fromBase64 } from './frames.js';

/** The holder of the session is gone (it never answered): the session went with it. */
export class HolderGone extends Error {
  readonly code = 'HOLDER_GONE';
  constructor() {
    super('the replica holding the session is gone');
  }
}

/**
 * The relay was cut on this side (our Redis subscription dropped, or Redis could not be asked):
 * the holder and its session may well be fine, so the session is not forgotten, only this request
 * fails — and can be sent again.
 */
export class RelayInterrupted extends Error {
  readonly code = 'RELAY_INTERRUPTED';
  constructor(reason: string) {
    super(reason);
  }
}

/**
 * A relay this replica asked for that ended without its whole response (told to
 * `RedisRelayOptions.onerror`): its client got an error to act on — before the response began, a
 * 503 to send again, or "Session not found" when the holder stopped; after it (`started`), an
 * error event for each request the stream carried, or a JSON reply cut off.
 *
 * @example
 * const relay = createRedisRelay(redis, {
 *   secret,
 *   onerror: (error) => console.error(error instanceof RelayFailedError ? error.message : error),
 * });
 */
export class RelayFailedError extends Error {
  readonly code = 'RELAY_FAILED';
  constructor(
    /** The replica holding the session. */
    readonly holder: string,
    /** The relayed request's HTTP method (a GET stream, a POST of messages, a DELETE). */
    readonly method: string,
    /** Why, as its client is told. */
    readonly reason: string,
    /** Whether the response had begun (its status and headers sent on to the client). */
    readonly started: boolean,
  ) {
    super(`a ${method} relayed to replica ${holder} failed${started ? ' part way' : ''}: ${reason}`);
    this.name = 'RelayFailedError';
  }
}

export interface RelayedResponseSettings {
  /** The body the request carried (to answer its JSON-RPC requests if the holder dies mid-stream). */
  requestBody: Uint8Array | undefined;
  /**
   * The holder numbers the response's frames (`seq` on the request): one whose place (`i`) is not
   * the next — a message dropped or held back on the way — ends the relay with an error.
   */
  sequenced?: boolean;
  /**
   * Tells the holder to drop the request: `resume` when our client only went away (told nothing,
   * it may pick its calls up again with Last-Event-ID), else its calls end there too.
   */
  abort: (resume: boolean) => void;
  /**
   * Tells the holder to drop the request, and resolves once it is sure to have (`confirmDrop`):
   * a relay that lost part of its response is failed to its client only then.
   */
  dropped: () => Promise<void>;
  /** Called once, when this relay is over whichever way. */
  done: () => void;
  /** Called when it fails (`fail`), before `done`: why, and whether the response had begun. */
  failed?: (reason: string, started: boolean) => void;
}

const encoder = new TextEncoder();
const TOO_LATE =
  'a message between the server instances arrived after it expired (one of them was paused, or cut off, for too long)';

/** What a client told a relayed call did not complete must also be told: the effect may have run. */
export const UNKNOWN_OUTCOME =
  'Whether it took effect is not known: a tool effect the server had already begun runs to its end. Check before calling it again.';

/**
 * The requesting side of one relay: turns the holder's frames back into a `Response` (the head
 * resolves it, chunks stream through as they come), and ends it with an error when told the way to
 * the holder is lost (`fail`: the holder's watch, a dropped subscription or connection), so a
 * replica killed mid-question ends its client's requests instead of leaving them to hang.
 */
export class RelayedResponse {
  private readonly head: Promise<Response>;
  private resolveHead!: (response: Response) => void;
  private rejectHead!: (error: Error) => void;
  private stream: ReadableStreamDefaultController<Uint8Array> | undefined;
  private started = false;
  private over = false;
  /** Given up on (`giveUp`): nothing more is taken, and its client is told once the holder dropped it. */
  private givingUp: Promise<void> | undefined;
  private sse = false;
  /** The place of the frame due next, when the holder numbers them. */
  private next = 0;

  constructor(private readonly settings: RelayedResponseSettings) {
    this.head = new Promise((resolve, reject) => {
      this.resolveHead = resolve;
      this.rejectHead = reject;
    });
    // Rejected when the holder turns out to be gone; whoever awaits `response()` sees it, and a
    // relay given up before that (PUBLISH reached nobody) must not leave an unhandled rejection.
    this.head.catch(() => {});
  }

  response(): Promise<Response> {
    return this.head;
  }

  /** Whether it is over (finished, failed or cancelled). */
  get settled(): boolean {
    return this.over;
  }

  accept(frame: Frame): void {
    if (this.over || this.givingUp) return;
    if (
      this.settings.sequenced &&
      (frame.t === 'head' || frame.t === 'data' || frame.t === 'end' || frame.t === 'fail') &&
      frame.i !== this.next++
    ) {
      void this.giveUp('part of the response was lost on the way between the server instances');
      return;
    }
    switch (frame.t) {
      case 'head': {
        this.started = true;
        if (frame.end) {
          this.finish();
          const nullBody = frame.status === 204 || frame.status === 304 || frame.body === undefined;
          const bytes = nullBody || frame.body === undefined ? null : (fromBase64(frame.body) as BodyInit);
          this.resolveHead(new Response(bytes, { status: frame.status, headers: frame.headers }));
          return;
        }
        this.sse = frame.headers.some(([k, v]) => k === 'content-type' && v.startsWith('text/event-stream'));
        const body = new ReadableStream<Uint8Array>({
          start: (controller) => {
            this.stream = controller;
          },
          cancel: () => this.cancel(),
        });
        const nullBody = frame.status === 204 || frame.status === 304;
        this.resolveHead(new Response(nullBody ? null : body, { status: frame.status, headers: frame.headers }));
        return;
      }
      case 'data':
        this.stream?.enqueue(fromBase64(frame.d));
        return;
      case 'end':
        this.finish();
        this.stream?.close();
        return;
      case 'fail':
        this.fail(frame.message);
        return;
      default:
        return;
    }
  }

  /**
   * A frame of this response that came after its expiry (`takeLate`): never taken, but one the
   * holder numbered at or past the place due next was lost on the way, and the relay ends as for
   * a gap. A number already taken is a copy sent again (a replay), and changes nothing; so is a
   * frame without one from a holder that numbers them, and any late frame from one that does not.
   */
  late(frame: Frame): void {
    if (this.over || this.givingUp || !this.settings.sequenced) return;
    if (frame.t !== 'head' && frame.t !== 'data' && frame.t !== 'end' && frame.t !== 'fail') return;
    if (frame.i !== undefined && frame.i >= this.next) void this.giveUp(TOO_LATE);
  }

  /**
   * This side gives up on a relay the holder may still run (part of the response lost on the way,
   * the way to the holder lost or in doubt, this replica shutting down): nothing more is taken —
   * not even what the holder says on dropping it — and the relay fails (`interrupted`: 503, or an
   * error event mid-stream) once the holder is sure to have dropped the request (`dropped`): the
   * call may be waiting there still, on a question its client may answer straight to it once told
   * it failed. Resolves once it has failed (at once when it is over already).
   */
  giveUp(reason: string): Promise<void> {
    if (this.over) return Promise.resolve();
    this.givingUp ??= this.settings.dropped().then(() => this.fail(reason, 'interrupted'));
    return this.givingUp;
  }

  /** Our client went away: the holder drops the request. */
  cancel(): void {
    if (this.over) return;
    this.finish();
    this.settings.abort(true);
    try {
      this.stream?.close();
    } catch {
      // Already cancelled by the reader.
    }
  }

  /**
   * The relay cannot finish. Before the head: the session is gone (`gone`: the handler answers
   * "Session not found"), or this side lost the way to it (`interrupted`: 503, try again).
   * Mid-SSE: each JSON-RPC request the POST carried gets an error event, so the client's call
   * ends with an error now instead of waiting for its timeout.
   */
  fail(reason: string, why: 'gone' | 'interrupted' = 'gone'): void {
    if (this.over) return;
    this.settings.failed?.(reason, this.started);
    this.finish();
    // Whatever the reason, the holder is told to drop it: the client is told the call failed, so
    // it must not go on there (its questions withdrawn, a late answer acting on nothing). Every
    // `fail` says so, not only those this side caused: "nobody listens on the holder's channel"
    // may be a holder briefly cut from Redis, not a dead one (a dead one just never reads it).
    // Its calls end there even where the session keeps its events: told they failed, the client
    // will not pick them up again.
    this.settings.abort(false);
    if (!this.started) {
      this.rejectHead(why === 'gone' ? new HolderGone() : new RelayInterrupted(reason));
      return;
    }
    if (this.sse) {
      // The stream may stop inside an event (a piece of it lost, or never sent): a blank line
      // ends whatever was cut there (an event with no data is none), so the errors read whole.
      this.stream?.enqueue(encoder.encode('\n\n'));
      for (const id of requestIds(this.settings.requestBody)) {
        const error = {
          jsonrpc: '2.0',
          id,
          // The holder is told to drop it, which ends a call not yet at its effect; an effect it had
          // begun runs to its end (it is never cut half-way). Which of the two is not known here.
          error: { code: INTERNAL_ERROR, message: `The request did not complete: ${reason}. ${UNKNOWN_OUTCOME}` },
        };
        this.stream?.enqueue(encoder.encode(`event: message\ndata: ${JSON.stringify(error)}\n\n`));
      }
      this.stream?.close();
    } else this.stream?.error(new Error(reason));
  }

  private finish(): void {
    this.over = true;
    this.settings.done();
  }
}

function requestIds(body: Uint8Array | undefined): RequestId[] {
  if (!body) return [];
  try {
    const parsed = JSON.parse(new TextDecoder().decode(body)) as unknown;
    return (Array.isArray(parsed) ? parsed : [parsed]).filter((m) => isJSONRPCRequest(m)).map((m) => m.id);
  } catch {
    return [];
  }
}
