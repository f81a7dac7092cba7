import { type Revision, type RevisionTraits, revisionOf, traitsOf } from '@elicitkit/form';
import { type ClientInfo, type KnownClient, knownClientOf } from '@elicitkit/form/clients';
import {
  CLIENT_CAPABILITIES_META_KEY,
  CLIENT_INFO_META_KEY,
  type ClientCapabilities,
  PROTOCOL_VERSION_META_KEY,
  type Server,
  type ServerContext,
} from '@modelcontextprotocol/server';
import type { ToolContext } from './tool.js';

/** The client of one tool call, whatever its revision. */
export interface Peer {
  /** The protocol version as negotiated, as the client named it (the audit trail keeps it so). */
  protocolVersion: string;
  /** The revision whose rules apply to the questions (form shape, URL mode). */
  revision: Revision;
  /**
   * How a question reaches it: pushed as `elicitation/create` on its connection, or returned in an
   * `input_required` result. Decided by how the request arrived (a per-request `_meta` envelope
   * or a connection), which is what the SDK itself routes on.
   */
  asks: RevisionTraits['asks'];
  /** The elicitation modes it declared. */
  can: ToolContext['can'];
  /** The known client its `clientInfo` names (its quirks shape the forms it is sent), if any. */
  client: KnownClient | undefined;
}

/** Each 2025 connection's peer, with what it was read from. */
const connections = new WeakMap<
  Server,
  { negotiated: string; caps: ClientCapabilities | undefined; info: unknown; peer: Peer }
>();

/** 2026-07-28 peers by what their envelope said (`peerOf`). */
const envelopes = new Map<string, Peer>();
const ENVELOPES_KEPT = 256;
/** The last of them handed out, with the version and client name it was read for. */
let last: { version: string; name: string | undefined; peer: Peer } | undefined;

/**
 * Reads the client's elicitation capability per mode. On 2026-07-28 it travels in each request's
 * `_meta` envelope; on 2025 connections it was declared at `initialize` (a bare `elicitation: {}`
 * means form only). A stateless 2025 HTTP request never saw `initialize`: no capability at all.
 */
export function peerOf(ctx: ServerContext, server: Server): Peer {
  const envelope = ctx.mcpReq.envelope as Record<string, unknown> | undefined;
  const version = envelope?.[PROTOCOL_VERSION_META_KEY];
  if (typeof version === 'string') {
    const can = modes(envelope?.[CLIENT_CAPABILITIES_META_KEY] as ClientCapabilities | undefined);
    const name = infoOf(envelope?.[CLIENT_INFO_META_KEY])?.name;
    // The client of the previous request, compared field by field: most requests come from it,
    // and a key built and hashed per request cost more than the rest of this function.
    if (
      last !== undefined &&
      last.version === version &&
      last.name === name &&
      last.peer.can.form === can.form &&
      last.peer.can.url === can.url
    )
      return last.peer;
    // Each request names its client again; a handful of clients make every call, so the peer is
    // read once per version, client name and modes (frozen, as a 2025 connection's is).
    const key = `${can.form ? 'f' : '-'}${can.url ? 'u' : '-'}${version.length}:${version}${name === undefined ? '-' : `=${name}`}`;
    const known = envelopes.get(key);
    if (known) {
      last = { version, name, peer: known };
      return known;
    }
    const revision = revisionOf(version);
    const peer: Peer = Object.freeze({
      protocolVersion: version,
      revision,
      asks: 'input_required',
      can: Object.freeze(askable(can, revision)),
      client: knownClientOf(name === undefined ? undefined : { name }),
    });
    // Bounded by forgetting all at once: many clients only cost a lookup each again.
    if (envelopes.size >= ENVELOPES_KEPT) envelopes.clear();
    envelopes.set(key, peer);
    last = { version, name, peer };
    return peer;
  }
  // Deprecated accessors, but the documented way to read 2025 connection state.
  const negotiated = server.getNegotiatedProtocolVersion() ?? '2025-03-26';
  const caps = server.getClientCapabilities();
  const info = server.getClientVersion();
  // A connection's peer is the same for each of its calls until it is initialized again: it is
  // read once, and again only when what it was read from is no longer the same.
  const known = connections.get(server);
  if (known && known.negotiated === negotiated && known.caps === caps && known.info === info) return known.peer;
  const peer = pushedPeer(negotiated, modes(caps), infoOf(info)?.name);
  connections.set(server, { negotiated, caps, info, peer });
  return peer;
}

/** 2025 peers by version, modes and client name: connections of the same client share one. */
const pushed = new Map<string, Peer>();

function pushedPeer(negotiated: string, can: ToolContext['can'], name: string | undefined): Peer {
  const key = `${can.form ? 'f' : '-'}${can.url ? 'u' : '-'}${negotiated.length}:${negotiated}${name === undefined ? '-' : `=${name}`}`;
  const known = pushed.get(key);
  if (known) return known;
  // Frozen: every call of every connection it stands for is handed it (its `can` as `ctx.can`).
  const revision = revisionOf(negotiated);
  const peer: Peer = Object.freeze({
    protocolVersion: negotiated,
    revision,
    asks: 'push',
    can: Object.freeze(askable(can, revision)),
    client: knownClientOf(name === undefined ? undefined : { name }),
  });
  // Bounded by forgetting all at once, as the 2026-07-28 peers are.
  if (pushed.size >= ENVELOPES_KEPT) pushed.clear();
  pushed.set(key, peer);
  return peer;
}

/** `clientInfo` as the client sent it; anything without a string name names nobody. */
function infoOf(value: unknown): ClientInfo | undefined {
  const name = (value as { name?: unknown } | null | undefined)?.name;
  return typeof name === 'string' ? { name } : undefined;
}

/**
 * What the client can be asked on `revision`: the modes it declared that the revision has. A
 * revision without modes (2025-06-18) has no URL mode, whatever a client declares on it.
 */
function askable(can: ToolContext['can'], revision: Revision): ToolContext['can'] {
  return can.url && !traitsOf(revision).modes ? { form: can.form, url: false } : can;
}

function modes(caps: ClientCapabilities | undefined): ToolContext['can'] {
  const elicitation = caps?.elicitation as { form?: unknown; url?: unknown } | undefined;
  if (!elicitation || typeof elicitation !== 'object') return { form: false, url: false };
  const bare = elicitation.form === undefined && elicitation.url === undefined;
  return { form: bare || elicitation.form !== undefined, url: elicitation.url !== undefined };
}
