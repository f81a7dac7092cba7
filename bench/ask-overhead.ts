/**
 * What does ask() cost over the raw SDK?
 *
 * The same one-question tool ("which environment?", validated answer, then a result) is written
 * twice — with raw SDK calls and with @elicitkit/server's ask() — and driven by a real SDK client
 * on both protocol revisions: 2025-11-25 over a linked in-memory pair (push elicitation/create)
 * and 2026-07-28 over the Web-standard HTTP handler called in-process (input_required rounds).
 * Both variants run in the same process, interleaved, and the ratio is what matters. It runs the
 * built packages (`dist/`, what users run; `npm run bench` builds first), not the sources.
 *
 *   npm run bench                 # default 1500 calls per variant per batch, 5 batches
 *   BENCH_CALLS=300 npm run bench # quicker
 */
import { field, form } from '@elicitkit/form';
import { createElicitkit, defineTool, done } from '@elicitkit/server';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import {
  acceptedContent,
  type CallToolResult,
  createMcpHandler,
  InMemoryTransport,
  type InputRequiredResult,
  inputRequired,
  McpServer,
} from '@modelcontextprotocol/server';
import * as z from 'zod/v4';

const CALLS = Number(process.env.BENCH_CALLS ?? 1500);
const BATCHES = Number(process.env.BENCH_BATCHES ?? 5);
const ENVS = ['dev', 'staging', 'prod'] as const;

const envForm = form({
  env: field.select(
    ENVS.map((e) => ({ value: e, title: e.toUpperCase() })),
    { title: 'Environment' },
  ),
});
const envZod = z.object({ env: z.enum(ENVS) });
const message = 'Which environment should order-service be deployed to?';

/** The raw SDK version, written the way the SDK's docs write it. */
function rawServer(): McpServer {
  const server = new McpServer({ name: 'raw', version: '1' }, { capabilities: { tools: {} } });
  server.registerTool(
    'deploy',
    { description: 'deploy', inputSchema: z.object({}) },
    async (_args, ctx): Promise<CallToolResult | InputRequiredResult> => {
      if (ctx.mcpReq.envelope) {
        const answer = acceptedContent(ctx.mcpReq.inputResponses, 'env', envZod);
        if (!answer) {
          return inputRequired({
            inputRequests: { env: inputRequired.elicit({ message, requestedSchema: envForm.schema }) },
          });
        }
        return {
          content: [{ type: 'text', text: `Deployed to ${answer.env}` }],
          structuredContent: { status: 'done' },
        };
      }
      const result = await ctx.mcpReq.elicitInput(
        { mode: 'form', message, requestedSchema: envForm.schema },
        { timeout: 600_000 },
      );
      if (result.action !== 'accept') return { content: [{ type: 'text', text: result.action }] };
      const parsed = envZod.safeParse(result.content);
      if (!parsed.success) return { content: [{ type: 'text', text: 'invalid' }], isError: true };
      return {
        content: [{ type: 'text', text: `Deployed to ${parsed.data.env}` }],
        structuredContent: { status: 'done' },
      };
    },
  );
  return server;
}

const kit = createElicitkit();
const tool = defineTool({
  name: 'deploy',
  description: 'deploy',
  forms: { env: envForm },
  async run(_args, { ask }) {
    const answer = await ask('env', { message });
    if (answer.action !== 'accept') return answer.result();
    return done(`Deployed to ${answer.value.env}`);
  },
});
const kitServer = () => kit.createServer({ name: 'kit', version: '1' }, [tool]);

async function connect(
  revision: '2025-11-25' | '2026-07-28',
  factory: () => McpServer,
): Promise<{ client: Client; close(): Promise<void> }> {
  const client = new Client(
    { name: 'bench', version: '1' },
    {
      capabilities: { elicitation: { form: {} } },
      ...(revision === '2026-07-28' ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {}),
    },
  );
  client.setRequestHandler('elicitation/create', async () => ({ action: 'accept', content: { env: 'staging' } }));
  if (revision === '2025-11-25') {
    const [a, b] = InMemoryTransport.createLinkedPair();
    const server = factory();
    await server.connect(a);
    await client.connect(b);
    return {
      client,
      async close() {
        await client.close();
        await server.close();
      },
    };
  }
  const handler = createMcpHandler(factory);
  await client.connect(
    new StreamableHTTPClientTransport(new URL('http://bench.test/mcp'), {
      fetch: (u, i) => handler.fetch(new Request(u, i)),
    }),
  );
  return {
    client,
    async close() {
      await client.close();
      await handler.close();
    },
  };
}

async function rate(client: Client, calls: number): Promise<number> {
  const started = performance.now();
  for (let i = 0; i < calls; i++) {
    const r = await client.callTool({ name: 'deploy', arguments: {} });
    if ((r.structuredContent as { status?: string } | undefined)?.status !== 'done')
      throw new Error(`unexpected result ${JSON.stringify(r)}`);
  }
  return calls / ((performance.now() - started) / 1000);
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;

for (const revision of ['2025-11-25', '2026-07-28'] as const) {
  const raw = await connect(revision, rawServer);
  const ours = await connect(revision, kitServer);
  await rate(raw.client, Math.min(200, CALLS));
  await rate(ours.client, Math.min(200, CALLS));
  const rawRates: number[] = [];
  const oursRates: number[] = [];
  for (let b = 0; b < BATCHES; b++) {
    rawRates.push(await rate(raw.client, CALLS));
    oursRates.push(await rate(ours.client, CALLS));
  }
  const r = median(rawRates);
  const o = median(oursRates);
  const label = `${revision} (${revision === '2025-11-25' ? 'push, in-memory' : 'input_required, in-process HTTP'})`;
  console.log(`${label}`);
  console.log(`  raw SDK : ${r.toFixed(0).padStart(6)} tool calls/s (each one elicitation round trip)`);
  console.log(`  ask()   : ${o.toFixed(0).padStart(6)} tool calls/s`);
  console.log(
    `  ask() costs ${((r / o - 1) * 100).toFixed(1)}% more time per call (ratio raw/ask = ${(o / r).toFixed(3)})`,
  );
  await raw.close();
  await ours.close();
}
