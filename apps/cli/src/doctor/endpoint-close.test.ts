/**
 * Doctor's close pass and a profile's connect under way: a transport handed out before the close
 * and started after it starts nothing, and one whose start is under way when the close comes is
 * stopped once it has started. Was: the close went over the transports twice and a start after the
 * second pass spawned a server that outlived doctor. A real stdio server process (one that ignores
 * its stdin ending) through the SDK's own stdio transport.
 */
import { describe, expect, it } from 'vitest';
import { parseTarget } from '../target.js';
import { endpointFor } from './endpoint.js';
import { PROFILES } from './profiles.js';

/** A server that never reads stdin nor ends with it: only a signal stops it. */
const STUBBORN = ['--', process.execPath, '-e', 'setInterval(() => {}, 1000)'];
const profile = PROFILES[0] as (typeof PROFILES)[number];

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('doctor closing its endpoint while a profile connects', () => {
  it('a transport started after the close starts nothing', async () => {
    const endpoint = endpointFor(parseTarget(undefined, STUBBORN.slice(1)));
    const transport = await endpoint.transport(profile);
    await endpoint.close();
    const started = transport.start();
    const pid = (transport as { pid?: number | null }).pid ?? null;
    try {
      await expect(started).rejects.toThrow('doctor is stopping');
      expect(pid, 'a server was started after the close').toBeNull();
    } finally {
      if (pid !== null && alive(pid)) process.kill(pid, 'SIGKILL');
    }
  });

  it('a transport whose start is under way when the close comes is stopped with it', async () => {
    const endpoint = endpointFor(parseTarget(undefined, STUBBORN.slice(1)));
    const transport = await endpoint.transport(profile);
    const started = transport.start();
    // The SDK spawns the server as start() is called, and forgets its pid once closed.
    const pid = (transport as { pid?: number | null }).pid ?? null;
    await endpoint.close();
    await started;
    try {
      expect(pid).not.toBeNull();
      expect(alive(pid as number), 'the server outlived the close').toBe(false);
    } finally {
      if (pid !== null && alive(pid)) process.kill(pid, 'SIGKILL');
    }
  }, 30_000);

  it('no transport is handed out after the close', async () => {
    const endpoint = endpointFor(parseTarget(undefined, STUBBORN.slice(1)));
    await endpoint.close();
    expect(() => endpoint.transport(profile)).toThrow('doctor is stopping');
  });
});
