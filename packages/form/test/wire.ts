/**
 * A form put on the wire between a real SDK server and a real SDK client, on both ways of asking:
 * 2025-11-25 pushes `elicitation/create` over a linked in-memory pair; 2026-07-28 returns
 * `input_required` through the Web-standard HTTP handler called in-process. Nothing is mocked: what
 * the SDK refuses here, it refuses in production.
 */
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import {
  createMcpHandler,
  InMemoryTransport,
  inputRequired,
  inputResponse,
  McpServer,
  ProtocolError,
} from '@modelcontextprotocol/server';
import type { FormContent, FormSchema } from '../src/wire.js';

export type WireRevision = '2025-11-25' | '2026-07-28';

/** What the client's handler saw (if it ran), and what came back to the caller. */
export interface Trip {
  seen?: unknown;
  outcome: { accepted: unknown } | { error: number };
}

function server(schema: FormSchema): McpServer {
  const mcp = new McpServer({ name: 'wire-test', version: '1.0.0' });
  mcp.registerTool('push', { description: 'Pushes elicitation/create.' }, async (ctx) => {
    try {
      const params = { mode: 'form', message: 'Please fill in the form.', requestedSchema: schema } as const;
      const answer = await ctx.mcpReq.elicitInput(params as never);
      return reply({ accepted: answer.content ?? null });
    } catch (error) {
      // The client's JSON-RPC error reaches the tool as a ProtocolError; hand its code back.
      if (error instanceof ProtocolError) return reply({ error: error.code });
      throw error;
    }
  });
  mcp.registerTool('mrtr', { description: 'Returns input_required.' }, async (ctx) => {
    const answer = inputResponse(ctx.mcpReq.inputResponses, 'q');
    if (answer.kind === 'elicit') return reply({ accepted: answer.content ?? null });
    const request = inputRequired.elicit({
      mode: 'form',
      message: 'Please fill in the form.',
      requestedSchema: schema,
    } as never);
    return inputRequired({ inputRequests: { q: request } });
  });
  return mcp;
}

function reply(outcome: Trip['outcome']) {
  return { content: [{ type: 'text' as const, text: JSON.stringify(outcome) }] };
}

/** Asks `schema` of a real client on `revision`; its handler accepts with `content`. */
export async function roundTrip(revision: WireRevision, schema: FormSchema, content: FormContent): Promise<Trip> {
  const modern = revision === '2026-07-28';
  const client = new Client(
    { name: 'wire-test-client', version: '1.0.0' },
    modern ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {},
  );
  client.registerCapabilities({ elicitation: { form: {} } });
  const trip: Trip = { outcome: { error: 0 } };
  client.setRequestHandler('elicitation/create', async (request) => {
    trip.seen = request.params;
    return { action: 'accept', content };
  });
  let close: () => Promise<void>;
  if (modern) {
    const handler = createMcpHandler(() => server(schema));
    await client.connect(
      new StreamableHTTPClientTransport(new URL('http://in-process.test/mcp'), {
        fetch: (url, init) => handler.fetch(new Request(url, init)),
      }),
    );
    close = () => handler.close();
  } else {
    const [serverSide, clientSide] = InMemoryTransport.createLinkedPair();
    const mcp = server(schema);
    await mcp.connect(serverSide);
    await client.connect(clientSide);
    close = () => mcp.close();
  }
  try {
    const result = await client.callTool({ name: modern ? 'mrtr' : 'push', arguments: {} }, { timeout: 30_000 });
    const text = (result.content as { text?: string }[] | undefined)?.[0]?.text ?? 'null';
    if (result.isError) throw new Error(`the tool failed: ${text}`);
    trip.outcome = JSON.parse(text) as Trip['outcome'];
  } catch (error) {
    if (!(error instanceof ProtocolError)) throw error;
    trip.outcome = { error: error.code };
  } finally {
    await client.close();
    await close();
  }
  return trip;
}
