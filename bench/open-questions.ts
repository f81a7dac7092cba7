/**
 * What one open question costs the server's heap, against the raw SDK holding the same question
 * (issue 31, goal 1: ≤ 1.0×). `openQuestions()` reports one line per revision (as every part of
 * `run.ts` does); it also runs alone.
 *
 * 2025-11-25: N clients (`BENCH_OPEN`, default 1000) each open a session over real loopback HTTP
 * and call a one-question tool; nobody answers. The server runs in this process, the clients in a
 * child (`support/open-question-client.ts`), so the heap measured is the server's alone: its
 * growth after a full GC, from just before the clients start to once every question has arrived,
 * divided by N. What that includes is what a real server holds for a waiting person: the session
 * (its `McpServer`, transport, GET stream) and the call (its POST's response stream, the pending
 * `elicitation/create`, its timer), sockets and HTTP objects included. Both servers are in
 * `support/open-question-servers.ts`: the raw SDK's endpoint as its docs compose it (the raw side of
 * `ask-overhead.ts`'s socket lines, `elicitInput`) and `createHttpHandler` + `ask()` with the same
 * form, each on its own `node:http` server. Real sockets rather than an in-memory pair: the HTTP
 * session, its streams and the handler's watch of them are what an open question holds on a real
 * deployment, and the in-memory transport has no sessions at all.
 *
 * 2026-07-28: one client makes N calls whose first round ends with `input_required`, and never
 * sends the second: what the server holds per call between rounds (the raw SDK's `inputRequired`
 * pattern against `ask()`). The call's state travels in the result, so neither side should hold
 * anything for it; what a side keeps in a bounded cache (the kit: its last 64 sealed states, about
 * 70 KB in all) is not per call, and shows over all N only as that much divided by N. So the verdict
 * is on the second half alone: each round reads the heap once half the questions are open
 * (`HALF`), and what the other half add, per call, is what one more pending call holds. Both
 * sides hold about nothing, and the heap spaces' used size swings by tens of bytes per call from
 * round to round (free space, fragmentation), so the verdict is on a census instead
 * (`support/heap-census.ts`: the objects a heap snapshot holds, code left out), taken at `HALF`
 * and at N in rounds of their own: the kit passes while each further call leaves under a quarter
 * of an object and 32 B more than the raw SDK's. The heap spaces' figures are printed beside it.
 *
 * Each round runs both sides, the order alternating from round to round, on fresh servers (and a
 * fresh kit: nothing an earlier round left in it hides what it keeps); the figure is the median of
 * the per-round ratios (or differences), after one unmeasured warm-up round per side. The GC is
 * forced (`--expose-gc`, or enabled at run time when run from `run.ts`).
 *
 *   node --expose-gc --import tsx bench/open-questions.ts
 *   BENCH_OPEN=1000 BENCH_OPEN_ROUNDS=5 BENCH_OPEN_LINES=2025-11-25,2026-07-28 (defaults)
 *   BENCH_OPEN_KIT=node_modules/.ek-builds/before   (the kit side on another build's dist: before/after)
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { getHeapSpaceStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { type Census, census } from './support/heap-census.js';
import { iqr, p50, quantile, report } from './support/stats.js';

const N = Number(process.env.BENCH_OPEN ?? 1000);
/** Where each round stops once to read the heap: the second half measures what one more question adds. */
const HALF = Math.floor(N / 2);
const ROUNDS = Number(process.env.BENCH_OPEN_ROUNDS ?? 5);
const LINES = (process.env.BENCH_OPEN_LINES ?? '2025-11-25,2026-07-28').split(',').map((s) => s.trim());
const GOAL = 1.0;
/** The least a 2026-07-28 difference must exceed to count as held, in bytes per call. */
const NOISE_FLOOR = 64;

/**
 * Census rounds per side (2026-07-28), after the heap-space rounds. A call that left anything
 * alive shows as at least one object per call; the rounds' own noise is a few dozen objects in
 * all, a few hundredths per call. So the kit passes while it leaves under a quarter of an object
 * per call more than the raw SDK, and under 32 B (less than any object with a field or two).
 */
const CENSUS_ROUNDS = 3;
const CENSUS_OBJECTS = 0.25;
const CENSUS_BYTES = 32;

const perCall = (c: Census) => `${c.objects.toFixed(2)}/${c.bytes.toFixed(0)}`;

