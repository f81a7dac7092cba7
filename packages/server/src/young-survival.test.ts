import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const run = promisify(execFile);
const root = fileURLToPath(new URL('../../..', import.meta.url));
const fixture = fileURLToPath(new URL('../test/young-survival.fixture.ts', import.meta.url));

/**
 * Bytes the young-generation collections promoted to the old one per call while the fixture's
 * measured calls ran (`--trace-gc-nvp` prints one line per collection; a `gc=s` line is a scavenge).
 */
async function promotedPerCall(side: 'raw' | 'kit', calls: number): Promise<{ perCall: number; scavenges: number }> {
  const { stdout } = await run(
    process.execPath,
    ['--trace-gc-nvp', '--conditions=@elicitkit/source', '--import', 'tsx', fixture, side],
    { cwd: root, env: { ...process.env, SURVIVAL_CALLS: String(calls) }, maxBuffer: 64 * 1024 * 1024 },
  );
  const measured = stdout.slice(stdout.indexOf('@@start'), stdout.indexOf('@@end'));
  let promoted = 0;
  let scavenges = 0;
  for (const line of measured.split('\n')) {
    if (!line.includes(' gc=s ')) continue;
    scavenges++;
    promoted += Number(/ promoted=(\d+)/.exec(line)?.[1] ?? Number.NaN);
  }
  return { perCall: promoted / calls, scavenges };
}

describe('what a 2026-07-28 ask() call leaves for the old generation', () => {
  // A closure made in execute()'s body holds its whole scope (the request's ctx, server, runtime).
  // Stored on the round's channel, it kept every request's objects alive through young-generation
  // collections until a full one: ≈ 1.45× the raw SDK's promoted bytes per call instead of ≈ 1.05×.
  it('is about what the raw SDK leaves for the same call', { timeout: 180_000 }, async () => {
    const calls = 1500;
    const [raw, kit] = await Promise.all([promotedPerCall('raw', calls), promotedPerCall('kit', calls)]);
    expect(raw.scavenges).toBeGreaterThan(5);
    expect(kit.scavenges).toBeGreaterThan(5);
    expect(kit.perCall / raw.perCall).toBeLessThan(1.2);
  });
});
