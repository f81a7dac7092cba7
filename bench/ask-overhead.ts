/**
 * What does ask() cost over the raw SDK doing the same work?
 *
 * One tool, written twice: it declares the same input schema (`{ service }`), asks "which
 * environment?" with the same form, checks the answer (the raw side with zod, as the SDK's docs
 * do; ask() with the form's own validator, which it always runs), and returns the same result.
 * A real SDK client drives both in this process:
 *   - 2025-11-25 over a linked in-memory pair (push `elicitation/create`);
 *   - 2026-07-28 over the SDK's `createMcpHandler`, called in-process (`input_required` rounds);
 *   - every revision behind `createHttpHandler` (ask()) against the raw SDK serving the same
 *     endpoint — every revision on one URL, 2025 clients in sessions — the way its docs compose
 *     it (`rawEndpoint`), in-process. Beside it, as information, the raw SDK's bare serving of one
 *     revision (one sessionful transport, or `createMcpHandler`), which does less: no Host check,
 *     no routing between revisions, no session lookup.
 *   - every revision over real loopback sockets: `toNodeListener(createHttpHandler(…))` against
 *     the same raw endpoint behind the SDK's `toNodeHandler`, each on its own `node:http` server,
 *     the clients on the SDK's `StreamableHTTPClientTransport` with the platform's `fetch`.
 * Paired: each pair is one raw call and one ask() call back to back, order alternating, with a
 * yield (`setImmediate`) after every call; the figure is the p50 of the per-pair ratios, and CPU
 * per call is this process's `cpuUsage` (client + server: both sides pay the same client).
 * Repeated `BENCH_REPEATS` times to show the spread of that p50, after `BENCH_WARMUP` unmeasured
 * pairs per line (both sides reach optimized code only after a few thousand calls).
 *
 *   BENCH_PAIRS=1500 BENCH_REPEATS=3 BENCH_WARMUP=2000 (defaults)
 *   BENCH_ASK_LINES=2025-11-25-sdk,2026-07-28-http,2025-06-18-socket,… (default: all nine lines)
 */
import { createServer, type RequestListener } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import * as Kit from '@elicitkit/server';
import { createHttpHandler } from '@elicitkit/server';
import { toNodeListener } from '@elicitkit/server/node';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { toNodeHandler } from '@modelcontextprotocol/node';
import {
  createMcpHandler,
  InMemoryTransport,
  WebStandardStreamableHTTPServerTransport,
} from '@modelcontextprotocol/server';
import { envForm, inputSchema, message, rawServer as rawServerOf } from './support/deploy-tool.js';
import { rawEndpoint } from './support/raw-endpoint.js';
import { iqr, p50, report, yieldToLoop } from './support/stats.js';

const PAIRS = Number(process.env.BENCH_PAIRS ?? 1500);
const REPEATS = Number(process.env.BENCH_REPEATS ?? 3);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 2000);

export { envForm, message } from './support/deploy-tool.js';

/** The ask() side's server factory, from `lib` (this build's @elicitkit/server, or another build's). */
export function kitServerOf(lib: Pick<typeof Kit, 'createElicitkit' | 'defineTool' | 'done'> = Kit) {
  const kit = lib.createElicitkit();
  const tool = lib.defineTool({
    name: 'deploy',
    description: 'deploy',
    inputSchema,
    forms: { env: envForm },
    async run({ service }, { ask }) {
      const answer = await ask('env', { message: message(service) });
      if (answer.action !== 'accept') return answer.result();
      return lib.done(`Deployed ${service} to ${answer.value.env}`);
    },
  });
  return () => kit.createServer({ name: 'kit', version: '1' }, [tool]);
}

const kitServer = kitServerOf();

export type Revision = '2025-06-18' | '2025-11-25' | '2026-07-28';
/** In-memory or in-process; behind the one endpoint for every revision; the SDK's bare serving of one revision. */
export type Way = 'sdk' | 'http-handler' | 'http-bare' | 'http-socket';
export interface Connected {
  client: Client;
  close(): Promise<void>;
}

export function newClient(revision: Revision): Client {
  const client = new Client(
    { name: 'bench', version: '1' },
    {
      capabilities: { elicitation: { form: {} } },
      ...(revision === '2026-07-28' ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {}),
      ...(revision === '2025-06-18' ? { supportedProtocolVersions: ['2025-06-18'] } : {}),
    },
  );
  client.setRequestHandler('elicitation/create', async () => ({ action: 'accept', content: { env: 'staging' } }));
  return client;
}

/**
 * A request's init without the client transport's long-lived abort signal: each Request made with
 * it leaves a listener on it (undici removes them only once the Request is garbage collected),
 * thousands over a run on both sides alike, and Node warns past 1,500 at once.
 */
function unsignalled(init: RequestInit | undefined): RequestInit {
  const { signal: _unused, ...rest } = init ?? {};
  return rest;
}

