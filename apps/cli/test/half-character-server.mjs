// A stdio MCP server (raw SDK) whose one question offers a choice holding half of a character
// (a lone UTF-16 surrogate): no answer can carry it. `elicitkit doctor` must say so (EK03).
import { McpServer } from '@modelcontextprotocol/server';
import { StdioServerTransport } from '@modelcontextprotocol/server/stdio';
import * as z from 'zod/v4';

const server = new McpServer({ name: 'half', version: '1.0.0' }, { capabilities: { tools: {} } });
server.registerTool(
  'pick',
  {
    description: 'Pick the environment the demo service is deployed to.',
    inputSchema: z.object({}),
    annotations: { readOnlyHint: true },
  },
  async (_args, ctx) => {
    const r = await ctx.mcpReq.elicitInput({
      mode: 'form',
      message: 'Which environment should the demo service be deployed to?',
      requestedSchema: {
        type: 'object',
        properties: {
          env: {
            type: 'string',
            title: 'Environment',
            oneOf: [
              { const: 'dev', title: 'Development' },
              { const: 'prod\udc00', title: 'Production' },
            ],
          },
        },
        required: ['env'],
      },
    });
    if (r.action !== 'accept')
      return {
        content: [{ type: 'text', text: `Not deployed (${r.action}).` }],
        structuredContent: { status: 'cancelled' },
      };
    return {
      content: [{ type: 'text', text: `Deployed to ${r.content.env}.` }],
      structuredContent: { status: 'done' },
    };
  },
);
await server.connect(new StdioServerTransport());
