/**
 * A stdio server that dies at start has its last stderr lines quoted, each under a `  | ` mark, so
 * they read as the server's words. A lone CR inside one of those lines was turned into a line break
 * by the terminal filter after the marks were added, so the server's text after the CR started a
 * line of its own, unmarked: it could print what reads as doctor's (or call's) own verdict. The
 * lines are now split at every break the filter makes.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCliProcess as cli } from './cli-process.js';

const FORGED = 'elicitkit doctor: FORGED VERDICT';
const dir = mkdtempSync(join(tmpdir(), 'ek-audit-cr-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const server = join(dir, 'dies-with-cr.mjs');
writeFileSync(server, `console.error('fatal: cannot start\\r${FORGED}');\nprocess.exitCode = 1;\n`);

describe('last words of a stdio server holding a lone CR', () => {
  it('doctor: no line of stderr starts with the server text after the CR', async () => {
    const { code, err } = await cli(['doctor', '--yes', '--revision', '2025-11-25', '--', process.execPath, server]);
    expect(code).toBe(1);
    expect(err).toContain('FORGED VERDICT');
    const lines = err.split(/\r\n|\r|\n/);
    expect(lines.filter((l) => l.startsWith(FORGED))).toEqual([]);
  });
  it('call: no line of stderr starts with the server text after the CR', async () => {
    const { code, err } = await cli(['call', 'any', '--revision', '2025-11-25', '--', process.execPath, server]);
    expect(code).toBe(1);
    expect(err).toContain('FORGED VERDICT');
    const lines = err.split(/\r\n|\r|\n/);
    expect(lines.filter((l) => l.startsWith(FORGED))).toEqual([]);
  });
});
