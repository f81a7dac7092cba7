/**
 * Troubleshooting row 13 from the CLI's side: `tools` and `call` connect afresh on every run, so a
 * server that changed across a restart is read as it is now, never from a cached declaration.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';
import { nodeArgs } from '../../../test/support/children.js';
import { runCli as run } from '../test/run-cli.js';

const QUIRKY = fileURLToPath(new URL('../test/quirky-stdio.ts', import.meta.url));

// A fixed revision: `auto` over stdio starts the server once more to probe it, which counts as a start.
it('each run reads the tools the server declares at that start', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'ek-reconnect-'));
  const server = [process.execPath, ...nodeArgs(QUIRKY, 'changing', join(dir, 'starts'))];
  try {
    const first = await run(['tools', '--revision', '2025-11-25', '--json', '--', ...server]); // start 1: status and deploy
    const second = await run(['tools', '--revision', '2025-11-25', '--json', '--', ...server]); // start 2: status only
    const names = (out: string) => (JSON.parse(out) as { tools: { name: string }[] }).tools.map((t) => t.name).sort();
    expect(names(first.out)).toEqual(['deploy', 'status', 'stop']);
    expect(names(second.out)).toEqual(['status', 'stop']);
    expect(JSON.parse(second.out).server).toMatchObject({ version: '1.0.2' });
    // The third start has deploy again, and call finds it.
    const third = await run(['call', 'deploy', '--revision', '2025-11-25', '--json', '--', ...server]);
    expect(third.code).toBe(0);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}, 120_000);
