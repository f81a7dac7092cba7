// The anchor for cold start: the smallest SDK v2 server a user would write — serveStdio and one
// tool with a zod input schema. Plain JavaScript so it spawns exactly as the built CLI does.
import { McpServer } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import * as z from 'zod/v4';

serveStdio(() => {
  const server = new McpServer({ name: 'minimal', version: '1' }, { capabilities: { tools: {} } });
  server.registerTool(
    'echo',
    { description: 'Echo a text back', inputSchema: z.object({ text: z.string() }) },
    async ({ text }) => ({ content: [{ type: 'text', text }] }),
  );
  return server;
});
