import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { doctorJson } from '../../test/doctor-harness.js';

const SERVER = fileURLToPath(new URL('../../test/half-character-server.mjs', import.meta.url));

describe('doctor: a question no answer can carry', () => {
  it('a choice holding half of a character is an EK03 error, naming the field (a raw SDK server over stdio)', async () => {
    const { report, code } = await doctorJson(['--', process.execPath, SERVER]);
    const half = report.findings.filter((f) => f.rule === 'EK03');
    expect(half.map((f) => [f.tool, f.severity, f.field])).toEqual([['pick', 'error', 'env']]);
    expect(half[0]?.message).toContain('a choice holds half of a character');
    expect(code).toBe(1);
  });
});
