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
  createRequestStateCodec,
  type InputRequiredResult,
  inputRequired,
  McpServer,
  type ServerContext,
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

/**
 * The 2026-07-28 raw side's `requestState`, kept as the SDK's docs and its `examples/mrtr` keep it:
 * `createRequestStateCodec` (HMAC-SHA256, a TTL), bound to the method and the caller, checked by
 * the server's `requestState.verify` before the handler runs. One key per process, as there.
 */
const stateCodec = createRequestStateCodec<{ service: string }>({
  key: crypto.getRandomValues(new Uint8Array(32)),
  ttlSeconds: 3600,
  bind: (ctx: ServerContext) => `${ctx.mcpReq.method}\0${ctx.http?.authInfo?.clientId ?? ''}`,
});

/**
 * The raw SDK version, written the way the SDK's docs write it. On 2026-07-28 it counts an answer
 * only when the client echoes the state it was given with the question, for the same service —
 * what `ask()` checks too: without it (`{ sealState: false }`) a client can send `inputResponses`
 * with the first call and the tool takes an answer to a question nobody was shown.
 */
export function rawServer({ sealState = true }: { sealState?: boolean } = {}): McpServer {
  const server = new McpServer(
    { name: 'raw', version: '1' },
    { capabilities: { tools: {} }, ...(sealState ? { requestState: { verify: stateCodec.verify } } : {}) },
  );
  server.registerTool(
    'deploy',
    { description: 'deploy', inputSchema },
    async ({ service }, ctx): Promise<CallToolResult | InputRequiredResult> => {
      if (ctx.mcpReq.envelope) {
        const asked = !sealState || ctx.mcpReq.requestState<{ service: string }>()?.service === service;
        const answer = asked ? acceptedContent(ctx.mcpReq.inputResponses, 'env', envZod) : undefined;
        if (!answer) {
          return inputRequired({
            inputRequests: {
              env: inputRequired.elicit({ message: message(service), requestedSchema: envForm.schema }),
            },
            ...(sealState ? { requestState: await stateCodec.mint({ service }, ctx) } : {}),
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
