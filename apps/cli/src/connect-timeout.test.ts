/**
 * Connecting has one deadline (`ELICITKIT_CONNECT_TIMEOUT_MS`, default 30 s): with `--revision
 * auto` over stdio, the version probe and the `initialize` it falls back to share it, rather than
 * each taking the whole of it. A server that never answers is given up on at the deadline, said so
 * on stderr while waiting; a 2025 server that ignores the probe still connects within it. Real
 * child processes over stdio.
 */
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli as run } from '../test/run-cli.js';

const SILENT = [process.execPath, '-e', 'setInterval(() => {}, 1 << 30)'];
const PROBE_DEAF = [process.execPath, fileURLToPath(new URL('../test/probe-deaf-server.mjs', import.meta.url))];

beforeEach(() => {
  process.env.ELICITKIT_CONNECT_TIMEOUT_MS = '2000';
});
afterEach(() => {
  delete process.env.ELICITKIT_CONNECT_TIMEOUT_MS;
});

describe('connecting to a stdio server with --revision auto', () => {
  // First: it loads the command, so the timed test below times the connect, not the import.
  it('refuses a timeout that is not whole milliseconds from 1000 to 600000 as a usage error', async () => {
    process.env.ELICITKIT_CONNECT_TIMEOUT_MS = '30s';
    const { code, err } = await run(['call', 'hello', '--', ...SILENT]);
    expect(code).toBe(2);
    expect(err).toContain('ELICITKIT_CONNECT_TIMEOUT_MS must be a whole number from 1000 to 600000, not "30s"');
  });

  it('gives up on a server that never answers at the deadline, saying once that it waits', async () => {
    const { code, out, err } = await run(['call', 'hello', '--', ...SILENT]);
    expect({ code, out }).toEqual({ code: 1, out: '' });
    const label = SILENT.join(' ');
    expect(err.split('\n')).toEqual([
      `elicitkit: waiting for ${label} to answer (up to 2 s)…`,
      `elicitkit: could not connect to ${label}: no answer within 2 s (set ELICITKIT_CONNECT_TIMEOUT_MS to wait longer)`,
    ]);
    // The deadline's own words: the SDK's timeout of a probe or fallback that took its whole time
    // (twice the deadline in all) would say something else. No wall-clock figure is asserted.
  });

  it('still connects to a 2025 server that ignores the version probe', async () => {
    const { code, out } = await run(['tools', '--', ...PROBE_DEAF]);
    expect(code).toBe(0);
    expect(out).toContain('probe-deaf 1.0.0 — 1 tool (2025-11-25)');
  });
});
