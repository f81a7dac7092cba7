import {
  isJSONRPCErrorResponse,
  isJSONRPCRequest,
  isJSONRPCResultResponse,
  isLegacyRequest,
  PROTOCOL_VERSION_META_KEY,
  SUPPORTED_PROTOCOL_VERSIONS,
} from '@modelcontextprotocol/server';

/** The `initialize` (2025) revisions: a header naming one of them never makes a request modern. */
const LEGACY_HEADER_VERSIONS: ReadonlySet<string> = new Set(SUPPORTED_PROTOCOL_VERSIONS);

/**
 * Whether a parsed JSON POST goes to the 2025 (sessionful) leg: the SDK's `isLegacyRequest`, with
 * its answer worked out first for the two shapes every 2025 call sends — a request without an
 * envelope claim, and a posted response (an answer to a question). The SDK tests every body against
 * both response schemas before the request schema, and a failed zod parse builds its issues: most of
 * what routing a tool call cost. Anything else goes to the SDK as it is.
 */
export async function routesToLegacy(request: Request, body: unknown): Promise<boolean> {
  return legacyByShape(body, request.headers.get('mcp-protocol-version')) ?? isLegacyRequest(request, body);
}

/**
 * The SDK's classification (`classifyInboundRequest`) for a plain JSON-RPC object, where its shape
 * settles it, or undefined. Its rules, in its order:
 * - a result or error response is legacy. Both response schemas are strict (no `method`) and require
 *   `result` / `error`, so a body with `result` can only pass the first, one with `error` the second;
 * - a request that is not a response (it has a `method`) is legacy when it carries no envelope claim
 *   (`_meta[PROTOCOL_VERSION_META_KEY]`) and no header names a modern revision; with a claim, or
 *   with any other header value, the SDK decides.
 * `route.test.ts` checks each answer against `isLegacyRequest` itself.
 */
export function legacyByShape(body: unknown, versionHeader: string | null): boolean | undefined {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return undefined;
  if (!Object.hasOwn(body, 'method')) {
    if (Object.hasOwn(body, 'result')) return isJSONRPCResultResponse(body);
    if (Object.hasOwn(body, 'error')) return isJSONRPCErrorResponse(body);
    return undefined;
  }
  if (versionHeader !== null && !LEGACY_HEADER_VERSIONS.has(versionHeader)) return undefined;
  if (!isJSONRPCRequest(body)) return undefined;
  const params = (body as { params?: unknown }).params;
  const meta = isPlainObject(params) ? params._meta : undefined;
  if (isPlainObject(meta) && PROTOCOL_VERSION_META_KEY in meta) return undefined;
  return true;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
