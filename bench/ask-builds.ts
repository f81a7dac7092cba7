/**
 * Before/after for `ask()` on 2026-07-28 in-process: the raw SDK tool against the kit tool of one
 * build of `@elicitkit/server` (a copy of its `dist`), both under the SDK's `createMcpHandler`,
 * paired as `ask-overhead.ts` pairs them (order alternating, a yield after every call). Run it once
 * per build, the builds alternating, so every build is measured under the same load:
 *
 *   cp -r packages/server/dist node_modules/.ek-builds/before   # on the old build; inside the
 *   npm run build                                               # repo, so its imports resolve
 *   for i in 1 2 3; do for b in node_modules/.ek-builds/before packages/server/dist; do
 *     node --import tsx bench/ask-builds.ts $b; done; done
 *
 *   BENCH_PAIRS=1500 BENCH_REPEATS=2 BENCH_WARMUP=2000 (defaults)
 */
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { field, form } from '@elicitkit/form';
import type * as Kit from '@elicitkit/server';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { createMcpHandler } from '@modelcontextprotocol/server';
import * as z from 'zod/v4';
import { connectRaw } from './ask-overhead.js';
import { p50, yieldToLoop } from './support/stats.js';

const dir = process.argv[2];
if (!dir) throw new Error('usage: ask-builds.ts <@elicitkit/server dist directory>');
const PAIRS = Number(process.env.BENCH_PAIRS ?? 1500);
const REPEATS = Number(process.env.BENCH_REPEATS ?? 2);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 2000);

const lib = (await import(pathToFileURL(resolve(dir, 'index.js')).href)) as typeof Kit;
const ENVS = ['dev', 'staging', 'prod'] as const;
const envForm = form({
  env: field.select(
    ENVS.map((e) => ({ value: e, title: e.toUpperCase() })),
    { title: 'Environment' },
  ),
});
const kit = lib.createElicitkit();
const tool = lib.defineTool({
  name: 'deploy',
  description: 'deploy',
  inputSchema: z.object({ service: z.string() }),
  forms: { env: envForm },
  async run({ service }, { ask }) {
    const answer = await ask('env', { message: `Which environment should ${service} be deployed to?` });
    if (answer.action !== 'accept') return answer.result();
    return lib.done(`Deployed ${service} to ${answer.value.env}`);
  },
});

const handler = createMcpHandler(() => kit.createServer({ name: 'kit', version: '1' }, [tool]));
const client = new Client(
  { name: 'bench', version: '1' },
  { capabilities: { elicitation: { form: {} } }, versionNegotiation: { mode: { pin: '2026-07-28' } } },
);
client.setRequestHandler('elicitation/create', async () => ({ action: 'accept', content: { env: 'staging' } }));
await client.connect(
  new StreamableHTTPClientTransport(new URL('http://127.0.0.1/mcp'), {
    fetch: (u, i) => {
      const { signal: _unused, ...init } = i ?? {};
      const request = new Request(u, init);
      request.headers.set('host', '127.0.0.1');
      return handler.fetch(request);
    },
  }),
);
const ours = { client };
const raw = await connectRaw('2026-07-28', 'sdk');

async function timed(c: { client: Client }): Promise<{ ms: number; cpuMs: number }> {
  const cpu = process.cpuUsage();
  const started = performance.now();
  const r = await c.client.callTool({ name: 'deploy', arguments: { service: 'order-service' } });
  const ms = performance.now() - started;
  const used = process.cpuUsage(cpu);
  if ((r.structuredContent as { status?: string } | undefined)?.status !== 'done')
    throw new Error(`unexpected result ${JSON.stringify(r)}`);
  await yieldToLoop();
  return { ms, cpuMs: (used.user + used.system) / 1000 };
}

async function pairs(n: number): Promise<{ ratio: number; cpuRaw: number; cpuOurs: number }[]> {
  const out: { ratio: number; cpuRaw: number; cpuOurs: number }[] = [];
  for (let i = 0; i < n; i++) {
    const rawFirst = i % 2 === 0;
    const first = await timed(rawFirst ? raw : ours);
    const second = await timed(rawFirst ? ours : raw);
    const [r, o] = rawFirst ? [first, second] : [second, first];
    out.push({ ratio: o.ms / r.ms, cpuRaw: r.cpuMs, cpuOurs: o.cpuMs });
  }
  return out;
}

await pairs(WARMUP);
const runs: string[] = [];
for (let r = 0; r < REPEATS; r++) {
  const run = await pairs(PAIRS);
  const cpu = run.reduce((s, p) => s + p.cpuOurs, 0) / run.reduce((s, p) => s + p.cpuRaw, 0);
  runs.push(`${p50(run.map((p) => p.ratio)).toFixed(3)}× (CPU ${cpu.toFixed(2)}×)`);
}
console.log(`${dir}: ask() 2026-07-28 in-process against raw, paired p50 per run: ${runs.join(', ')}`);
await raw.close();
await client.close();
await handler.close();
