/**
 * Deliberately broken MCP servers, each breaking one rule of the catalogue, written with the raw
 * SDK (the Elicitkit server library would refuse to let most of these bugs happen). Served over
 * HTTP in-process so doctor can reach them like any remote server.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createHttpHandler } from '@elicitkit/server';
import { toNodeHandler } from '@modelcontextprotocol/node';
import { type CallToolResult, McpServer, type ServerContext } from '@modelcontextprotocol/server';
import * as z from 'zod/v4';

type Ask = { action: string; content?: Record<string, unknown> | undefined };

const text = (t: string, isError = false): CallToolResult => ({
  content: [{ type: 'text', text: t }],
  ...(isError ? { isError } : {}),
});

function canAsk(server: McpServer, mode: 'form' | 'url'): boolean {
  const e = server.server.getClientCapabilities()?.elicitation as { form?: object; url?: object } | undefined;
  return mode === 'form' ? e?.form !== undefined : e?.url !== undefined;
}

async function ask(ctx: ServerContext, params: Record<string, unknown>): Promise<Ask> {
  try {
    return (await ctx.mcpReq.send({ method: 'elicitation/create', params }, { timeout: 5_000 })) as Ask;
  } catch (error) {
    return { action: 'error', content: { message: error instanceof Error ? error.message : String(error) } };
  }
}

/** The well-behaved ending: success only for an accept that carried values. */
const finish = (r: Ask): CallToolResult =>
  r.action === 'accept' && r.content && Object.keys(r.content).length > 0
    ? text(`done: ${JSON.stringify(r.content)}`)
    : text(`not done (${r.action})`, true);

const good = {
  type: 'object',
  properties: {
    env: {
      type: 'string',
      title: 'Environment',
      oneOf: [
        { const: 'dev', title: 'Development' },
        { const: 'prod', title: 'Production' },
      ],
    },
  },
  required: ['env'],
};
const message = 'Which environment should order-service be deployed to?';

