/**
 * Before/after for `ask()` in-process: the raw SDK tool against the kit tool of one build of
 * `@elicitkit/server` (a copy of its `dist`), on 2026-07-28 both under the SDK's
 * `createMcpHandler`, on 2025 both on an in-memory pair (`BENCH_REVISION`), paired as
 * `ask-overhead.ts` pairs them (order alternating, a yield after every call). Run it once per
 * build, the builds alternating, so every build is measured under the same load:
 *
 *   cp -r packages/server/dist node_modules/.ek-builds/before   # on the old build; inside the
 *   npm run build                                               # repo, so its imports resolve
 *   for i in 1 2 3; do for b in node_modules/.ek-builds/before packages/server/dist; do
 *     node --import tsx bench/ask-builds.ts $b/bundled; done; done
 *
 * Where `@elicitkit/form` changed too, give each build its own: a copy of the server package in
 * `.ek-builds/<name>/server` and of the form package in `.ek-builds/<name>/node_modules/@elicitkit/form`.
 *
 *   BENCH_PAIRS=1500 BENCH_REPEATS=2 BENCH_WARMUP=2000 (defaults), BENCH_REVISION=2026-07-28 (default), 2025-11-25, 2025-06-18
 */
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type * as Kit from '@elicitkit/server';
import { createMcpHandler, InMemoryTransport } from '@modelcontextprotocol/server';
import { connectRaw, inProcess, kitServerOf, newClient, type Revision, timedCall } from './ask-overhead.js';
import { p50 } from './support/stats.js';

const dir = process.argv[2];
if (!dir) throw new Error('usage: ask-builds.ts <@elicitkit/server dist directory>');
const PAIRS = Number(process.env.BENCH_PAIRS ?? 1500);
const REPEATS = Number(process.env.BENCH_REPEATS ?? 2);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 2000);

const REVISION = (process.env.BENCH_REVISION ?? '2026-07-28') as Revision;
if (!['2025-06-18', '2025-11-25', '2026-07-28'].includes(REVISION))
  throw new Error(`unknown BENCH_REVISION ${REVISION}`);

const lib = (await import(pathToFileURL(resolve(dir, 'index.js')).href)) as typeof Kit;
const kitServer = kitServerOf(lib);
const client = newClient(REVISION);
let closeOurs: () => Promise<void>;
if (REVISION === '2026-07-28') {
  const handler = createMcpHandler(kitServer);
  await client.connect(inProcess((r) => handler.fetch(r)));
  closeOurs = () => handler.close();
} else {
  const server = kitServer();
  const [a, b] = InMemoryTransport.createLinkedPair();
  await server.connect(a);
  await client.connect(b);
  closeOurs = () => server.close();
}
const ours = { client };
const raw = await connectRaw(REVISION, 'sdk');

async function pairs(n: number): Promise<{ ratio: number; cpuRaw: number; cpuOurs: number }[]> {
  const out: { ratio: number; cpuRaw: number; cpuOurs: number }[] = [];
  for (let i = 0; i < n; i++) {
    const rawFirst = i % 2 === 0;
    const first = await timedCall(rawFirst ? raw : ours);
    const second = await timedCall(rawFirst ? ours : raw);
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
console.log(`${dir}: ask() ${REVISION} in-process against raw, paired p50 per run: ${runs.join(', ')}`);
await raw.close();
await client.close();
await closeOurs();
