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
import type * as Kit from '@elicitkit/server';
import { createMcpHandler } from '@modelcontextprotocol/server';
import { connectRaw, inProcess, kitServerOf, newClient, timedCall } from './ask-overhead.js';
import { p50 } from './support/stats.js';

const dir = process.argv[2];
if (!dir) throw new Error('usage: ask-builds.ts <@elicitkit/server dist directory>');
const PAIRS = Number(process.env.BENCH_PAIRS ?? 1500);
const REPEATS = Number(process.env.BENCH_REPEATS ?? 2);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 2000);

const lib = (await import(pathToFileURL(resolve(dir, 'index.js')).href)) as typeof Kit;
const handler = createMcpHandler(kitServerOf(lib));
const client = newClient('2026-07-28');
await client.connect(inProcess((r) => handler.fetch(r)));
const ours = { client };
const raw = await connectRaw('2026-07-28', 'sdk');

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
console.log(`${dir}: ask() 2026-07-28 in-process against raw, paired p50 per run: ${runs.join(', ')}`);
await raw.close();
await client.close();
await handler.close();
