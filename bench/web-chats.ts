/**
 * What does a chat cost the web app? 500 browsers each open a chat (GET /api/chat/info), list the
 * tools (GET /api/tools: the chat's MCP client connects to the one bundled opsdesk) and then sit
 * idle; then each starts a turn that asks a question and leaves it open. The route handlers run
 * in this process with opsdesk in it, as `npm start` runs them, so this process's memory plus its
 * children's (opsdesk's shop process, when it runs; not tsx's esbuild) is the web app + opsdesk.
 * Goals (issue 31): ≤ 40 KB per idle chat, ≤ 100 KB per chat with a question open (everything
 * that chat holds, its idle share included).
 *
 *   npm run bench:chats           # node --expose-gc --import tsx bench/web-chats.ts
 *   BENCH_CHATS=200 …             # how many chats (500)
 *   BENCH_CHATS_SNAPSHOTS=/tmp/s  # also writes a heap snapshot at each point measured
 *
 * How it is measured, and why:
 * - **Per chat, not per process.** Before the baseline ten chats go through everything once (open,
 *   list, ask, answer, turn end) and stay open: that starts opsdesk, compiles the code paths and
 *   lets V8 size its young generation (32 MB of RSS that comes once, whatever the number of chats).
 *   Measured from the first chat alone, as this bench did before, those one-time costs were divided
 *   among the chats and read as per-chat memory: most of the 68 KB per idle chat it reported (the
 *   code it measured is 25–27 KB here). Then each figure is a slope: what the second half of the
 *   chats added, per chat (idle: the last half's opening; with a question: that, plus what the
 *   last half's questions added). What the first half still settles (the last compilations, the
 *   allocator's pools) stays out of it. Fewer chats, a noisier slope (at 200, ±10 KB in RSS).
 * - **After a full GC** (`--expose-gc`), compacting; RSS read five times (see `measure`).
 * - **RSS and the heap, both**: this process's RSS plus its children's is memory as the machine
 *   sees it, including what lives outside the V8 heap; `heapUsed` counts live objects only. At
 *   this scale RSS alone is too noisy to decide: in about one run of three, 15–20 MB leaves the
 *   process between two points while every V8 heap space stays as it was (memory outside the
 *   heap handed back, none of it a chat's), 60–80 KB per chat over 250 chats; the heap's figures
 *   repeat to within 1–2 KB. So each slope's verdict takes the larger of the two: a release
 *   inside it cannot pass chats that hold more live objects than the goal, and what a chat holds
 *   outside the heap still counts. Over six runs of 500 chats: 15–21 KB per idle chat (heap
 *   13–14 KB), 47–56 KB per chat with a question open (heap 45 KB).
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { setFlagsFromString, writeHeapSnapshot } from 'node:v8';
import { report } from './support/stats.js';

const IDLE_GOAL_KB = 40;
const ASKING_GOAL_KB = 100;
const WARM_CHATS = 10;

type Handler = (request: Request, ctx?: { params: Promise<{ id: string }> }) => Promise<Response>;

interface Memory {
  rss: number;
  children: number;
  heapUsed: number;
}

/**
 * The RSS of this process's children: opsdesk's shop process when it runs. Not tsx's esbuild
 * service (`esbuild --service`), which compiles this bench's TypeScript and comes and goes with
 * it (12 MB, at a baseline or not): no part of the web app, which `npm start` runs without it.
 */
function childrenRss(): number {
  let total = 0;
  for (const task of readdirSync('/proc/self/task')) {
    for (const pid of readFileSync(`/proc/self/task/${task}/children`, 'utf8').trim().split(/\s+/).filter(Boolean)) {
      try {
        const argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
        if (/(^|\/)esbuild$/.test(argv[0] ?? '') && argv.some((a) => a.startsWith('--service'))) continue;
        const line = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
        total += Number(line?.[1] ?? 0) * 1024;
      } catch {
        // It ended while being read.
      }
    }
  }
  return total;
}

async function measure(gc: () => void, snapshots: string | undefined, name: string): Promise<Memory> {
  // The measuring collections compact (only they: the chats run under V8's defaults). A plain full
  // GC frees dead objects but leaves the old generation's pages partly used, more or fewer of them
  // from run to run (10–13 MB at 500 chats).
  setFlagsFromString('--compact-on-every-full-gc');
  const readings: number[] = [];
  for (let i = 0; i < 5; i++) {
    gc();
    await new Promise((resolve) => setTimeout(resolve, 200));
    useYoungGeneration();
    readings.push(process.memoryUsage().rss);
  }
  gc();
  setFlagsFromString('--no-compact-on-every-full-gc');
  const { heapUsed } = process.memoryUsage();
  // After a GC, V8 at times hands the young generation's pages back (up to 16 MB, none of it a
  // chat's) and takes them again as allocation resumes. Each reading follows 32 MB of short-lived
  // allocations, so the young generation is back in use; the second-highest of five readings is
  // kept, so one reading taken with its pages out (or one brief rise) does not count.
  const rss = readings.sort((a, b) => a - b)[3] as number;
  const memory = { rss, children: childrenRss(), heapUsed };
  // After the figures: writing a snapshot grows RSS by the snapshot's own working memory.
  if (snapshots) writeHeapSnapshot(join(snapshots, `web-chats-${name}.heapsnapshot`));
  return memory;
}

