/** The JSON-RPC messages of a Streamable HTTP (SSE) response, one at a time; undefined once it ends. */
export function sseMessages(response: Response): { next(): Promise<Record<string, unknown> | undefined> } {
  const reader = (response.body ?? new ReadableStream<Uint8Array>()).getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  return {
    async next() {
      for (;;) {
        const end = buffer.indexOf('\n\n');
        if (end >= 0) {
          const event = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const data = event
            .split('\n')
            .filter((l) => l.startsWith('data:'))
            .map((l) => l.slice(5).trim())
            .join('');
          if (data) return JSON.parse(data);
          continue;
        }
        const { done, value } = await reader.read();
        if (done) return undefined;
        buffer += decoder.decode(value, { stream: true });
      }
    },
  };
}

/** A 2025-11-25 session opened by hand on a Streamable HTTP endpoint, for sending raw JSON-RPC. */
export async function legacySession(url: string, headers: Record<string, string> = {}) {
  const base = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers };
  const init = await fetch(url, {
    method: 'POST',
    headers: base,
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: {
        protocolVersion: '2025-11-25',
        capabilities: { elicitation: { form: {}, url: {} } },
        clientInfo: { name: 'raw', version: '1' },
      },
    }),
  });
  await init.text();
  const session = {
    ...base,
    'mcp-session-id': init.headers.get('mcp-session-id') ?? '',
    'mcp-protocol-version': '2025-11-25',
  };
  /** Posts a message (or a batch of them) on the session; `override` replaces some of its headers for this one. */
  const post = (
    message: Record<string, unknown> | Record<string, unknown>[],
    override: Record<string, string> = {},
    signal?: AbortSignal,
  ) =>
    fetch(url, {
      method: 'POST',
      headers: { ...session, ...override },
      body: JSON.stringify(
        Array.isArray(message) ? message.map((m) => ({ jsonrpc: '2.0', ...m })) : { jsonrpc: '2.0', ...message },
      ),
      ...(signal ? { signal } : {}),
    });
  const initialized = await post({ method: 'notifications/initialized' });
  if (initialized.status !== 202) throw new Error(`notifications/initialized: HTTP ${initialized.status}`);
  return { post, sessionId: session['mcp-session-id'] };
}
