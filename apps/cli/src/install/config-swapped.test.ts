/**
 * A config is judged by its path, then read through the descriptor opened after: what the
 * descriptor is is judged again, so a path given another file in between (a FIFO, another file,
 * one grown past the cap) is refused, never waited on or read whole. No real timing can place a
 * swap there, so `node:fs/promises` is wrapped to make it, on the real files, right after the
 * judging `stat` (or the descriptor's own).
 */
import { spawnSync } from 'node:child_process';
import { mkdtemp, readdir, rename, rm, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { MAX_CONFIG_BYTES } from './regular-file.js';
import { readIfExists } from './write-file.js';

/** What the wrapped calls do to the files after they answer, for the path `on`; nothing when unset. */
const swap = vi.hoisted(() => ({
  on: '',
  afterStat: undefined as (() => Promise<void>) | undefined,
  afterFstat: undefined as (() => Promise<void>) | undefined,
}));

vi.mock('node:fs/promises', async (original) => {
  const fs = await original<typeof import('node:fs/promises')>();
  const stat: typeof fs.stat = (async (path: Parameters<typeof fs.stat>[0], ...rest: unknown[]) => {
    const found = await (fs.stat as (...a: unknown[]) => Promise<unknown>)(path, ...rest);
    if (String(path) === swap.on && swap.afterStat) await swap.afterStat();
    return found;
  }) as typeof fs.stat;
  const open: typeof fs.open = async (path, ...rest) => {
    const handle = await fs.open(path, ...rest);
    if (String(path) === swap.on && swap.afterFstat) {
      const own = handle.stat.bind(handle) as () => Promise<unknown>;
      const after = swap.afterFstat;
      Object.assign(handle, {
        stat: async () => {
          const found = await own();
          await after();
          return found;
        },
      });
    }
    return handle;
  };
  return { ...fs, default: { ...fs, stat, open }, stat, open };
});

let root = '';
let config = '';
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'ek-config-swapped-'));
  config = join(root, 'mcp.json');
  await writeFile(config, '{"mcpServers": {}}\n');
  swap.on = config;
});
afterEach(async () => {
  swap.afterStat = undefined;
  swap.afterFstat = undefined;
  await rm(root, { recursive: true, force: true });
});

describe('a config whose path is given another file while it is read', () => {
  it('a FIFO after the stat: opened without waiting, refused as what it is', async () => {
    swap.afterStat = async () => {
      const fifo = join(root, 'pipe');
      expect(spawnSync('mkfifo', [fifo]).status).toBe(0);
      await rename(fifo, config);
    };
    await expect(readIfExists(config)).rejects.toThrow(`${config} is a named pipe (FIFO), not a regular file`);
  });

  it('another regular file after the stat: refused, to be run again', async () => {
    swap.afterStat = async () => {
      await writeFile(join(root, 'other.json'), '{}\n');
      await rename(join(root, 'other.json'), config);
    };
    await expect(readIfExists(config)).rejects.toThrow(
      `${config} was replaced while elicitkit read it: run the command again. Nothing was written.`,
    );
  });

  it('removed after the stat: as if it had never been there', async () => {
    swap.afterStat = () => rm(config);
    expect(await readIfExists(config)).toBeUndefined();
  });

  it('grown past 256 MiB after it was judged: the read stops past the cap and refuses', async () => {
    // Sparse, so no disk is taken; the read holds at most the cap and one byte.
    swap.afterFstat = () => truncate(config, MAX_CONFIG_BYTES + 1024 * 1024);
    await expect(readIfExists(config)).rejects.toThrow(
      `${config} holds more than 256.0 MiB: elicitkit reads no config larger than 256.0 MiB. Check`,
    );
    expect(await readdir(root)).toEqual(['mcp.json']);
  });
});
