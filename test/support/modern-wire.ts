/**
 * 2026-07-28 `tools/call` rounds as raw HTTP JSON-RPC, the way an attacker replays them: the exact
 * bytes of each response are kept, so replays can be compared byte for byte. The envelope and
 * headers are the ones the SDK client sends.
 */
export interface WireRound {
  status: number;
  /** The response body as sent. */
  body: string;
  /** The parsed JSON-RPC `result` (or undefined for an error). */
  result: Record<string, unknown> | undefined;
  error: { code: number; message: string } | undefined;
}

export interface RoundParams {
  name: string;
  arguments: Record<string, unknown>;
  inputResponses?: Record<string, unknown>;
  requestState?: string;
}

export const ENVELOPE = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientInfo': { name: 'raw-wire', version: '1' },
  'io.modelcontextprotocol/clientCapabilities': { elicitation: { form: {}, url: {} } },
};

export async function wireRound(
  url: string,
  params: RoundParams,
  options: { id?: number | string; headers?: Record<string, string> } = {},
): Promise<WireRound> {
  const response = await fetch(url, {
    method: 'POST',
    headers: {
      accept: 'application/json, text/event-stream',
      'content-type': 'application/json',
      'mcp-method': 'tools/call',
      'mcp-name': params.name,
      'mcp-protocol-version': '2026-07-28',
      ...options.headers,
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: options.id ?? 1,
      method: 'tools/call',
      params: { ...params, _meta: ENVELOPE },
    }),
  });
  const body = await response.text();
  let parsed: { result?: Record<string, unknown>; error?: { code: number; message: string } } = {};
  try {
    parsed = JSON.parse(body);
  } catch {
    // Not JSON: the status says what happened.
  }
  return { status: response.status, body, result: parsed.result, error: parsed.error };
}

/** The requestState and the keys of what an `input_required` round asks for. */
export function pendingOf(round: WireRound): { requestState: string; asks: string[] } {
  const result = round.result ?? {};
  if (result.resultType !== 'input_required') throw new Error(`expected input_required, got ${round.body}`);
  return {
    requestState: String(result.requestState),
    asks: Object.keys((result.inputRequests as Record<string, unknown> | undefined) ?? {}),
  };
}

/** An answer to a form question, as `inputResponses` carries it. */
export const accept = (content: Record<string, unknown>) => ({ action: 'accept', content });
