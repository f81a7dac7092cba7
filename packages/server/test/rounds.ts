/**
 * A 2026-07-28 SDK client that sends each round of a tool call by hand (no automatic answering),
 * connected in process to an SDK handler as an authenticated caller: what the server tests of
 * sealed states, refusals and replays drive.
 */
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { createMcpHandler } from '@modelcontextprotocol/server';

export interface RoundsOptions {
  /** The tool every round calls. */
  tool: string;
  /** Who calls (the `clientId` the handler's `authInfo` carries); default `alice`. */
  identity?: string;
  /** The client's capabilities on every round; default form mode. */
  capabilities?: Record<string, unknown>;
  /** The client's name (a known client's, to be shaped for it); default `manual`. */
  name?: string;
}

/** `round(args, extra)`: one `tools/call` with `extra` (`inputResponses`, `requestState`) beside the arguments. */
export async function roundsClient(handler: ReturnType<typeof createMcpHandler>, options: RoundsOptions) {
  const identity = options.identity ?? 'alice';
  const client = new Client(
    { name: options.name ?? 'manual', version: '1' },
    {
      capabilities: options.capabilities ?? { elicitation: { form: {} } },
      versionNegotiation: { mode: { pin: '2026-07-28' } },
      inputRequired: { autoFulfill: false },
    },
  );
  await client.connect(
    new StreamableHTTPClientTransport(new URL('http://in-process.test/mcp'), {
      fetch: (url, init) =>
        handler.fetch(new Request(url, init), { authInfo: { token: identity, clientId: identity, scopes: [] } }),
    }),
  );
  const round = (args: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
    client.request(
      { method: 'tools/call', params: { name: options.tool, arguments: args, ...extra } },
      { allowInputRequired: true },
    );
  return { client, round };
}
