// A server that gets a 2025-06-18 client wrong, one of two ways (argv[2]): `crash` — on initialize
// it reads a field of `elicitation.form`, which that client's bare `elicitation: {}` does not
// have, and the process dies of the TypeError (its stack on stderr); `refuse` — it does not speak
// 2025-06-18 and answers that client's initialize with the version it does speak.
import { McpServer } from '@modelcontextprotocol/server';
import { StdioServerTransport } from '@modelcontextprotocol/server/stdio';
import * as z from 'zod/v4';

const refuse = process.argv[2] === 'refuse';
const server = new McpServer(
  { name: 'old-revision', version: '1.0.0' },
  { capabilities: { tools: {} }, ...(refuse ? { supportedProtocolVersions: ['2025-11-25', '2026-07-28'] } : {}) },
);
server.registerTool(
  'status',
  { description: 'Shows the status of order-service.', inputSchema: z.object({}), annotations: { readOnlyHint: true } },
  async () => ({ content: [{ type: 'text', text: 'healthy' }], structuredContent: { status: 'done' } }),
);
const transport = new StdioServerTransport();
await server.connect(transport);
const handle = transport.onmessage;
transport.onmessage = (message, extra) => {
  // The bug: `form` is read as if every client that declares elicitation declared it, in a
  // callback of the server's own, where nothing catches the TypeError.
  if (!refuse && message.method === 'initialize')
    queueMicrotask(() => void message.params.capabilities.elicitation?.form.applyDefaults);
  handle?.(message, extra);
};
