// The anchor for sequential HTTP: deploy_service written with raw SDK calls, served the way the
// SDK's examples serve 2025 clients (a sessionful transport per session on node:http), doing the
// same work as opsdesk's: bearer token looked up by hash, the service checked, the environment
// asked with the same form, the answer checked with zod, a deployments row written (WAL, NORMAL).
// Usage: node raw-http-server.mjs <opsdesk data dir>; prints "serving <url>".
import { createHash } from 'node:crypto';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { toNodeHandler } from '@modelcontextprotocol/node';
import { isInitializeRequest, McpServer, WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/server';
import BetterSqlite3 from 'better-sqlite3';
import * as z from 'zod/v4';

const db = new BetterSqlite3(join(process.argv[2], 'opsdesk.db'));
db.pragma('journal_mode = WAL');
db.pragma('synchronous = NORMAL');
const tokenUser = db
  .prepare('SELECT u.username FROM api_tokens t JOIN users u ON u.id = t.user_id WHERE t.token_hash = ?')
  .pluck();
const service = db.prepare('SELECT name FROM services WHERE name = ?').pluck();
const insert = db.prepare(
  'INSERT INTO deployments (service, env, version, ticket, deployed_by, created_at) VALUES (?, ?, ?, NULL, ?, ?)',
);
const ENVS = ['dev', 'staging', 'prod'];
const requestedSchema = {
  type: 'object',
  properties: {
    env: { type: 'string', title: 'Environment', oneOf: ENVS.map((e) => ({ const: e, title: e })) },
  },
  required: ['env'],
};
const answerSchema = z.object({ env: z.enum(ENVS) });

function makeServer(user) {
  const server = new McpServer({ name: 'raw', version: '1' }, { capabilities: { tools: {} } });
  server.registerTool(
    'deploy_service',
    {
      description: 'Deploy a service',
      inputSchema: z.object({ service: z.string().min(1), env: z.enum(ENVS).optional() }),
    },
    async (args, ctx) => {
      if (!service.get(args.service)) return { content: [{ type: 'text', text: 'no such service' }], isError: true };
      const result = await ctx.mcpReq.elicitInput(
        { mode: 'form', message: `Which environment should ${args.service} be deployed to?`, requestedSchema },
        { timeout: 600_000 },
      );
      if (result.action !== 'accept') return { content: [{ type: 'text', text: result.action }] };
      const parsed = answerSchema.safeParse(result.content);
      if (!parsed.success) return { content: [{ type: 'text', text: 'invalid' }], isError: true };
      const id = insert.run(args.service, parsed.data.env, '1.0.0', user, new Date().toISOString()).lastInsertRowid;
      return {
        content: [{ type: 'text', text: `Deployed ${args.service} to ${parsed.data.env} (#${id}).` }],
        structuredContent: { status: 'done' },
      };
    },
  );
  return server;
}

const sessions = new Map();
const handler = {
  async fetch(request) {
    const token = /^Bearer (\S+)$/.exec(request.headers.get('authorization') ?? '')?.[1];
    const user = token && tokenUser.get(createHash('sha256').update(token).digest('hex'));
    if (!user) return new Response('unauthorized', { status: 401 });
    const id = request.headers.get('mcp-session-id');
    if (id) {
      const transport = sessions.get(id);
      if (!transport) return new Response('no session', { status: 404 });
      return transport.handleRequest(request);
    }
    const body = await request.json();
    if (!isInitializeRequest(body)) return new Response('session required', { status: 400 });
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => crypto.randomUUID(),
      onsessioninitialized: (sid) => sessions.set(sid, transport),
    });
    transport.onclose = () => sessions.delete(transport.sessionId);
    await makeServer(user).connect(transport);
    return transport.handleRequest(request, { parsedBody: body });
  },
};
const node = toNodeHandler(handler);
const http = createServer((req, res) => void node(req, res));
http.listen(0, '127.0.0.1', () => console.log(`serving http://127.0.0.1:${http.address().port}/mcp`));
process.on('SIGTERM', () => {
  http.closeAllConnections();
  http.close(() => process.exit(0));
});
