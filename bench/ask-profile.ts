/**
 * A loop of `ask-overhead.ts`'s calls, to profile: `node --cpu-prof --import tsx
 * bench/ask-profile.ts`. Not a measurement: it only makes the path hot for a profiler. With
 * `PROFILE_SIDE=pair` it alternates raw and ask() calls as the bench does and writes each call's
 * window (monotonic µs, the clock V8's profile uses) to `PROFILE_WINDOWS`, to split the profile by side.
 *
 *   PROFILE_SIDE=ours|raw|pair  PROFILE_REVISION=2025-11-25|2026-07-28  PROFILE_WAY=sdk|http-handler
 *   PROFILE_CALLS=5000  PROFILE_WINDOWS=/tmp/windows.json
 */
import { writeFileSync } from 'node:fs';
import { type Connected, connectOurs, connectRaw, type Revision, type Way } from './ask-overhead.js';
import { p50, yieldToLoop } from './support/stats.js';

const side = process.env.PROFILE_SIDE ?? 'ours';
const revision = (process.env.PROFILE_REVISION ?? '2025-11-25') as Revision;
const way = (process.env.PROFILE_WAY ?? 'sdk') as Way;
const calls = Number(process.env.PROFILE_CALLS ?? 5000);

const sides: [string, Connected][] = [];
if (side !== 'ours') sides.push(['raw', await connectRaw(revision, way)]);
if (side !== 'raw') sides.push(['ours', await connectOurs(revision, way)]);
const micros = () => Number(process.hrtime.bigint() / 1000n);
const windows: [string, number, number][] = [];
const cpu = new Map(sides.map(([name]) => [name, 0]));
const started = performance.now();
for (let i = 0; i < calls; i++) {
  const [name, c] = sides[i % sides.length] as [string, Connected];
  const from = micros();
  const usage = process.cpuUsage();
  await c.client.callTool({ name: 'deploy', arguments: { service: 'order-service' } });
  const used = process.cpuUsage(usage);
  windows.push([name, from, micros()]);
  cpu.set(name, (cpu.get(name) ?? 0) + used.user + used.system);
  await yieldToLoop();
}
const wall = (performance.now() - started) / calls;
const half = windows.slice(windows.length / 2);
const perSide = [...cpu].map(
  ([name, us]) =>
    `${name} CPU ${(us / 1000 / (calls / sides.length)).toFixed(3)} ms/call, wall p50 of the second half ${(p50(half.filter((w) => w[0] === name).map((w) => w[2] - w[1])) / 1000).toFixed(3)} ms`,
);
console.log(`${side} ${revision} ${way}: ${wall.toFixed(3)} ms/call; ${perSide.join(', ')}`);
if (process.env.PROFILE_WINDOWS) writeFileSync(process.env.PROFILE_WINDOWS, JSON.stringify(windows));
for (const [, c] of sides) await c.close();
