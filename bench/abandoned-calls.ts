/**
 * What do abandoned calls leave behind? 50 legacy (2025-11-25) HTTP clients each call a tool that
 * asks, then their process exits with the questions open. The server runs here, on loopback; the
 * clients run in a child process, so this heap is the server's alone. Measured twice in one run:
 * the raw SDK (its sessionful Web-standard transport, `elicitInput`, the same 10-minute timeout)
 * and `createHttpHandler` + `ask()`. Run with the GC exposed:
 *
 *   node --expose-gc --import tsx bench/abandoned-calls.ts      # or: npm run bench:abandoned
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { field, form } from '@elicitkit/form';
import { serveHttp } from '@elicitkit/opsdesk';
import { type AuditEvent, createElicitkit, createHttpHandler, defineTool, done } from '@elicitkit/server';
import { toNodeHandler } from '@modelcontextprotocol/node';
import { isInitializeRequest, McpServer, WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/server';

const CALLS = Number(process.env.BENCH_CALLS ?? 50);
const SETTLE_MS = 5_000;
const WARMUPS = 2;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with node --expose-gc');

const envForm = form({
  env: field.select(
    [
      { value: 'dev', title: 'Development' },
      { value: 'prod', title: 'Production' },
    ],
    { title: 'Environment' },
  ),
});
const message = 'Which environment should order-service be deployed to?';

interface Endpoint {
  fetch(request: Request): Promise<Response>;
  /** Sessions and questions still held. */
  held(): string;
}

/** A running server to abandon calls on. */
interface Target {
  url: string;
  held(): string;
  /** For opsdesk: its tool and a bearer token. */
  client?: string[];
  close(): Promise<void>;
}

async function listen(endpoint: Endpoint): Promise<Target> {
  const node = toNodeHandler(endpoint);
  const server = createServer((req, res) => void node(req as Parameters<typeof node>[0], res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`,
    held: endpoint.held,
    async close() {
      server.closeAllConnections();
      server.close();
    },
  };
}

/** The SDK's own sessionful pattern (examples/server), with a tool that asks through elicitInput. */
function rawEndpoint(): Endpoint {
  const sessions = new Map<string, WebStandardStreamableHTTPServerTransport>();
  let open = 0;
  return {
    async fetch(request) {
      const id = request.headers.get('mcp-session-id');
      const existing = id ? sessions.get(id) : undefined;
      if (existing) return existing.handleRequest(request);
      const body = await request.json();
      if (!isInitializeRequest(body)) return new Response('no session', { status: 400 });
      const server = new McpServer({ name: 'raw', version: '1' }, { capabilities: { tools: {} } });
      server.registerTool('deploy', { description: 'deploy' }, async (ctx) => {
        open++;
        try {
          const r = await ctx.mcpReq.elicitInput(
            { mode: 'form', message, requestedSchema: envForm.schema },
            { timeout: 600_000 },
          );
          return { content: [{ type: 'text', text: r.action }] };
        } finally {
          open--;
        }
      });
      const transport = new WebStandardStreamableHTTPServerTransport({
        sessionIdGenerator: () => crypto.randomUUID(),
        onsessioninitialized: (sid) => void sessions.set(sid, transport),
        onsessionclosed: (sid) => void sessions.delete(sid),
      });
      await server.connect(transport);
      return transport.handleRequest(request, { parsedBody: body });
    },
    held: () => `${sessions.size} sessions, ${open} open questions`,
  };
}

function kitEndpoint(): Endpoint {
  const ended: Record<string, number> = {};
  const kit = createElicitkit({
    audit: (e: AuditEvent) => {
      if (e.type === 'response') ended[e.reason ?? e.action] = (ended[e.reason ?? e.action] ?? 0) + 1;
    },
  });
  const tool = defineTool({
    name: 'deploy',
    description: 'deploy',
    forms: { env: envForm },
    async run(_args, { ask }) {
      const answer = await ask('env', { message });
      if (answer.action !== 'accept') return answer.result();
      return done(`Deployed to ${answer.value.env}`);
    },
  });
  const handler = createHttpHandler(() => kit.createServer({ name: 'kit', version: '1' }, [tool]));
  return {
    fetch: (request) => handler.fetch(request),
    held: () => `${handler.sessionCount()} sessions; questions ended as ${JSON.stringify(ended)}`,
  };
}

async function abandon(url: string, client: string[] = []): Promise<void> {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', fileURLToPath(new URL('./abandon-client.ts', import.meta.url)), url, String(CALLS), ...client],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  await new Promise<void>((resolve, reject) => {
    child.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`clients exited with ${code}`))));
  });
}

async function heap(): Promise<number> {
  for (let i = 0; i < 3; i++) {
    gc?.();
    await new Promise((r) => setImmediate(r));
  }
  return process.memoryUsage().heapUsed;
}

/** Median growth of the heap per round of CALLS abandoned calls, each measured 5 s after the clients left. */
async function measure(name: string, target: Target): Promise<number> {
  const { url } = target;
  // Warm-up: code paths compiled, caches and pools filled.
  for (let i = 0; i < WARMUPS; i++) await abandon(url, target.client);
  await new Promise((r) => setTimeout(r, SETTLE_MS));
  let previous = await heap();
  const growth: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    await abandon(url, target.client);
    await new Promise((r) => setTimeout(r, SETTLE_MS));
    const now = await heap();
    growth.push((now - previous) / 1024 / 1024);
    previous = now;
  }
  const mb = [...growth].sort((a, b) => a - b)[Math.floor(growth.length / 2)] ?? 0;
  console.log(
    `${name.padEnd(8)}: ${mb.toFixed(2)} MB retained per ${CALLS} abandoned calls after ${SETTLE_MS / 1000} s (median of ${ROUNDS} rounds: ${growth.map((g) => g.toFixed(2)).join(', ')}; ${target.held()})`,
  );
  await target.close();
  return mb;
}

/** opsdesk itself (six tools, SQLite audit), as `elicitkit serve --http` runs it, on a throw-away data directory. */
async function opsdesk(): Promise<Target> {
  const dataDir = mkdtempSync(join(tmpdir(), 'bench-opsdesk-'));
  const serving = await serveHttp({ dataDir, locale: 'en', port: 0 });
  return {
    url: serving.url,
    held: () => `${serving.sessions()} sessions`,
    client: ['deploy_service', serving.newTokens[0]?.token ?? ''],
    async close() {
      await serving.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

const raw = await measure('raw SDK', await listen(rawEndpoint()));
const ours = await measure('ask()', await listen(kitEndpoint()));
await measure('opsdesk', await opsdesk());
console.log(`retained: ask() ${ours.toFixed(2)} MB vs raw SDK ${raw.toFixed(2)} MB (ratio ${(ours / raw).toFixed(3)})`);
process.exit(0);
