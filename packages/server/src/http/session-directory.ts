import type { AuthInfo } from '@modelcontextprotocol/server';

/**
 * Where a 2025 session lives when several replicas serve one endpoint. A 2025 session is an SDK
 * transport and server in one process's memory; with no sticky sessions its next request may
 * reach any replica. The handler tells the directory which sessions it opened and closed, and asks
 * it to forward a request for a session it does not hold (`createRedisRelay` in
 * `@elicitkit/server/redis` relays it to the holder and streams the answer back).
 *
 * @example
 * const relay = createRedisRelay(redis, { secret });
 * const http = createHttpHandler(factory, { sessions: relay });
 * await relay.serve(http);
 */
export interface SessionDirectory {
  /** A session opened here for `owner`; resolves once other replicas can find it (throws if they cannot). */
  opened(id: string, owner: string): Promise<void>;
  /** The session closed here. */
  closed(id: string): void;
  /**
   * The response of the replica holding session `id`, when another replica holds it for this same
   * `owner`; undefined when nobody does (the handler then answers "Session not found").
   * `body`: the request's body as the handler already read it (its bytes, for the holder); given,
   * the request's own body is not read.
   */
  forward(
    id: string,
    owner: string,
    request: Request,
    auth?: AuthInfo,
    body?: Uint8Array,
  ): Promise<Response | undefined>;
  /**
   * For a request this directory delivered from another replica: the identity that replica
   * authenticated it as (`auth` above), and whether a session's owner is the one the requester
   * checked it against. No credential travels with a relayed request, so the holder acts on these
   * instead of authenticating it again; undefined for any other request.
   */
  delivered?(request: Request): Delivered | undefined;
  /**
   * Called as the handler takes a request from its own client on a session it holds, before
   * serving it: a directory whose replicas may have given up on this one meanwhile (it was paused,
   * or cut off) drops first what it runs for them — an answer sent straight here by a person told
   * a relayed call failed must find that call ended.
   */
  serving?(id: string): void;
}

/** A relayed request's identity, as the replica that received (and authenticated) it vouches. */
export interface Delivered {
  auth: AuthInfo | undefined;
  /** Whether `owner` (a session's, as the handler keeps it) is the requester's. */
  owns(owner: string): Promise<boolean>;
}