/** About 32 MB of objects that die young: every page of the young generation is used again. */
function useYoungGeneration(): void {
  let junk: { n: number }[] = [];
  for (let n = 0; n < 2_000_000; n++) {
    junk.push({ n });
    if (junk.length > 1000) junk = [];
  }
}

interface Browser {
  cookie: string;
  csrf: string;
}

/** Reads a chat stream's SSE chunks one at a time. */
function chunks(reader: ReadableStreamDefaultReader<Uint8Array>) {
  const decoder = new TextDecoder();
  let buffer = '';
  return async (): Promise<Record<string, unknown> | undefined> => {
    for (;;) {
      const end = buffer.indexOf('\n\n');
      if (end !== -1) {
        const json = buffer.slice(0, end).replace(/^data: /, '');
        buffer = buffer.slice(end + 2);
        if (json === '[DONE]') return undefined;
        return JSON.parse(json) as Record<string, unknown>;
      }
      const read = await reader.read();
      if (read.done) return undefined;
      buffer += decoder.decode(read.value, { stream: true });
    }
  };
}

/**
 * One run of the bench: its goal lines go to `report` (and so to `bench/run.ts`'s table when it
 * calls this). Needs `--expose-gc`, and its own process or at least the first look at the web app's
 * configuration: the app reads its caps (which must let this many chats open) once.
 */
