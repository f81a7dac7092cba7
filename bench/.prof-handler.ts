import { connectOurs, connectRaw, timedCall } from '/work/main/bench/ask-overhead.ts';

const side = process.env.SIDE ?? 'ours';
const c =
  side === 'ours' ? await connectOurs('2025-11-25', 'http-handler') : await connectRaw('2025-11-25', 'http-handler');
const N = Number(process.env.N ?? 20000);
for (let i = 0; i < N; i++) {
  await timedCall(c);
  await new Promise((r) => setImmediate(r));
}
process.exit(0);
