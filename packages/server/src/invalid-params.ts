import { INTERNAL_ERROR, INVALID_PARAMS, type JSONRPCMessage } from '@modelcontextprotocol/server';

/**
 * SDK gap (@modelcontextprotocol/server 2.x): a request to a spec method the SDK dispatches
 * itself — `initialize` on a session that has one, `tools/list` on every revision — whose params
 * fail that method's schema (`{ cursor: 5 }`) is answered -32603 Internal error, the schema's
 * issues as its message: the dispatcher throws a plain Error for it, where JSON-RPC has -32602
 * for invalid params, and the client is told the server failed. A server built by the kit answers
 * such a request -32602, naming each field and what was wrong with it: every message a kit
 * server's transport sends passes here (the seam, state-seam.ts); only an error response of that
 * one shape is changed. `src/http/hostile-wire.property.test.ts` ("SDK gap")
 * fails once the SDK answers -32602 itself, and this can go.
 *
 * Returns `message` with the SDK's -32603 for params its schema refused said as -32602; any other
 * unchanged.
 */
export function invalidParamsNamed(message: JSONRPCMessage): JSONRPCMessage {
  if (!('error' in message) || message.error.code !== INTERNAL_ERROR) return message;
  const issues = paramsIssues(message.error.message);
  if (issues === undefined) return message;
  return {
    jsonrpc: message.jsonrpc,
    id: message.id,
    error: { code: INVALID_PARAMS, message: `Invalid params: ${issues}` },
  };
}

/**
 * The issues the SDK's schema check put in `text` (zod's, as JSON: each with a path from
 * `params` and a message), one line each; undefined when `text` is anything else.
 */
function paramsIssues(text: string): string | undefined {
  if (!text.startsWith('[')) return undefined;
  let issues: unknown;
  try {
    issues = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!Array.isArray(issues) || issues.length === 0) return undefined;
  const lines: string[] = [];
  for (const issue of issues) {
    const { path, message } = (issue ?? {}) as { path?: unknown; message?: unknown };
    if (!Array.isArray(path) || path[0] !== 'params' || typeof message !== 'string') return undefined;
    lines.push(`${path.map(String).join('.')}: ${message}`);
  }
  return lines.join('; ');
}
