/**
 * `replicas.ts`'s calls on one side in a loop, to look at: how many Redis commands an answer costs
 * (MONITOR on the bench's Redis), its wall time and CPU, and a CPU profile of the warm loop.
 *
 *   PROFILE_SIDE=one|two  PROFILE_REVISION=2025-11-25|2026-07-28  PROFILE_CALLS=2000  PROFILE_WARMUP=2000
 *   PROFILE_DIRECT=1 (two: the replicas relaying on direct connections; 2025 only)
 *   PROFILE_MONITOR=1 (count Redis commands)  PROFILE_OUT=/tmp/two.cpuprofile (profile the measured calls)
 *   node --import tsx bench/support/replicas-profile.ts
 */
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { Redis } from 'ioredis';
import { connectClient, type Revision, startDeployments } from './replicas-setup.js';
import { p50, yieldToLoop } from './stats.js';

const side = (process.env.PROFILE_SIDE ?? 'two') as 'one' | 'two';
const revision = (process.env.PROFILE_REVISION ?? '2025-11-25') as Revision;
const calls = Number(process.env.PROFILE_CALLS ?? 2000);
const warmup = Number(process.env.PROFILE_WARMUP ?? 2000);
const direct = process.env.PROFILE_DIRECT === '1';

const deployments = await startDeployments();
const client = await connectClient(deployments.url(side, revision, direct), revision, deployments.redisPid);
for (let i = 0; i < warmup; i++) {
  await client.call();
  await yieldToLoop();
}
const commands = new Map<string, number>();
let monitor: Redis | undefined;
// `monitor()` opens a connection of its own: the one it is called on is closed too, at the end, or
// it reconnects to the stopped Redis for ever and the script never exits.
let monitoring: Redis | undefined;
if (process.env.PROFILE_MONITOR === '1') {
  monitoring = new Redis(deployments.redis.url);
  monitor = await monitoring.monitor();
  monitor.on('monitor', (_time: string, args: string[]) => {
    const name = String(args[0]).toLowerCase();
    const script = name === 'eval' || name === 'evalsha' ? String(args[1]).slice(0, 40).replaceAll('\n', ' ') : '';
    commands.set(`${name} ${script}`, (commands.get(`${name} ${script}`) ?? 0) + 1);
  });
  await new Promise((r) => setTimeout(r, 100));
}
const session = process.env.PROFILE_OUT ? new Session() : undefined;
if (session) {
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.start');
}
const answers = [];
const started = performance.now();
for (let i = 0; i < calls; i++) {
  answers.push(await client.call());
  await yieldToLoop();
}
const wall = (performance.now() - started) / calls;
if (session && process.env.PROFILE_OUT) {
  const { profile } = await session.post('Profiler.stop');
  writeFileSync(process.env.PROFILE_OUT, JSON.stringify(profile));
  session.disconnect();
}
console.log(
  `${side}${direct ? ' direct' : ''} ${revision}: ${wall.toFixed(3)} ms per call; answer → result p50 ${p50(answers.map((a) => a.wallMs)).toFixed(3)} ms, CPU p50 ${p50(answers.map((a) => a.cpuMs)).toFixed(3)} ms + Redis ${p50(answers.map((a) => a.redisCpuMs)).toFixed(3)} ms`,
);
if (monitor) {
  await new Promise((r) => setTimeout(r, 100));
  monitor.disconnect();
  monitoring?.disconnect();
  for (const [name, n] of [...commands].sort((a, b) => b[1] - a[1]))
    console.log(`  ${name}: ${(n / calls).toFixed(2)} per call`);
}
if (side === 'two') console.log(`  dropped: ${deployments.relays.map((r) => JSON.stringify(r.dropped())).join(' ')}`);
await client.close();
await deployments.close();
