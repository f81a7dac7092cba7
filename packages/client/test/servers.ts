/**
 * Real SDK servers that ask, and real SDK clients connected to them, on both revisions: a linked
 * in-memory pair for 2025-11-25 (the tool pushes `elicitation/create` with `elicitInput`), and the
 * Web-standard HTTP handler called in-process for 2026-07-28 (the tool returns `inputRequired`
 * and reads the retried call's `inputResponses`). Nothing mocks the protocol.
 */
import type { Revision } from '@elicitkit/form';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import {
  createMcpHandler,
  InMemoryTransport,
  inputRequired,
  inputResponse,
  McpServer,
  ProtocolError,
} from '@modelcontextprotocol/server';
import * as z from 'zod/v4';
import { revisionOptions } from '../src/revision.js';

/** The revisions these servers speak: a push on 2025-11-25, `input_required` on 2026-07-28. */
export type ServedRevision = Extract<Revision, '2025-11-25' | '2026-07-28'>;
export const REVISIONS: ServedRevision[] = ['2025-11-25', '2026-07-28'];

export const SERVER_INFO = { name: 'test-server', version: '2.0.0', title: 'Test Server' };

/** How a test server names itself: its own to choose. */
export type ServerInfo = { name: string; version: string; title?: string };

/** What a tool asks: the params of `elicitation/create` (form or URL mode). */
export type Ask =
  | { mode?: 'form'; message: string; requestedSchema: unknown }
  | { mode: 'url'; message: string; url: string; elicitationId?: string };

/** What the server got back: the answer, or the JSON-RPC error the client answered with. */
export type Received =
  | { action: 'accept' | 'decline' | 'cancel'; content?: Record<string, unknown> }
  | { error: { code: number; message: string } };

function server(info: ServerInfo = SERVER_INFO): McpServer {
  const mcp = new McpServer(info);
  const args = z.object({ ask: z.string(), timeoutMs: z.number().optional() });
  // 2025-11-25: a real server→client request.
  mcp.registerTool(
    'ask_push',
    { description: 'Asks by pushing elicitation/create.', inputSchema: args },
    async (a, ctx) => {
      try {
        const params = JSON.parse(a.ask) as never;
        const result = await ctx.mcpReq.elicitInput(params, a.timeoutMs === undefined ? {} : { timeout: a.timeoutMs });
        return text(result);
      } catch (error) {
        if (error instanceof ProtocolError) return text({ error: { code: error.code, message: error.message } });
        return text({ error: { code: 0, message: error instanceof Error ? error.message : String(error) } });
      }
    },
  );
  // 2026-07-28: the tool returns input_required; the client re-issues the call with the answer.
  mcp.registerTool('ask_mrtr', { description: 'Asks with inputRequired.', inputSchema: args }, async (a, ctx) => {
    const answer = inputResponse(ctx.mcpReq.inputResponses, 'q');
    if (answer.kind === 'elicit') {
      return text({ action: answer.action, ...(answer.content ? { content: answer.content } : {}) });
    }
    const ask = JSON.parse(a.ask) as Ask;
    const request =
      ask.mode === 'url'
        ? inputRequired.elicitUrl({ message: ask.message, url: ask.url })
        : inputRequired.elicit({ ...(ask as Record<string, unknown>), mode: 'form' } as never);
    return inputRequired({ inputRequests: { q: request } });
  });
  // 2026-07-28: several questions in one round (q0, q1, …); answers what came back for each.
  mcp.registerTool(
    'ask_round',
    { description: 'Asks several questions in one inputRequired round.', inputSchema: z.object({ asks: z.string() }) },
    async (a, ctx) => {
      const asks = JSON.parse(a.asks) as Ask[];
      const responses = ctx.mcpReq.inputResponses;
      if (responses) return text(Object.fromEntries(asks.map((_, i) => [`q${i}`, responses[`q${i}`] ?? null])));
      const requests = asks.map((ask, i) => [
        `q${i}`,
        ask.mode === 'url'
          ? inputRequired.elicitUrl({ message: ask.message, url: ask.url })
          : inputRequired.elicit({ ...(ask as Record<string, unknown>), mode: 'form' } as never),
      ]);
      return inputRequired({ inputRequests: Object.fromEntries(requests) });
    },
  );
  // 2025-11-25: tells the client the page of a URL question is done (any id it is given).
  mcp.registerTool(
    'complete',
    { description: 'Sends notifications/elicitation/complete.', inputSchema: z.object({ elicitationId: z.string() }) },
    async (a) => {
      await mcp.server.createElicitationCompletionNotifier(a.elicitationId)();
      return text({ sent: a.elicitationId });
    },
  );
  mcp.registerTool('capabilities', { description: 'Reports the client capabilities.' }, async () =>
    text(mcp.server.getClientCapabilities() ?? {}),
  );
  return mcp;
}

