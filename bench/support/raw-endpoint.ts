/**
 * The raw SDK serving what `createHttpHandler` serves, composed as the SDK's docs compose it: the
 * Host and Origin checks (DNS rebinding), a JSON POST's body read and parsed once, `isLegacyRequest`
 * deciding between a 2025 session (a transport per session, found by `mcp-session-id`) and
 * `createMcpHandler` for 2026-07-28. Unknown sessions get 404; no limits, no identities. The raw
 * side of `ask-overhead.ts`'s HTTP lines and of `open-questions.ts`.
 */
import {
  createMcpHandler,
  hostHeaderValidationResponse,
  isJsonContentType,
  isLegacyRequest,
  localhostAllowedHostnames,
  localhostAllowedOrigins,
  type McpServer,
  originValidationResponse,
  readRequestBody,
  WebStandardStreamableHTTPServerTransport,
} from '@modelcontextprotocol/server';

export interface RawEndpoint {
  fetch(request: Request): Promise<Response>;
  /** Closes every session (the raw SDK keeps one whose client left until its question's timeout). */
  close(): Promise<void>;
}

export function rawEndpoint(makeServer: () => McpServer): RawEndpoint {
  const modern = createMcpHandler(makeServer, { legacy: 'reject' });
  const sessions = new Map<string, WebStandardStreamableHTTPServerTransport>();
  const hosts = localhostAllowedHostnames();
  const origins = localhostAllowedOrigins();
  return {
    async fetch(request) {
      const refused = hostHeaderValidationResponse(request, hosts) ?? originValidationResponse(request, origins);
      if (refused) return refused;
      let parsedBody: unknown;
      if (request.method === 'POST') {
        if (!isJsonContentType(request.headers.get('content-type'))) return new Response(null, { status: 415 });
        const read = await readRequestBody(request);
        if (read.tooLarge) return new Response(null, { status: 413 });
        parsedBody = JSON.parse(read.text);
      }
      if (!(await isLegacyRequest(request, parsedBody))) return modern.fetch(request, { parsedBody });
      const id = request.headers.get('mcp-session-id');
      let transport = id ? sessions.get(id) : undefined;
      if (id && !transport) return new Response(null, { status: 404 });
      if (!transport) {
        const fresh = new WebStandardStreamableHTTPServerTransport({
          sessionIdGenerator: () => crypto.randomUUID(),
          onsessioninitialized: (sid) => void sessions.set(sid, fresh),
        });
        await makeServer().connect(fresh);
        transport = fresh;
      }
      return transport.handleRequest(request, { parsedBody });
    },
    async close() {
      const all = [...sessions.values()];
      sessions.clear();
      await Promise.all(all.map((t) => t.close()));
      await modern.close();
    },
  };
}