/** A client transport whose requests go straight to `fetcher`, with the Host header a socket would add. */
export function inProcess(fetcher: (request: Request) => Promise<Response>): StreamableHTTPClientTransport {
  return new StreamableHTTPClientTransport(new URL('http://127.0.0.1/mcp'), {
    fetch: (u, i) => {
      const request = new Request(u, unsignalled(i));
      request.headers.set('host', '127.0.0.1');
      return fetcher(request);
    },
  });
}

/** A client transport over a real socket to `url`, its requests made without the long-lived signal. */
function overSocket(url: URL): StreamableHTTPClientTransport {
  return new StreamableHTTPClientTransport(url, { fetch: (u, i) => fetch(u, unsignalled(i)) });
}

/** A Node HTTP server on a free loopback port, for the lines over real sockets. */
async function listen(listener: RequestListener): Promise<{ url: URL; close(): Promise<void> }> {
  const server = createServer(listener);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: new URL(`http://127.0.0.1:${port}/mcp`),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

async function closeBoth(a: { close(): Promise<void> }, b: { close(): Promise<void> }): Promise<void> {
  await a.close();
  await b.close();
}

/**
 * The raw SDK side: in-memory (2025), its one endpoint for every revision, or its bare serving of
 * one, in-process. `sealState: false` gives its 2026-07-28 tool no `requestState` (see `rawServer`).
 */
export async function connectRaw(revision: Revision, way: Way, { sealState = true } = {}): Promise<Connected> {
  const client = newClient(revision);
  const rawServer = () => rawServerOf({ sealState });
  if (way === 'http-socket') {
    const endpoint = rawEndpoint(rawServer);
    const node = toNodeHandler(endpoint);
    const served = await listen((req, res) => void node(req as Parameters<typeof node>[0], res));
    await client.connect(overSocket(served.url));
    return { client, close: () => closeBoth(client, endpoint).then(served.close) };
  }
  if (way === 'http-handler') {
    const endpoint = rawEndpoint(rawServer);
    await client.connect(inProcess((r) => endpoint.fetch(r)));
    return { client, close: () => closeBoth(client, endpoint) };
  }
  if (revision === '2026-07-28') {
    const handler = createMcpHandler(() => rawServer());
    await client.connect(inProcess((r) => handler.fetch(r)));
    return { client, close: () => closeBoth(client, handler) };
  }
  const server = rawServer();
  if (way === 'sdk') {
    const [a, b] = InMemoryTransport.createLinkedPair();
    await server.connect(a);
    await client.connect(b);
  } else {
    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: () => crypto.randomUUID() });
    await server.connect(transport);
    await client.connect(inProcess((r) => transport.handleRequest(r)));
  }
  return { client, close: () => closeBoth(client, server) };
}

/** The ask() side: the same connections as raw, or behind createHttpHandler. */
export async function connectOurs(revision: Revision, way: Way): Promise<Connected> {
  const client = newClient(revision);
  if (way === 'http-socket') {
    const handler = createHttpHandler(() => kitServer());
    const served = await listen(toNodeListener(handler));
    await client.connect(overSocket(served.url));
    return { client, close: () => closeBoth(client, handler).then(served.close) };
  }
  if (way !== 'sdk') {
    const handler = createHttpHandler(() => kitServer());
    await client.connect(inProcess((r) => handler.fetch(r)));
    return { client, close: () => closeBoth(client, handler) };
  }
  if (revision === '2026-07-28') {
    const handler = createMcpHandler(() => kitServer());
    await client.connect(inProcess((r) => handler.fetch(r)));
    return { client, close: () => closeBoth(client, handler) };
  }
  const server = kitServer();
  const [a, b] = InMemoryTransport.createLinkedPair();
  await server.connect(a);
  await client.connect(b);
  return { client, close: () => closeBoth(client, server) };
}

