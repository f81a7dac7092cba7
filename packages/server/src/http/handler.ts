import {
  type AuthInfo,
  createMcpHandler,
  hostHeaderValidationResponse,
  isInitializeRequest,
  isLegacyRequest,
  localhostAllowedHostnames,
  localhostAllowedOrigins,
  type McpServer,
  originValidationResponse,
  PARSE_ERROR,
  WebStandardStreamableHTTPServerTransport,
} from '@modelcontextprotocol/server';

export type Era = 'legacy' | 'modern';

/** Server-defined JSON-RPC codes the SDK's own sessionful examples answer with. */
const SESSION_NOT_FOUND = -32_001;
const SESSION_REQUIRED = -32_000;

export interface HttpHandlerOptions {
  /**
   * Who is calling. Return the validated `AuthInfo`, or a `Response` (usually 401) to refuse.
   * Omit for an unauthenticated endpoint.
   */
  authenticate?: (request: Request) => AuthInfo | Response | Promise<AuthInfo | Response>;
  /** Host header allowlist (DNS-rebinding protection). Default: localhost names. */
  allowedHosts?: string[];
  /** Origin allowlist for browser callers. Default: localhost origins. */
  allowedOrigins?: string[];
  /** 2025 sessions idle longer than this are closed. Default 30 minutes. */
  sessionIdleMs?: number;
  /** Upper bound on open 2025 sessions; the oldest idle one is closed past it. Default 200. */
  maxSessions?: number;
  onerror?: (error: Error) => void;
  now?: () => number;
}

/** A Web-standard endpoint serving every revision on one URL. */
export interface HttpHandler {
  fetch(request: Request): Promise<Response>;
  /** Open 2025 sessions. */
  sessionCount(): number;
  /** Closes every session and the modern leg. */
  close(): Promise<void>;
}

interface Session {
  transport: WebStandardStreamableHTTPServerTransport;
  server: McpServer;
  owner: string;
  seen: number;
}

/**
 * One `/mcp` endpoint for every client: 2026-07-28 requests are served statelessly (a fresh server
 * per request, answers in the sealed `requestState`), 2025 clients get a real session (so the
 * server can push `elicitation/create` to them), routed by the SDK's own `isLegacyRequest`. Each
 * session is bound to the identity that opened it.
 *
 * @example
 * const http = createHttpHandler((era, auth) => kit.createServer(info, tools), { authenticate });
 * createServer(toNodeHandler(http)).listen(7777, '127.0.0.1');
 */
export function createHttpHandler(
  factory: (era: Era, auth: AuthInfo | undefined) => McpServer,
  options: HttpHandlerOptions = {},
): HttpHandler {
  const hosts = options.allowedHosts ?? localhostAllowedHostnames();
  const origins = options.allowedOrigins ?? localhostAllowedOrigins();
  const now = options.now ?? Date.now;
  const idleMs = options.sessionIdleMs ?? 30 * 60_000;
  const maxSessions = options.maxSessions ?? 200;
  const sessions = new Map<string, Session>();
  const modern = createMcpHandler((ctx) => factory('modern', ctx.authInfo), {
    legacy: 'reject',
    ...(options.onerror ? { onerror: options.onerror } : {}),
  });

  const closeSession = async (id: string) => {
    const session = sessions.get(id);
    if (!session) return;
    sessions.delete(id);
    await session.transport.close().catch(() => {});
    await session.server.close().catch(() => {});
  };

  const sweep = async () => {
    const cutoff = now() - idleMs;
    for (const [id, s] of sessions) if (s.seen < cutoff) await closeSession(id);
    while (sessions.size >= maxSessions) {
      const oldest = [...sessions.entries()].sort((a, b) => a[1].seen - b[1].seen)[0];
      if (!oldest) break;
      await closeSession(oldest[0]);
    }
  };

  async function legacy(request: Request, auth: AuthInfo | undefined): Promise<Response> {
    const owner = ownerOf(auth);
    const id = request.headers.get('mcp-session-id');
    if (id) {
      const session = sessions.get(id);
      // Another identity's session is reported as unknown: its existence is not revealed.
      if (!session || session.owner !== owner) return jsonRpcError(404, SESSION_NOT_FOUND, 'Session not found');
      session.seen = now();
      const response = await session.transport.handleRequest(request, auth ? { authInfo: auth } : {});
      if (request.method === 'DELETE') await closeSession(id);
      return response;
    }
    if (request.method !== 'POST')
      return jsonRpcError(400, SESSION_REQUIRED, 'Bad Request: Mcp-Session-Id header required');
    let body: unknown;
    try {
      body = await request.clone().json();
    } catch {
      return jsonRpcError(400, PARSE_ERROR, 'Parse error');
    }
    if (!isInitializeRequest(body))
      return jsonRpcError(400, SESSION_REQUIRED, 'Bad Request: Mcp-Session-Id header required');
    await sweep();
    const server = factory('legacy', auth);
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => crypto.randomUUID(),
      onsessioninitialized: (sid) => {
        sessions.set(sid, { transport, server, owner, seen: now() });
      },
      onsessionclosed: (sid) => {
        sessions.delete(sid);
      },
    });
    await server.connect(transport);
    return transport.handleRequest(request, { parsedBody: body, ...(auth ? { authInfo: auth } : {}) });
  }

  return {
    async fetch(request) {
      const refused = hostHeaderValidationResponse(request, hosts) ?? originValidationResponse(request, origins);
      if (refused) return refused;
      let auth: AuthInfo | undefined;
      if (options.authenticate) {
        const verdict = await options.authenticate(request);
        if (verdict instanceof Response) return verdict;
        auth = verdict;
      }
      if (await isLegacyRequest(request)) return legacy(request, auth);
      return modern.fetch(request, auth ? { authInfo: auth } : {});
    },
    sessionCount: () => sessions.size,
    async close() {
      await Promise.all([...sessions.keys()].map(closeSession));
      await modern.close();
    },
  };
}

function ownerOf(auth: AuthInfo | undefined): string {
  return auth ? `${auth.clientId}\0${auth.token}` : '';
}

function jsonRpcError(status: number, code: number, message: string): Response {
  return new Response(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }), {
    status,
    headers: { 'content-type': 'application/json' },
  });
}