export async function webChats(): Promise<void> {
  const CHATS = Number(process.env.BENCH_CHATS ?? 500);
  const snapshots = process.env.BENCH_CHATS_SNAPSHOTS || undefined;
  console.log(`\nWeb chats: memory per chat, ${CHATS} chats idle and then each with a question open`);
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) {
    for (const goal of [`idle chat ≤ ${IDLE_GOAL_KB} KB`, `chat with a question open ≤ ${ASKING_GOAL_KB} KB`])
      report({ goal: `web: ${goal}`, figure: 'skipped (run with node --expose-gc)', pass: undefined });
    return;
  }
  const data = mkdtempSync(join(tmpdir(), 'elicitkit-bench-chats-'));
  process.env.ELICITKIT_DATA = data;
  process.env.ELICITKIT_MAX_CHATS_PER_ADDRESS = String(CHATS + WARM_CHATS + 10);
  process.env.ELICITKIT_MAX_CHATS = String(CHATS + WARM_CHATS + 10);

  // The web app's modules are Next.js sources (extensionless imports): load them through tsx at
  // run time rather than through this folder's typecheck.
  const web = (path: string) => import(new URL(`../apps/web/${path}`, import.meta.url).href);
  const { GET: getChatInfo } = (await web('app/api/chat/info/route.ts')) as { GET: Handler };
  const { GET: getTools } = (await web('app/api/tools/route.ts')) as { GET: Handler };
  const { POST: postChat } = (await web('app/api/chat/route.ts')) as { POST: Handler };
  const { POST: postAnswer } = (await web('app/api/elicitations/[id]/route.ts')) as { POST: Handler };
  const { resetState } = (await web('lib/state.ts')) as { resetState: () => Promise<void> };
  const { stopOpsdesk } = (await web('lib/opsdesk.ts')) as { stopOpsdesk: () => Promise<void> };
  const { config } = (await web('lib/config.ts')) as { config: () => { maxChats: number } };

  async function open(i: number): Promise<Browser> {
    const address = `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`;
    const response = await getChatInfo(
      new Request('http://localhost/api/chat/info', { headers: { 'x-forwarded-for': address } }),
    );
    if (response.status !== 200) throw new Error(`chat ${i}: ${response.status} ${await response.text()}`);
    const cookie = (response.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
    const { csrf } = (await response.json()) as { csrf: string };
    const tools = await getTools(new Request('http://localhost/api/tools', { headers: { cookie } }));
    if (tools.status !== 200) throw new Error(`chat ${i} tools: ${tools.status}`);
    await tools.arrayBuffer();
    return { cookie, csrf };
  }

  /** Starts a turn that asks; returns once the question is open in the stream (which stays open). */
  async function ask(b: Browser) {
    const response = await postChat(
      new Request('http://localhost/api/chat', {
        method: 'POST',
        headers: { cookie: b.cookie, 'x-elicitkit-csrf': b.csrf, 'content-type': 'application/json' },
        body: JSON.stringify({
          messages: [
            { id: 'm1', role: 'user', parts: [{ type: 'text', text: '/deploy_service service=order-service' }] },
          ],
        }),
      }),
    );
    if (response.status !== 200) throw new Error(`turn refused: ${response.status} ${await response.text()}`);
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    const next = chunks(reader);
    for (;;) {
      const chunk = await next();
      if (!chunk) throw new Error('the chat stream ended without a question');
      const d = chunk.data as { status?: string; id?: string } | undefined;
      if (chunk.type === 'data-elicitation' && d?.status === 'open') return { reader, next, id: String(d.id) };
    }
  }

  const readers: ReadableStreamDefaultReader<Uint8Array>[] = [];
  try {
    if (config().maxChats < CHATS + WARM_CHATS) {
      for (const goal of [`idle chat ≤ ${IDLE_GOAL_KB} KB`, `chat with a question open ≤ ${ASKING_GOAL_KB} KB`])
        report({ goal: `web: ${goal}`, figure: 'skipped (the app read its caps earlier: run alone)', pass: undefined });
      return;
    }
    // Warm-up, not measured: opsdesk starts, every path of a turn runs, the heap takes its working size.
    for (let i = 0; i < WARM_CHATS; i++) {
      const b = await open(-1 - i);
      const asked = await ask(b);
      const answered = await postAnswer(
        new Request(`http://localhost/api/elicitations/${asked.id}`, {
          method: 'POST',
          headers: { cookie: b.cookie, 'x-elicitkit-csrf': b.csrf, 'content-type': 'application/json' },
          body: JSON.stringify({ action: 'cancel' }),
        }),
        { params: Promise.resolve({ id: asked.id }) },
      );
      if (answered.status !== 200) throw new Error(`warm-up answer: ${answered.status}`);
      while (await asked.next()) {}
    }
    const base = await measure(gc, snapshots, 'base');
    // Each figure is a slope over the second half of the chats (see the top of this file).
    const half = Math.floor(CHATS / 2);
    const browsers: Browser[] = [];
    for (let i = 0; i < half; i++) browsers.push(await open(i));
    const idleHalf = await measure(gc, snapshots, 'idle-half');
    for (let i = half; i < CHATS; i++) browsers.push(await open(i));
    const idle = await measure(gc, snapshots, 'idle');
    for (const b of browsers.slice(0, half)) readers.push((await ask(b)).reader);
    const askingHalf = await measure(gc, snapshots, 'asking-half');
    for (const b of browsers.slice(half)) readers.push((await ask(b)).reader);
    const asking = await measure(gc, snapshots, 'asking');

    const mb = (bytes: number) => (bytes / 1024 / 1024).toFixed(1);
    const total = (m: Memory) => m.rss + m.children;
    /** KB per chat that `to` holds beyond `from`, over `n` chats. */
    const per = (from: Memory, to: Memory, n: number) => ({
      rss: (total(to) - total(from)) / n / 1024,
      heap: (to.heapUsed - from.heapUsed) / n / 1024,
    });
    const idleChat = per(idleHalf, idle, CHATS - half);
    const question = per(askingHalf, asking, CHATS - half);
    /** What a slope's verdict reads: the larger of its two figures (see the top of this file). */
    const kept = (f: { rss: number; heap: number }) => Math.max(f.rss, f.heap);
    console.log(
      `  Node ${process.version}, ${CHATS} chats after ${WARM_CHATS} warm-up chats; baseline RSS ${mb(base.rss)} MB + children ${mb(base.children)} MB, heap used ${mb(base.heapUsed)} MB`,
    );
    const line = (label: string, now: Memory) => {
      const all = per(base, now, CHATS);
      console.log(
        `  ${label.padEnd(40)} RSS ${mb(now.rss)} MB (+children ${mb(now.children)} MB), heap used ${mb(now.heapUsed)} MB: over the baseline ${all.rss.toFixed(0)} KB RSS, ${all.heap.toFixed(0)} KB heap per chat`,
      );
    };
    line(`${CHATS} chats open, tools listed, idle`, idle);
    line('… and each with one question open', asking);
    console.log(
      `  the last ${CHATS - half} chats: ${idleChat.rss.toFixed(0)} KB RSS (${idleChat.heap.toFixed(0)} KB heap) each idle, and ${question.rss.toFixed(0)} KB RSS (${question.heap.toFixed(0)} KB heap) more each with its question open`,
    );
    const goal = (name: string, figure: number, rss: number, heap: number, limit: number) =>
      report({
        goal: `web: ${name} ≤ ${limit} KB (after full GC, web app + opsdesk)`,
        figure: `${figure.toFixed(0)} KB per chat (RSS ${rss.toFixed(0)} KB, heap used ${heap.toFixed(0)} KB; the last ${CHATS - half} of ${CHATS} chats)`,
        pass: figure <= limit,
      });
    goal('idle chat', kept(idleChat), idleChat.rss, idleChat.heap, IDLE_GOAL_KB);
    goal(
      'chat with a question open',
      kept(idleChat) + kept(question),
      idleChat.rss + question.rss,
      idleChat.heap + question.heap,
      ASKING_GOAL_KB,
    );
  } finally {
    for (const r of readers) await r.cancel().catch(() => undefined);
    await resetState();
    await stopOpsdesk();
    rmSync(data, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await webChats();