/** One call, timed (wall and this process's CPU), then a yield. */
export async function timedCall(c: { client: Client }): Promise<{ ms: number; cpuMs: number }> {
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

interface Paired {
  ratio: number;
  raw: { ms: number; cpuMs: number };
  ours: { ms: number; cpuMs: number };
}

async function pairs(raw: Connected, ours: Connected, n: number): Promise<Paired[]> {
  const out: Paired[] = [];
  for (let i = 0; i < n; i++) {
    const rawFirst = i % 2 === 0;
    const first = await timedCall(rawFirst ? raw : ours);
    const second = await timedCall(rawFirst ? ours : raw);
    const [r, o] = rawFirst ? [first, second] : [second, first];
    out.push({ ratio: o.ms / r.ms, raw: r, ours: o });
  }
  return out;
}

/**
 * Every revision, in-process and over HTTP, within 1.10× of the raw SDK. The earlier in-process
 * goal of 1.05× is retired (it pulled a hand-written hash and a copy of the SDK transport's
 * checks into the library); its comparison is printed as information beside each in-process line.
 */
const GOAL = 1.1;
const RETIRED = 1.05;
const ALL_LINES: { revision: Revision; way: Way; label: string }[] = [
  { revision: '2025-06-18', way: 'sdk', label: 'ask() 2025-06-18 (push, in-memory)' },
  { revision: '2025-11-25', way: 'sdk', label: 'ask() 2025-11-25 (push, in-memory)' },
  { revision: '2026-07-28', way: 'sdk', label: 'ask() 2026-07-28 (input_required, in-process)' },
  { revision: '2025-06-18', way: 'http-handler', label: 'ask() 2025-06-18 behind createHttpHandler' },
  { revision: '2025-11-25', way: 'http-handler', label: 'ask() 2025-11-25 behind createHttpHandler' },
  { revision: '2026-07-28', way: 'http-handler', label: 'ask() 2026-07-28 behind createHttpHandler' },
  { revision: '2025-06-18', way: 'http-socket', label: 'ask() 2025-06-18 over loopback HTTP' },
  { revision: '2025-11-25', way: 'http-socket', label: 'ask() 2025-11-25 over loopback HTTP' },
  { revision: '2026-07-28', way: 'http-socket', label: 'ask() 2026-07-28 over loopback HTTP' },
];
/** `BENCH_ASK_LINES` picks lines by `<revision>-<sdk|http|socket>`, e.g. `2025-11-25-sdk,2026-07-28-socket`. */
const picked = process.env.BENCH_ASK_LINES?.split(',').map((s) => s.trim());
const KEYS: Record<Way, string> = { sdk: 'sdk', 'http-handler': 'http', 'http-bare': 'bare', 'http-socket': 'socket' };
const LINES = ALL_LINES.filter((l) => !picked || picked.includes(`${l.revision}-${KEYS[l.way]}`));

/** `ours` against another raw side, one run after a short warm-up, for information. */
async function against(other: Connected, ours: Connected): Promise<string> {
  await pairs(other, ours, Math.min(WARMUP, 500));
  const run = await pairs(other, ours, PAIRS);
  await other.close();
  return `${p50(run.map((p) => p.ratio)).toFixed(3)}× (paired p50, one run; IQR ${iqr(run.map((p) => p.ratio))})`;
}

export async function askOverhead(): Promise<void> {
  console.log(
    `\nask() against the raw SDK, same work (${PAIRS} pairs × ${REPEATS} runs per line after ${WARMUP} warm-up pairs, order alternating)`,
  );
  for (const line of LINES) {
    const raw = await connectRaw(line.revision, line.way);
    const ours = await connectOurs(line.revision, line.way);
    // Warm-up until both sides run optimized code: over the first ~3,000 calls both get 2–3× faster
    // and the ratio falls (2025 in-memory: 1.18 → 1.06), so a short warm-up measures how much code
    // the JIT has to compile rather than what a call costs.
    await pairs(raw, ours, WARMUP);
    const runs: Paired[][] = [];
    for (let r = 0; r < REPEATS; r++) runs.push(await pairs(raw, ours, PAIRS));
    await raw.close();
    // For information: the raw SDK's bare serving of one revision, which does less than either
    // endpoint (no Host check, no routing, no session lookup) — the part of the gap that is serving
    // several revisions on one URL; and on 2026-07-28 a raw tool that keeps no requestState.
    const bare =
      line.way === 'http-handler' ? await against(await connectRaw(line.revision, 'http-bare'), ours) : undefined;
    const stateless =
      line.revision === '2026-07-28'
        ? await against(await connectRaw(line.revision, line.way, { sealState: false }), ours)
        : undefined;
    await ours.close();
    const all = runs.flat();
    const perRun = runs.map((run) => p50(run.map((p) => p.ratio)));
    const ratio = p50(all.map((p) => p.ratio));
    const cpuRaw = all.reduce((s, p) => s + p.raw.cpuMs, 0) / all.length;
    const cpuOurs = all.reduce((s, p) => s + p.ours.cpuMs, 0) / all.length;
    console.log(
      `  ${line.label}: raw p50 ${p50(all.map((p) => p.raw.ms)).toFixed(3)} ms, ask() p50 ${p50(all.map((p) => p.ours.ms)).toFixed(3)} ms; CPU/call raw ${cpuRaw.toFixed(3)} ms, ask() ${cpuOurs.toFixed(3)} ms (${(cpuOurs / cpuRaw).toFixed(2)}×)`,
    );
    const figure = `${ratio.toFixed(3)}× (paired p50; per-run p50s ${perRun.map((x) => x.toFixed(3)).join(', ')}; IQR ${iqr(all.map((p) => p.ratio))})`;
    report({ goal: `${line.label} ≤ ${GOAL.toFixed(2)}× raw SDK`, figure, pass: ratio <= GOAL });
    if (bare)
      report({ goal: `${line.label} against the SDK's bare serving of one revision`, figure: bare, pass: 'info' });
    if (stateless)
      report({
        goal: `${line.label} against a raw tool that keeps no requestState (takes answers it never asked for)`,
        figure: stateless,
        pass: 'info',
      });
    if (line.way === 'sdk')
      report({
        goal: `${line.label} against the retired ${RETIRED.toFixed(2)}×`,
        figure: `${ratio.toFixed(3)}× (${ratio <= RETIRED ? 'within' : 'over'} it)`,
        pass: 'info',
      });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await askOverhead();
