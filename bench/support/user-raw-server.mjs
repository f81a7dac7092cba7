// The raw-SDK twin of user-kit-server.mjs: the same tool and form, the answer checked with zod.
import { McpServer } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import * as z from 'zod/v4';

const ENVS = ['dev', 'staging', 'prod'];
const requestedSchema = {
  type: 'object',
  properties: {
    env: {
      type: 'string',
      title: 'Environment',
      oneOf: ENVS.map((value) => ({ const: value, title: value.toUpperCase() })),
    },
  },
  required: ['env'],
};
const answerSchema = z.object({ env: z.enum(ENVS) });

serveStdio(() => {
  const server = new McpServer({ name: 'mine', version: '1' }, { capabilities: { tools: {} } });
  server.registerTool(
    'deploy',
    { description: 'Deploy a service', inputSchema: z.object({ service: z.string() }) },
    async ({ service }, ctx) => {
      const result = await ctx.mcpReq.elicitInput({
        mode: 'form',
        message: `Which environment should ${service} be deployed to?`,
        requestedSchema,
      });
      if (result.action !== 'accept') return { content: [{ type: 'text', text: result.action }] };
      const parsed = answerSchema.safeParse(result.content);
      if (!parsed.success) return { content: [{ type: 'text', text: 'invalid' }], isError: true };
      return { content: [{ type: 'text', text: `Deployed ${service} to ${parsed.data.env}` }] };
    },
  );
  return server;
});
