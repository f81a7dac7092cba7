import {
  isJSONRPCErrorResponse,
  isJSONRPCRequest,
  isLegacyRequest,
  JSONRPC_VERSION,
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
 *   `result` / `error`, so a body with `result` can only pass the first, one with `error` the second.
 *   A result response — the answer to a question, once per question — is checked by hand
 *   (`isResultResponse`, the SDK's schema rule for rule); an error response by the SDK;
 * - a request that is not a response (it has a `method`) is legacy when it carries no envelope claim
 *   (`_meta[PROTOCOL_VERSION_META_KEY]`) and no header names a modern revision; with a claim, or
 *   with any other header value, the SDK decides.
 * `route.test.ts` checks each answer against `isLegacyRequest` itself.
 */
export function legacyByShape(body: unknown, versionHeader: string | null): boolean | undefined {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return undefined;
  if (!Object.hasOwn(body, 'method')) {
    if (Object.hasOwn(body, 'result')) return isResultResponse(body as Record<string, unknown>);
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

/**
 * Whether a parsed JSON object passes the SDK's `JSONRPCResultResponseSchema` (what
 * `isJSONRPCResultResponse` asks zod): `jsonrpc` "2.0", an `id` that is a string or a safe integer,
 * a `result` that is an object whose `_meta`, if there, is an object too (what `_meta` holds is
 * loose: its `serverInfo` falls back when malformed), and no other key. Zod builds a copy of the
 * body to say yes — about 2 KB for an answer, a tenth of what routing it allocated. `route.test.ts`
 * holds it against `isJSONRPCResultResponse` itself, shape by shape.
 */
export function isResultResponse(body: Record<string, unknown>): boolean {
  for (const key of Object.keys(body)) if (key !== 'jsonrpc' && key !== 'id' && key !== 'result') return false;
  if (body.jsonrpc !== JSONRPC_VERSION) return false;
  const id = body.id;
  if (typeof id !== 'string' && !Number.isSafeInteger(id)) return false;
  const result = body.result;
  if (!isPlainObject(result)) return false;
  return result._meta === undefined || isPlainObject(result._meta);
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
