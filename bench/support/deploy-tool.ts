/**
 * The one-question tool every ask bench measures: its form, its argument schema, its message and
 * result, and the raw SDK's server for it (`elicitInput` on a 2025 session, `inputRequired` on
 * 2026-07-28), written the way the SDK's docs write it. The Elicitkit side of each bench asks the
 * same form with the same message, so both sides do the same work.
 */
import { field, form } from '@elicitkit/form';
import {
  acceptedContent,
  type CallToolResult,
  type InputRequiredResult,
  inputRequired,
  McpServer,
} from '@modelcontextprotocol/server';
import * as z from 'zod/v4';

export const ENVS = ['dev', 'staging', 'prod'] as const;

export const envForm = form({
  env: field.select(
    ENVS.map((e) => ({ value: e, title: e.toUpperCase() })),
    { title: 'Environment' },
  ),
});
export const envZod = z.object({ env: z.enum(ENVS) });
export const inputSchema = z.object({ service: z.string() });
export const message = (service: string) => `Which environment should ${service} be deployed to?`;
export const deployed = (service: string, env: string): CallToolResult => ({
  content: [{ type: 'text', text: `Deployed ${service} to ${env}` }],
  structuredContent: { status: 'done' },
});

/** The raw SDK version, written the way the SDK's docs write it. */
export function rawServer(): McpServer {
  const server = new McpServer({ name: 'raw', version: '1' }, { capabilities: { tools: {} } });
  server.registerTool(
    'deploy',
    { description: 'deploy', inputSchema },
    async ({ service }, ctx): Promise<CallToolResult | InputRequiredResult> => {
      if (ctx.mcpReq.envelope) {
        const answer = acceptedContent(ctx.mcpReq.inputResponses, 'env', envZod);
        if (!answer) {
          return inputRequired({
            inputRequests: {
              env: inputRequired.elicit({ message: message(service), requestedSchema: envForm.schema }),
            },
          });
        }
        return deployed(service, answer.env);
      }
      const result = await ctx.mcpReq.elicitInput(
        { mode: 'form', message: message(service), requestedSchema: envForm.schema },
        { timeout: 600_000 },
      );
      if (result.action !== 'accept') return { content: [{ type: 'text', text: result.action }] };
      const parsed = envZod.safeParse(result.content);
      if (!parsed.success) return { content: [{ type: 'text', text: 'invalid' }], isError: true };
      return deployed(service, parsed.data.env);
    },
  );
  return server;
}
