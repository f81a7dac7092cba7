/**
 * What does a second replica cost a person's answer?
 *
 * Answer → result: the time from the client handing its answer to the SDK to the tool's result
 * arriving, for a one-question tool whose effect is committed. Two deployments, both behind the
 * same tiny HTTP balancer (test/support/round-robin-proxy.ts), driven by real SDK clients
 * (support/replicas-setup.ts):
 *
 * - one process: one `createHttpHandler`, memory claims, no Redis;
 * - two replicas: two handlers (own kit, own Redis connections, one shared key), Redis claims and
 *   the Redis relay. On 2025-11-25 the session lives on the first and every later request goes to
 *   the second (the answer and the result are relayed both ways), once with the relay through
 *   Redis and once on direct connections between the replicas (`direct`); on 2026-07-28 the
 *   rounds alternate between them.
 *
 * Beside each pair, one sample of what the medium alone costs on that path (`redisFloor`: two
 * PUBLISH hops for 2025, three claim calls for 2026; `directFloor`: the same two hops on a TCP
 * connection), so the run also says the best ratio a relay or claim store on it could reach, and
 * how much of the gap is ours.
 *
 * Pairs are interleaved (one call on each, order alternating), with a macrotask yield between
 * calls, after warm-up pairs (300: the relay's path — zod, ioredis, the sealing — is compiled by
 * then; after 20, as this bench once warmed, both sides ran 2–3× slower); the verdict (PASS at ≤ 1.2) is the median of the per-pair ratios, and the ratio of the
 * medians is printed beside it. Both deployments run in this process (so the replicas share one
 * event loop: the figure counts Redis and the relay, not a second core). Beside wall time, the CPU
 * each answer cost — this process's (`process.cpuUsage`) and Redis's main thread's
 * (`/proc/<pid>/schedstat`) from the answer to the result — for a loaded machine, where waiting
 * for a core to run on weighs on whichever side waits for Redis more often. It runs the built
 * packages (`dist/`); `npm run bench:replicas` builds first.
 *
 *   npm run bench:replicas                   # 300 pairs per revision
 *   BENCH_PAIRS=100 npm run bench:replicas   # quicker; BENCH_REPLICAS_WARMUP (300) warm-up pairs
 *   BENCH_REPLICAS_REVISIONS=2026-07-28      # one case: 2025-11-25 (through Redis), direct, 2026-07-28
 */
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { redisAvailable } from '../test/support/redis-server.js';
import { type Answered, connectClient, type Revision, startDeployments } from './support/replicas-setup.js';
import { iqr, p50, report, yieldToLoop } from './support/stats.js';

const PAIRS = Number(process.env.BENCH_PAIRS ?? 300);
const WARMUP = Number(process.env.BENCH_REPLICAS_WARMUP ?? 300);
const GOAL = 1.2;
/** What is compared: a revision, and for 2025 whether the relay runs on direct connections. */
interface Case {
  revision: Revision;
  direct: boolean;
  what: string;
  floor: string;
}

const CASES: Case[] = [
  {
    revision: '2025-11-25',
    direct: false,
    what: '2025-11-25 relayed across replicas through Redis',
    floor: "Redis alone on the answer's path, two pub/sub hops (to the holder and back)",
  },
  {
    revision: '2025-11-25',
    direct: true,
    what: '2025-11-25 relayed across replicas on direct connections',
    floor: "TCP alone on the answer's path, the same two hops on one connection",
  },
  {
    revision: '2026-07-28',
    direct: false,
    what: '2026-07-28 rounds alternating between replicas',
    floor: "Redis alone on the answer's path, three claim calls (read, claim, complete)",
  },
].filter(
  (c) =>
    !process.env.BENCH_REPLICAS_REVISIONS ||
    process.env.BENCH_REPLICAS_REVISIONS.split(',').includes(c.direct ? 'direct' : c.revision),
) as Case[];

/** Runs every revision's comparison, a goal line each (and a line of CPU per answer beside it). */
export async function replicas(): Promise<void> {
  if (!redisAvailable()) {
    // Nothing measured is no failure of the goal: a SKIP per case, as the Postgres part says.
    for (const { what } of CASES)
      report({
        goal: `replicas: answer → result ${what} ≤ ${GOAL}× one process`,
        figure: 'redis-server not installed (apt-get install redis-server)',
        pass: undefined,
      });
    passed = true;
    return;
  }
  passed = await compare();
}