type Revision = '2025-11-25' | '2026-07-28';
type Side = 'raw' | 'kit';

/**
 * `globalThis.gc`, or one enabled now (run.ts runs without --expose-gc). Bytecode flushing is
 * turned off while this part runs (`openQuestions` turns it on again): a full GC otherwise drops
 * the bytecode of functions not run lately, and that swings the heap by 1–2 KiB per question from
 * one round to the next, on either side.
 */
function collector(): () => void {
  setFlagsFromString('--no-flush-bytecode');
  const exposed = (globalThis as { gc?: () => void }).gc;
  if (exposed) return exposed;
  setFlagsFromString('--expose-gc');
  return runInNewContext('gc') as () => void;
}

async function heap(gc: () => void): Promise<number> {
  // Several passes, with the loop turning between them: finalizers and weak callbacks run, and
  // what they release goes in the next pass.
  for (let i = 0; i < 4; i++) {
    gc();
    await new Promise((resolve) => setImmediate(resolve));
  }
  // Compiled code left out: the JIT optimizing (and dropping) code as a round goes swings it by
  // hundreds of bytes per question either way, on both sides, and it is no question's.
  let used = 0;
  for (const space of getHeapSpaceStatistics()) if (!space.space_name.startsWith('code')) used += space.space_used_size;
  return used;
}

/** The clients of one round, in their own process. */
interface Clients {
  /** Resolves once `count` questions have arrived (`HALF`, where they wait, or all `N`). */
  reached(count: number): Promise<void>;
  /** The clients waiting at `HALF` go on. */
  resume(): void;
  /** They leave (their process exits, every question open), and are gone. */
  end(): Promise<void>;
}