function text(value: unknown) {
  return { content: [{ type: 'text' as const, text: JSON.stringify(value) }] };
}

export interface Connection {
  client: Client;
  /** Has the server ask; resolves with what the server received. */
  ask(params: Ask, options?: { serverTimeoutMs?: number; signal?: AbortSignal }): Promise<Received>;
  /** Has the server ask `asks` in one `input_required` round (2026-07-28); what it got for each (`q0`, …). */
  askRound(asks: Ask[]): Promise<Record<string, unknown>>;
  /** Has the server send `notifications/elicitation/complete` for `elicitationId` (2025-11-25). */
  complete(elicitationId: string): Promise<void>;
  /** The client capabilities the server sees. */
  capabilities(): Promise<Record<string, unknown>>;
  close(): Promise<void>;
}

/**
 * Creates a client, lets `setup` attach to it (before connect), and connects it on `revision` to
 * a server that names itself `info` (or connects `again`, a client whose connection was closed).
 */
export async function connect(
  revision: ServedRevision,
  setup: (client: Client) => void,
  info: ServerInfo = SERVER_INFO,
  /** A client whose connection was closed, to connect again (setup is not run for it). */
  again?: Client,
): Promise<Connection> {
  const modern = revision === '2026-07-28';
  const client = again ?? new Client({ name: 'elicitkit-test-client', version: '1.0.0' }, revisionOptions(revision));
  if (!again) setup(client);
  let closeServer: () => Promise<void>;
  if (modern) {
    const handler = createMcpHandler(() => server(info));
    await client.connect(
      new StreamableHTTPClientTransport(new URL('http://in-process.test/mcp'), {
        fetch: (url, init) => handler.fetch(new Request(url, init)),
      }),
    );
    closeServer = () => handler.close();
  } else {
    const [serverSide, clientSide] = InMemoryTransport.createLinkedPair();
    const mcp = server(info);
    await mcp.connect(serverSide);
    await client.connect(clientSide);
    closeServer = () => mcp.close();
  }
  const read = (result: { content?: unknown }) =>
    JSON.parse((result.content as { text: string }[])[0]?.text ?? 'null') as never;
  return {
    client,
    async ask(params, options = {}) {
      const args = {
        ask: JSON.stringify(params),
        ...(options.serverTimeoutMs === undefined ? {} : { timeoutMs: options.serverTimeoutMs }),
      };
      try {
        const result = await client.callTool(
          { name: modern ? 'ask_mrtr' : 'ask_push', arguments: args },
          { timeout: 60_000, ...(options.signal ? { signal: options.signal } : {}) },
        );
        return read(result);
      } catch (error) {
        // On 2026-07-28 the client answers the embedded request itself: its error surfaces here.
        if (error instanceof ProtocolError) return { error: { code: error.code, message: error.message } };
        throw error;
      }
    },
    async askRound(asks) {
      return read(
        await client.callTool({ name: 'ask_round', arguments: { asks: JSON.stringify(asks) } }, { timeout: 60_000 }),
      );
    },
    async complete(elicitationId) {
      await client.callTool({ name: 'complete', arguments: { elicitationId } });
    },
    async capabilities() {
      return read(await client.callTool({ name: 'capabilities', arguments: {} }));
    },
    async close() {
      await client.close();
      await closeServer();
    },
  };
}