/** One tool per broken server; everything else about it is well behaved. */
const TOOLS: Record<string, (server: McpServer) => (args: unknown, ctx: ServerContext) => Promise<CallToolResult>> = {
  EK01: (server) => async (_a, ctx) => {
    if (!canAsk(server, 'form')) return text('Pass env (dev or prod).', true);
    // Bug: never checks the url capability.
    const r = await ask(ctx, {
      mode: 'url',
      message: 'Sign in to the deployment console to continue.',
      url: 'https://console.example.com/login',
      elicitationId: crypto.randomUUID(),
    });
    return text(`sign-in ${r.action}`, r.action !== 'accept');
  },
  EK02: (server) => async (_a, ctx) => {
    if (!canAsk(server, 'form')) return text('Nothing to ask.', true);
    const r = await ask(ctx, {
      mode: 'form',
      message: 'Please confirm that you want to continue with the release.',
      requestedSchema: { type: 'object', properties: {} },
    });
    return finish(r);
  },
  EK03: (server) => async (_a, ctx) => {
    if (!canAsk(server, 'form')) return text('Pass the address.', true);
    const r = await ask(ctx, {
      mode: 'form',
      message: 'Where should the invoice for order 42 be sent?',
      requestedSchema: {
        type: 'object',
        properties: { address: { type: 'object', title: 'Address', properties: { city: { type: 'string' } } } },
      },
    });
    return text(r.action, true);
  },
  EK04: (server) => async (_a, ctx) => {
    if (!canAsk(server, 'form')) return text('Pass env.', true);
    const r = await ask(ctx, { mode: 'form', message, requestedSchema: good });
    if (r.action !== 'accept')
      return text(`The user ${r.action === 'cancel' ? 'cancelled' : 'declined'}; nothing done.`, true);
    // Bug: no check that the answer carries a value.
    return text(`Deployed to ${String(r.content?.env ?? 'dev')}.`);
  },
  EK05: (server) => async (_a, ctx) => {
    if (!canAsk(server, 'form')) return text('Pass env.', true);
    const r = await ask(ctx, { mode: 'form', message, requestedSchema: good });
    if (r.action === 'decline') return text('The user declined; nothing deployed.', true);
    // Bug: a cancel falls back to a default and deploys anyway.
    return text(`Deployed to ${String(r.content?.env ?? 'staging')}.`);
  },
  EK06: (server) => async (_a, ctx) => {
    if (!canAsk(server, 'form')) return text('Pass confirmed.', true);
    const r = await ask(ctx, {
      mode: 'form',
      message: 'Deploy order-service to production now?',
      requestedSchema: {
        type: 'object',
        properties: {
          confirmed: { type: 'boolean', title: 'I confirm the production release', default: true },
          ticket: { type: 'string', title: 'Release ticket' },
        },
        required: ['ticket'],
      },
    });
    return finish(r);
  },
  EK09: (server) => async (_a, ctx) => {
    if (!canAsk(server, 'form')) return text('Pass credentials.', true);
    const r = await ask(ctx, {
      mode: 'form',
      message: 'Sign in to the deployment console to continue.',
      requestedSchema: {
        type: 'object',
        properties: {
          username: { type: 'string', title: 'Username' },
          password: { type: 'string', title: 'Password' },
        },
        required: ['username', 'password'],
      },
    });
    return finish(r);
  },
  EK10: (server) => async (_a, ctx) => {
    if (!canAsk(server, 'form')) return text('Pass confirmed.', true);
    const r = await ask(ctx, {
      mode: 'form',
      message: 'This will DROP TABLE orders and cannot be undone. Continue?',
      requestedSchema: {
        type: 'object',
        properties: { confirmed: { type: 'boolean', title: 'I understand', default: false } },
      },
    });
    return finish(r);
  },
  EK11: (server) => async (_a, ctx) => {
    if (!canAsk(server, 'form')) return text('Pass env.', true);
    const r = await ask(ctx, { mode: 'form', message: 'env_id?', requestedSchema: good });
    return finish(r);
  },
  EK12: (server) => async (_a, ctx) => {
    if (!canAsk(server, 'form')) return text('Pass env.', true);
    let r = await ask(ctx, { mode: 'form', message, requestedSchema: good });
    // Bug: nags after a decline.
    if (r.action === 'decline')
      r = await ask(ctx, { mode: 'form', message: `${message} Please, we really need it.`, requestedSchema: good });
    return finish(r);
  },
  'EK13-crash': () => async (_a, ctx) => {
    // Bug: no capability check; the SDK's own check throws.
    const r = await ctx.mcpReq.elicitInput({ mode: 'form', message, requestedSchema: good as never });
    return finish(r);
  },
  'EK13-hang': (server) => async (_a, ctx) => {
    if (!canAsk(server, 'form')) await new Promise(() => {}); // Bug: waits for an answer that cannot come.
    const r = await ask(ctx, { mode: 'form', message, requestedSchema: good });
    return finish(r);
  },
  EK14: (server) => async (_a, ctx) => {
    if (!canAsk(server, 'url')) return text('Open the console yourself.', true);
    const r = await ask(ctx, {
      mode: 'url',
      message: 'Connect your billing account on the provider page.',
      url: 'https://billing.example.com/connect?access_token=s3cr3t',
      elicitationId: crypto.randomUUID(),
    });
    return finish(r);
  },
  EK15: (server) => async (_a, ctx) => {
    if (!canAsk(server, 'form')) return text('Pass replicas.', true);
    const r = await ask(ctx, {
      mode: 'form',
      message: 'How many replicas should order-service run in production?',
      requestedSchema: {
        type: 'object',
        properties: { replicas: { type: 'integer', title: 'Replicas', minimum: 1, maximum: 5, default: 9 } },
      },
    });
    return finish(r);
  },
  'EK08-three': (server) => async (_a, ctx) => {
    if (!canAsk(server, 'form')) return text('Pass env.', true);
    for (let i = 1; i <= 3; i++) {
      const r = await ask(ctx, { mode: 'form', message: `${message} (question ${i} of 3)`, requestedSchema: good });
      if (r.action !== 'accept' || !r.content?.env) return text(`${r.action}; nothing deployed.`, true);
    }
    return text('Deployed.');
  },
  'EK08-four': (server) => async (_a, ctx) => {
    if (!canAsk(server, 'form')) return text('Pass env.', true);
    for (let i = 1; i <= 4; i++) {
      const r = await ask(ctx, { mode: 'form', message: `${message} (question ${i} of 4)`, requestedSchema: good });
      if (r.action !== 'accept' || !r.content?.env) return text(`${r.action}; nothing deployed.`, true);
    }
    return text('Deployed.');
  },
};

export const BROKEN = Object.keys(TOOLS);

export function brokenServer(bug: string): McpServer {
  const server = new McpServer({ name: `broken-${bug}`, version: '1.0.0' }, { capabilities: { tools: {} } });
  const make = TOOLS[bug];
  if (!make) throw new Error(`no broken server ${bug}`);
  server.registerTool(
    `deploy_${bug.toLowerCase().replace(/-/g, '_')}`,
    { description: `Broken on purpose: ${bug}`, inputSchema: z.object({}) },
    make(server) as never,
  );
  return server;
}

/** Serves any server factory over HTTP on a loopback port. */
export async function host(factory: () => McpServer): Promise<{ url: string; close(): Promise<void> }> {
  const handler = createHttpHandler(() => factory());
  const node = toNodeHandler(handler);
  const http = createServer((req, res) => void node(req as never, res));
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`,
    async close() {
      await handler.close();
      http.closeAllConnections();
      http.close();
    },
  };
}
