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
import { createHttpHandler } from '@elicitkit/server';
import type { Client } from '@modelcontextprotocol/client';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/server';
import { connectRaw, inProcess, kitServerOf, newClient, timedCall } from './ask-overhead.js';
import { iqr, p50 } from './support/stats.js';

const STEPS = Number(process.env.BENCH_STEPS ?? 2000);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 1500);
const kitServer = kitServerOf();

const raw = await connectRaw('2025-11-25', 'http-bare');
const bare = newClient('2025-11-25');
const bareServer = kitServer();
const bareTransport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: () => crypto.randomUUID() });
await bareServer.connect(bareTransport);
await bare.connect(inProcess((r) => bareTransport.handleRequest(r)));
const handled = newClient('2025-11-25');
const handler = createHttpHandler(() => kitServer());
await handled.connect(inProcess((r) => handler.fetch(r)));

const sides = [raw.client, bare, handled];
const names = ['raw SDK', 'kit on a bare SDK transport', 'kit behind createHttpHandler'];

async function steps(n: number) {
  const rows: { ms: number; cpuMs: number }[][] = [];
  for (let i = 0; i < n; i++) {
    const row: { ms: number; cpuMs: number }[] = [];
    for (let k = 0; k < sides.length; k++) {
      const at = (i + k) % sides.length;
      row[at] = await timedCall({ client: sides[at] as Client });
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