function spawnClients(url: string, revision: Revision): Clients {
  const script = fileURLToPath(new URL('./support/open-question-client.ts', import.meta.url));
  const child = spawn(process.execPath, ['--import', 'tsx', script, url, String(N), revision, String(HALF)], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  let out = '';
  const waiting: { count: number; resolve: () => void }[] = [];
  child.stdout.on('data', (chunk: Buffer) => {
    out += chunk.toString();
    for (const w of waiting.splice(0)) {
      if (out.includes(`asked ${w.count}\n`)) w.resolve();
      else waiting.push(w);
    }
  });
  return {
    reached: (count) =>
      new Promise<void>((resolve, reject) => {
        if (out.includes(`asked ${count}\n`)) return resolve();
        waiting.push({ count, resolve });
        void exited.then((code) => reject(new Error(`the clients exited with ${code} before asking ${count}`)));
      }),
    resume: () => void child.stdin.write('go\n'),
    async end() {
      child.stdin.end();
      await exited;
    },
  };
}

/** Heap held per open question on one side, all of them and the second half alone (see the top). */
interface Held {
  all: number;
  further: number;
  /** Per call of the second half, by heap census (a round run with one): objects and their bytes. */
  counted?: Census;
}

/**
 * One side, one round: a fresh server, the baseline, half the questions, the heap, the other half,
 * the heap again.
 */
async function round(side: Side, revision: Revision, gc: () => void, counting = false): Promise<Held> {
  const { serveKit, serveRaw } = await import('./support/open-question-servers.js');
  const served = side === 'raw' ? await serveRaw() : await serveKit(N + 100);
  const start = await heap(gc);
  const clients = spawnClients(served.url, revision);
  await clients.reached(HALF);
  const half = await heap(gc);
  const halfCensus = counting ? await census() : undefined;
  clients.resume();
  await clients.reached(N);
  const all = await heap(gc);
  const allCensus = counting ? await census() : undefined;
  await clients.end();
  await served.close();
  const held: Held = { all: (all - start) / N, further: (all - half) / (N - HALF) };
  if (halfCensus && allCensus)
    held.counted = {
      objects: (allCensus.objects - halfCensus.objects) / (N - HALF),
      bytes: (allCensus.bytes - halfCensus.bytes) / (N - HALF),
    };
  return held;
}

const kib = (bytes: number) => `${(bytes / 1024).toFixed(2)} KiB`;

export async function openQuestions(): Promise<void> {
  const gc = collector();
  console.log(
    `\nheap held per open question, server side (${N} per round, ${ROUNDS} rounds after a warm-up, sides alternating${process.env.BENCH_OPEN_KIT ? `; ask() on ${process.env.BENCH_OPEN_KIT}` : ''})`,
  );
  try {
    for (const revision of LINES as Revision[]) await measure(revision, gc);
  } finally {
    // As it was for whatever runs next in this process (run.ts).
    setFlagsFromString('--flush-bytecode');
  }
}

/** One revision's line: a warm-up round per side, then `ROUNDS` paired rounds. */
async function measure(revision: Revision, gc: () => void): Promise<void> {
  await round('raw', revision, gc);
  await round('kit', revision, gc);
  const raw: Held[] = [];
  const kit: Held[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    const order: Side[] = r % 2 === 0 ? ['raw', 'kit'] : ['kit', 'raw'];
    for (const side of order) (side === 'raw' ? raw : kit).push(await round(side, revision, gc));
  }
  const list = (held: Held[], unit: 'KiB' | 'B') =>
    held.map((h) =>
      unit === 'KiB' ? `${(h.all / 1024).toFixed(2)}` : `${Math.round(h.all)}/${Math.round(h.further)}`,
    );
  if (revision === '2025-11-25') {
    console.log(
      `  ${revision}, KiB per question: raw SDK ${list(raw, 'KiB').join(', ')}; ask() ${list(kit, 'KiB').join(', ')}`,
    );
    const ratios = kit.map((k, i) => k.all / (raw[i] as Held).all);
    const ratio = p50(ratios);
    const further = p50(kit.map((k) => k.further)) / p50(raw.map((r) => r.further));
    report({
      goal: `heap per open 2025-11-25 question ≤ ${GOAL.toFixed(1)}× raw SDK (${N} open, after GC)`,
      figure: `${ratio.toFixed(2)}× (${kib(p50(kit.map((k) => k.all)))} vs ${kib(p50(raw.map((r) => r.all)))}; paired p50 of ${ROUNDS} rounds, IQR ${iqr(ratios)}; the second ${N - HALF} alone ${further.toFixed(2)}×)`,
      pass: ratio <= GOAL,
    });
  } else {
    console.log(
      `  ${revision}, B per pending call (all/second half): raw SDK ${list(raw, 'B').join(', ')}; ask() ${list(kit, 'B').join(', ')}`,
    );
    const differences = kit.map((k, i) => k.further - (raw[i] as Held).further);
    const difference = p50(differences);
    const rawFurther = raw.map((r) => r.further);
    const noise = Math.max(NOISE_FLOOR, quantile(rawFurther, 0.75) - quantile(rawFurther, 0.25));
    // The census rounds: what each further call left alive, counted object by object.
    const counted = { raw: [] as Census[], kit: [] as Census[] };
    for (let r = 0; r < CENSUS_ROUNDS; r++) {
      const order: Side[] = r % 2 === 0 ? ['kit', 'raw'] : ['raw', 'kit'];
      for (const side of order) counted[side].push((await round(side, revision, gc, true)).counted as Census);
    }
    console.log(
      `  ${revision}, objects/B per further call by census: raw SDK ${counted.raw.map(perCall).join(', ')}; ask() ${counted.kit.map(perCall).join(', ')}`,
    );
    const held = p50(counted.kit.map((k, i) => k.bytes - (counted.raw[i] as Census).bytes));
    const more = p50(counted.kit.map((k, i) => k.objects - (counted.raw[i] as Census).objects));
    report({
      goal: `heap held per pending 2026-07-28 call between rounds ≤ raw SDK's (after GC)`,
      figure:
        `${more.toFixed(2)} objects and ${held.toFixed(1)} B more per further call by census (paired p50 of ${CENSUS_ROUNDS}; ${p50(counted.kit.map((c) => c.objects)).toFixed(2)} vs ${p50(counted.raw.map((c) => c.objects)).toFixed(2)} objects per call);` +
        ` heap spaces: ${Math.round(p50(kit.map((k) => k.further)))} B vs ${Math.round(p50(rawFurther))} B (paired difference p50 ${Math.round(difference)} B, noise ${Math.round(noise)} B); over all ${N}: ${Math.round(p50(kit.map((k) => k.all)))} B vs ${Math.round(p50(raw.map((r) => r.all)))} B`,
      pass: more <= CENSUS_OBJECTS && held <= CENSUS_BYTES,
    });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  await openQuestions();
  process.exit(0);
}
