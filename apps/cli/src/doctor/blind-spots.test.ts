import { describe, expect, it } from 'vitest';
import { toolName } from '../../test/broken-servers.js';
import { brokenStdio, doctorJson } from '../../test/doctor-harness.js';

describe('a slow tool or a dead connection hides nothing (stdio child processes)', () => {
  it('a tool slower than the budget under every profile is a note, not EK13, and the tools after it are reached', async () => {
    const { report, code } = await doctorJson([
      '--revision',
      '2025-11-25',
      '--timeout-ms',
      '800',
      '--',
      ...brokenStdio('readonly', 'slow', 'slow-too', 'good'),
    ]);
    expect(report.findings).toEqual([]);
    expect(code).toBe(0);
    expect(report.notes.map((n) => n.tool)).toEqual([toolName('slow'), toolName('slow-too')]);
    expect(report.notes[0]?.message).toMatch(
      /timed out under every profile that called it \(4\).*not an elicitation fault/,
    );
    const slow = report.tools.find((t) => t.name === toolName('slow'));
    // One timed-out call per profile: a call that asked nothing goes the same way whatever the answer.
    // 2025-11-25's four profiles: form+url, form and url (four strategies each), no elicitation (one).
    expect(slow?.calls.map((c) => c.outcome)).toEqual([
      'timeout',
      'skipped',
      'skipped',
      'skipped',
      'timeout',
      'skipped',
      'skipped',
      'skipped',
      'timeout',
      'skipped',
      'skipped',
      'skipped',
      'timeout',
    ]);
    const good = report.tools.find((t) => t.name === toolName('good'));
    expect(good?.questions.map((q) => [q.key, q.reached.length])).toEqual([['form: env', 2]]);
    expect(good?.calls.filter((c) => c.strategy === 'none').map((c) => c.outcome)).toEqual(['unsupported']);
    expect(report.revisions.map((r) => r.reconnects)).toEqual([0, 0, 0, 0]);
  });

  it('a server that dies mid-run is started again, and the next tool is still reached', async () => {
    const { report } = await doctorJson([
      '--revision',
      '2025-11-25',
      '--timeout-ms',
      '5000',
      '--',
      ...brokenStdio('readonly', 'exit', 'good'),
    ]);
    const exit = report.tools.find((t) => t.name === toolName('exit'));
    expect(exit?.calls.map((c) => c.skipped ?? c.outcome)).toEqual([
      'failed',
      'no-question',
      'no-question',
      'no-question',
      'failed',
      'no-question',
      'no-question',
      'no-question',
      'failed',
      'no-question',
      'no-question',
      'no-question',
      'failed',
    ]);
    expect(report.revisions.map((r) => r.reconnects)).toEqual([1, 1, 1, 1]);
    const good = report.tools.find((t) => t.name === toolName('good'));
    expect(good?.questions[0]?.reached.map((r) => r.profile)).toEqual(['2025-11-25 form+url', '2025-11-25 form']);
    // The exit fails alike with and without the capability: not an elicitation fault.
    expect(report.findings).toEqual([]);
  });
});
