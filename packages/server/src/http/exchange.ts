/**
 * How one HTTP exchange reaches `createHttpHandler`'s core: through its Web `fetch` face, or
 * through Node's (`node-listener.ts`), which reads the body straight from the socket and writes the
 * response itself. No Node-only import here: the main entry reaches this file.
 */

/** A POST body over the limit the SDK's transports keep (413). */
export const TOO_LARGE = Symbol('body too large');
/** A POST body that is empty or not JSON: the transport answers it, from the request's own text. */
export const INVALID = Symbol('invalid JSON');

/** A JSON POST's body, read and parsed once: with the request to hand on (holding the text when INVALID). */
export type ReadBody = typeof TOO_LARGE | { request: Request; body: unknown };

export interface Exchange {
  /** Reads and parses the POST body of `request` (once, bounded). */
  read(request: Request): Promise<ReadBody>;
  /**
   * Follows a streamed response to its end: `onEnd(true)` once if the client dropped it first,
   * `onEnd(false)` once when it ended. Returns the response to send.
   */
  follow(response: Response, request: Request, onEnd: (dropped: boolean) => void): Response;
}

/** The core of a handler made by `createHttpHandler`, for its Node listener (not public API). */
export const SERVE_EXCHANGE = Symbol('elicitkit http exchange');

export type ServeExchange = (request: Request, exchange: Exchange) => Promise<Response>;

/**
 * A request that can tell its client went away without a signal of its own (the Node listener's:
 * its signal is made only when read, and an `AbortSignal` is most of a kilobyte). `fn` runs once
 * when the client has gone (at once if it already has).
 */
export const WHEN_GONE = Symbol('elicitkit request gone');

/**
 * Set on a request that a session with an event store serves: its response stream may drop and
 * be resumed with Last-Event-ID on any revision (2025-06-18's too, which the SDK hands no
 * `closeSSE`), so a call it carries ends with its session, not its stream.
 */
export const RESUMABLE = Symbol('elicitkit request resumable');

/** Marks `request` as carried by a session whose streams can be resumed (`RESUMABLE`). */
export function markResumable(request: Request): void {
  Object.defineProperty(request, RESUMABLE, { value: true });
}

/**
 * Set on a request a relay runs for another replica (`markRelayed`). Its signal aborting ends the
 * calls it carries even where the session keeps its events: the requesting replica gave up on the
 * relay and may have told its client the calls failed, so none may go on to act on a later answer.
 * Only an abort with `STREAM_ONLY` (the client went away from the requester, told nothing) leaves
 * them to be picked up again with Last-Event-ID.
 */
export const RELAYED = Symbol('elicitkit request relayed');

/** The reason a relayed request's signal aborts with when only its stream ends (see `RELAYED`). */
export const STREAM_ONLY = Symbol('elicitkit stream only');

/** Marks `request` as run for another replica (`RELAYED`). */
export function markRelayed(request: Request): void {
  Object.defineProperty(request, RELAYED, { value: true });
}

export interface TellsGone {
  [WHEN_GONE](fn: () => void): void;
}
