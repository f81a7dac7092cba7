/**
 * Sequential ask round trips over loopback HTTP: opsdesk (`elicitkit serve --http`) against a raw
 * SDK HTTP server doing the same tool work (bench/support/raw-http-server.mjs, on a copy of the
 * same data directory). One 2025-11-25 client each; each pair is one deploy_service call to each,
 * back to back, order alternating, a yield after every call; the figure is the p50 of the
 * per-pair ratios (opsdesk / raw).
 *
 *   BENCH_HTTP_PAIRS=300 (default)
 */
import { spawn } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { cpuMsOf, serveOpsdesk } from './support/opsdesk-http.js';
import { iqr, p50, report, yieldToLoop } from './support/stats.js';

const PAIRS = Number(process.env.BENCH_HTTP_PAIRS ?? 300);
const WARMUP = Number(process.env.BENCH_HTTP_WARMUP ?? 30);

async function serveRaw(dataDir: string) {
  const child = spawn(
    process.execPath,
    [
      // The same knob as opsdesk's (support/opsdesk-http.ts): both servers profiled alike.
      ...(process.env.BENCH_SERVER_NODE_ARGS?.split(' ').filter(Boolean) ?? []),
      fileURLToPath(new URL('support/raw-http-server.mjs', import.meta.url)),
      dataDir,
    ],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  let out = '';
  child.stdout.setEncoding('utf8');
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout.on('data', (chunk: string) => {
      out += chunk;
      const m = /serving (\S+)/.exec(out);
      if (m?.[1]) resolve(m[1]);
    });
    child.once('exit', (code) => reject(new Error(`raw server exited with ${code}`)));
  });
  return {
    url,
    cpuMs: () => cpuMsOf(child.pid ?? 0),
    async stop() {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    },
  };
}

async function connect(url: string, token: string): Promise<Client> {
  const client = new Client({ name: 'seq', version: '1' }, { capabilities: { elicitation: { form: {} } } });
  client.setRequestHandler('elicitation/create', async () => ({ action: 'accept', content: { env: 'dev' } }));
  await client.connect(
    new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { authorization: `Bearer ${token}` } } }),
  );
  return client;
}

async function timed(client: Client): Promise<number> {
  const started = performance.now();
  const r = await client.callTool({ name: 'deploy_service', arguments: { service: 'order-service' } });
  const ms = performance.now() - started;
  if ((r.structuredContent as { status?: string } | undefined)?.status !== 'done')
    throw new Error(`unexpected result ${JSON.stringify(r)}`);
  await yieldToLoop();
  return ms;
}

export async function httpSequential(): Promise<void> {
  console.log(`\nSequential ask round trips over loopback HTTP (${PAIRS} pairs, order alternating)`);
  const opsDir = mkdtempSync(join(tmpdir(), 'ek-bench-seq-'));
  const rawDir = mkdtempSync(join(tmpdir(), 'ek-bench-seq-raw-'));
  const opsdesk = await serveOpsdesk(opsDir);
  cpSync(opsDir, rawDir, { recursive: true }); // the same users, tokens and services
  const raw = await serveRaw(rawDir);
  const token = opsdesk.tokens.alice ?? '';
  const a = await connect(opsdesk.url, token);
  const b = await connect(raw.url, token);
  try {
    for (let i = 0; i < WARMUP; i++) {
      await timed(a);
      await timed(b);
    }
    // Server CPU over the measured calls: less disturbed by other load on the machine than wall time.
    const cpuBefore = { raw: raw.cpuMs(), ours: opsdesk.cpuMs() };
    const ratios: number[] = [];
    const ours: number[] = [];
    const base: number[] = [];
    for (let i = 0; i < PAIRS; i++) {
      const rawFirst = i % 2 === 0;
      const first = await timed(rawFirst ? b : a);
      const second = await timed(rawFirst ? a : b);
      const [r, o] = rawFirst ? [first, second] : [second, first];
      ours.push(o);
      base.push(r);
      ratios.push(o / r);
    }
    const cpu = { raw: (raw.cpuMs() - cpuBefore.raw) / PAIRS, ours: (opsdesk.cpuMs() - cpuBefore.ours) / PAIRS };
    const ratio = p50(ratios);
    console.log(`  raw SDK p50 ${p50(base).toFixed(2)} ms, opsdesk p50 ${p50(ours).toFixed(2)} ms`);
    console.log(
      `  server CPU per call: raw SDK ${cpu.raw.toFixed(2)} ms, opsdesk ${cpu.ours.toFixed(2)} ms (${(cpu.ours / cpu.raw).toFixed(2)}×)`,
    );
    report({
      goal: 'sequential HTTP round trip, opsdesk ≤ 1.10× raw SDK server',
      figure: `${ratio.toFixed(3)}× (p50 of ${PAIRS} paired ratios, IQR ${iqr(ratios)})`,
      pass: ratio <= 1.1,
    });
  } finally {
    await a.close().catch(() => {});
    await b.close().catch(() => {});
    await opsdesk.stop();
    await raw.stop();
    rmSync(opsDir, { recursive: true, force: true });
    rmSync(rawDir, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await httpSequential();
