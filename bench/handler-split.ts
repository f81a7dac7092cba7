/**
 * Where the "ask() 2025-11-25 behind createHttpHandler" gap is: the same kit-built server served
 * to a 2025-11-25 client two ways in one process — on a bare SDK transport (as the raw side is
 * served) and behind `createHttpHandler` — beside ask-overhead.ts's raw SDK side. Each step calls
 * once on each of the three, the order rotating, a yield after every call. "to bare" is the
 * handler's own cost (guard, body read and routing, session table, the response watch); "bare to
 * raw" is ask()'s over HTTP.
 *
 *   node --import tsx bench/handler-split.ts
 *   BENCH_STEPS=2000 (default), BENCH_WARMUP=1500 (steps)
 */
import { field, form } from '@elicitkit/form';
import { createElicitkit, createHttpHandler, defineTool, done } from '@elicitkit/server';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/server';
import * as z from 'zod/v4';
import { connectRaw } from './ask-overhead.js';
import { iqr, p50, yieldToLoop } from './support/stats.js';

const STEPS = Number(process.env.BENCH_STEPS ?? 2000);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 1500);
const ENVS = ['dev', 'staging', 'prod'] as const;
const envForm = form({
  env: field.select(
    ENVS.map((e) => ({ value: e, title: e.toUpperCase() })),
    { title: 'Environment' },
  ),
});
const kit = createElicitkit();
const tool = defineTool({
  name: 'deploy',
  description: 'deploy',
  inputSchema: z.object({ service: z.string() }),
  forms: { env: envForm },
  async run({ service }, { ask }) {
    const answer = await ask('env', { message: `Which environment should ${service} be deployed to?` });
    if (answer.action !== 'accept') return answer.result();
    return done(`Deployed ${service} to ${answer.value.env}`);
  },
});
const kitServer = () => kit.createServer({ name: 'kit', version: '1' }, [tool]);

function newClient(): Client {
  const client = new Client({ name: 'bench', version: '1' }, { capabilities: { elicitation: { form: {} } } });
  client.setRequestHandler('elicitation/create', async () => ({ action: 'accept', content: { env: 'staging' } }));
  return client;
}

/** As ask-overhead.ts's: requests straight to `fetcher`, with the Host header a socket would add. */
function inProcess(fetcher: (request: Request) => Promise<Response>): StreamableHTTPClientTransport {
  return new StreamableHTTPClientTransport(new URL('http://127.0.0.1/mcp'), {
    fetch: (u, i) => {
      const { signal: _unused, ...init } = i ?? {};
      const request = new Request(u, init);
      request.headers.set('host', '127.0.0.1');
      return fetcher(request);
    },
  });
}

const raw = await connectRaw('2025-11-25', 'http-handler');
const bare = newClient();
const bareServer = kitServer();
const bareTransport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: () => crypto.randomUUID() });
await bareServer.connect(bareTransport);
await bare.connect(inProcess((r) => bareTransport.handleRequest(r)));
const handled = newClient();
const handler = createHttpHandler(() => kitServer());
await handled.connect(inProcess((r) => handler.fetch(r)));

const sides = [raw.client, bare, handled];
const names = ['raw SDK', 'kit on a bare SDK transport', 'kit behind createHttpHandler'];

async function call(client: Client): Promise<{ ms: number; cpuMs: number }> {
  const cpu = process.cpuUsage();
  const started = performance.now();
  const r = await client.callTool({ name: 'deploy', arguments: { service: 'order-service' } });
  const ms = performance.now() - started;
  const used = process.cpuUsage(cpu);
  if ((r.structuredContent as { status?: string } | undefined)?.status !== 'done')
    throw new Error(`unexpected result ${JSON.stringify(r)}`);
  await yieldToLoop();
  return { ms, cpuMs: (used.user + used.system) / 1000 };
}

async function steps(n: number) {
  const rows: { ms: number; cpuMs: number }[][] = [];
  for (let i = 0; i < n; i++) {
    const row: { ms: number; cpuMs: number }[] = [];
    for (let k = 0; k < sides.length; k++) {
      const at = (i + k) % sides.length;
      row[at] = await call(sides[at] as Client);
    }
    rows.push(row);
  }
  return rows;
}

await steps(WARMUP);
const rows = await steps(STEPS);
console.log(`\ncreateHttpHandler's share, 2025-11-25 in-process (${STEPS} steps after ${WARMUP}, order rotating)`);
const at = (row: { ms: number; cpuMs: number }[], k: number) => row[k] ?? { ms: Number.NaN, cpuMs: Number.NaN };
const cpu = (k: number) => rows.reduce((s, row) => s + at(row, k).cpuMs, 0) / rows.length;
names.forEach((name, k) => {
  const toRaw = rows.map((row) => at(row, k).ms / at(row, 0).ms);
  const toBare = rows.map((row) => at(row, k).ms / at(row, 1).ms);
  console.log(
    `  ${name}: p50 ${p50(rows.map((row) => at(row, k).ms)).toFixed(3)} ms, CPU/call ${cpu(k).toFixed(3)} ms; to raw p50 ${p50(toRaw).toFixed(3)} (IQR ${iqr(toRaw)}), to bare p50 ${p50(toBare).toFixed(3)}`,
  );
});
await raw.close();
await bare.close();
await bareServer.close();
await handled.close();
await handler.close();
