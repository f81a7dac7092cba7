import type { Revision } from '@elicitkit/form';
import {
  CLIENT_CAPABILITIES_META_KEY,
  type ClientCapabilities,
  PROTOCOL_VERSION_META_KEY,
  type Server,
  type ServerContext,
} from '@modelcontextprotocol/server';

/** What this tool call's client can do, whatever the revision. */
export interface Peer {
  /** `modern` serves 2026-07-28 statelessly (input_required); `legacy` pushes elicitation/create. */
  era: 'modern' | 'legacy';
  /** The negotiated protocol revision, as the client named it. */
  revision: string;
  form: boolean;
  url: boolean;
}

/** True for revisions whose form schema is the 2025-06-18 one (no SEP-1330 enums, booleans-only defaults). */
export function needsDowngrade(revision: string): boolean {
  return revision < '2025-11-25';
}

/** The revision in the terms `@elicitkit/form` uses for downgrades. */
export function formRevision(revision: string): Revision {
  if (revision >= '2026-07-28') return '2026-07-28';
  return needsDowngrade(revision) ? '2025-06-18' : '2025-11-25';
}

/**
 * Reads the client's elicitation capability per mode. On 2026-07-28 it travels in each request's
 * `_meta` envelope; on 2025 connections it was declared at `initialize` (a bare `elicitation: {}`
 * means form only). A stateless 2025 HTTP request never saw `initialize`: no capability at all.
 */
export function peerOf(ctx: ServerContext, server: Server): Peer {
  const envelope = ctx.mcpReq.envelope as Record<string, unknown> | undefined;
  const modernVersion = envelope?.[PROTOCOL_VERSION_META_KEY];
  if (typeof modernVersion === 'string') {
    const caps = envelope?.[CLIENT_CAPABILITIES_META_KEY] as ClientCapabilities | undefined;
    return { era: 'modern', revision: modernVersion, ...modes(caps) };
  }
  // Deprecated accessors, but the documented way to read 2025 connection state.
  const revision = server.getNegotiatedProtocolVersion() ?? '2025-03-26';
  return { era: 'legacy', revision, ...modes(server.getClientCapabilities()) };
}

function modes(caps: ClientCapabilities | undefined): { form: boolean; url: boolean } {
  const elicitation = caps?.elicitation as { form?: unknown; url?: unknown } | undefined;
  if (!elicitation || typeof elicitation !== 'object') return { form: false, url: false };
  const bare = elicitation.form === undefined && elicitation.url === undefined;
  return { form: bare || elicitation.form !== undefined, url: elicitation.url !== undefined };
}