/** Whether the last run met the goal on every revision (the exit code when run alone). */
let passed = false;

async function compare(): Promise<boolean> {
  console.log(
    `\nanswer → result, one process vs two replicas (Redis claims + relay), ${PAIRS} interleaved pairs after ${WARMUP} (load average ${loadavg()[0]?.toFixed(2)})`,
  );
  const deployments = await startDeployments();
  let pass = true;
  try {
    for (const { revision, direct, what, floor: floorWhat } of CASES) {
      deployments.resetLegacyRouting();
      const one = await connectClient(deployments.url('one', revision), revision);
      const two = await connectClient(deployments.url('two', revision, direct), revision, deployments.redisPid);
      const ratios: number[] = [];
      const cpuRatios: number[] = [];
      const seen = { one: [] as Answered[], two: [] as Answered[] };
      // Redis alone, sampled once per pair: the best ratio any relay or claim store on it could reach.
      const floors: number[] = [];
      const floorRatios: number[] = [];
      for (let i = 0; i < WARMUP + PAIRS; i++) {
        // Alternate which goes first, so neither always runs on a warmer loop.
        const first = i % 2 === 0 ? one : two;
        const second = first === one ? two : one;
        const a = await first.call();
        await yieldToLoop();
        const b = await second.call();
        await yieldToLoop();
        const floor = direct ? await deployments.directFloor() : await deployments.redisFloor(revision);
        await yieldToLoop();
        if (i < WARMUP) continue;
        const [x, y] = first === one ? [a, b] : [b, a];
        floors.push(floor);
        floorRatios.push((x.wallMs + floor) / x.wallMs);
        seen.one.push(x);
        seen.two.push(y);
        ratios.push(y.wallMs / x.wallMs);
        cpuRatios.push((y.cpuMs + y.redisCpuMs) / (x.cpuMs + x.redisCpuMs));
      }
      await one.close();
      await two.close();
      // The verdict is the median of the per-pair ratios (pairing cancels the machine's drift); the
      // ratio of the medians is printed beside it, since a heavier tail on one side shows there.
      const ratio = p50(ratios);
      const wall = (side: Answered[]) => p50(side.map((s) => s.wallMs));
      const cpu = (side: Answered[]) => p50(side.map((s) => s.cpuMs));
      const redisCpu = (side: Answered[]) => p50(side.map((s) => s.redisCpuMs));
      const ok = ratio <= GOAL;
      pass &&= ok;
      report({
        goal: `replicas: answer → result ${what} ≤ ${GOAL}× one process`,
        figure:
          `${ratio.toFixed(2)}× (p50 of ${ratios.length} paired ratios, IQR ${iqr(ratios)}; ratio of the medians ${(wall(seen.two) / wall(seen.one)).toFixed(2)};` +
          ` ${wall(seen.two).toFixed(2)} vs ${wall(seen.one).toFixed(2)} ms)`,
        pass: ok,
      });
      report({
        goal: `replicas: ${floorWhat}`,
        figure:
          `${p50(floors).toFixed(2)} ms (IQR ${iqr(floors)}): the best reachable is ${p50(floorRatios).toFixed(2)}× one process` +
          ` (its answer plus this, paired); our relay and claim code add ${(ratio - p50(floorRatios)).toFixed(2)} on top`,
        pass: 'info',
      });
      report({
        goal: `replicas: CPU per answer, ${what} against one process`,
        figure:
          `${p50(cpuRatios).toFixed(2)}× (p50 of paired ratios, IQR ${iqr(cpuRatios)};` +
          ` two replicas ${cpu(seen.two).toFixed(2)} ms + Redis ${redisCpu(seen.two).toFixed(2)} ms, one process ${cpu(seen.one).toFixed(2)} ms)`,
        pass: 'info',
      });
    }
  } finally {
    await deployments.close();
  }
  return pass;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  await replicas();
  process.exitCode = passed ? 0 : 1;
}
