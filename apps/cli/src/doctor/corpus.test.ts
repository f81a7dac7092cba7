import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { doctorJson } from '../../test/doctor-harness.js';

/** The pinned @modelcontextprotocol/server-everything (root devDependency), started over stdio. */
const EVERYTHING = createRequire(import.meta.url).resolve('@modelcontextprotocol/server-everything/dist/index.js');
const FIXTURES = fileURLToPath(new URL('../../test/fixtures/server-everything.json', import.meta.url));

describe('doctor on @modelcontextprotocol/server-everything (a published server, over stdio)', () => {
  it('reaches its eliciting tools and finds exactly its faults, with no false EK13 for the slow tool', async () => {
    const { report, code } = await doctorJson([
      '--fixtures',
      FIXTURES,
      '--timeout-ms',
      // Far above what its ordinary tools take, far below the slow tool's 10 s.
      '3000',
      '--',
      process.execPath,
      EVERYTHING,
      'stdio',
    ]);
    expect(report.server?.name).toBe('mcp-servers/everything');
    // Built on the 2025 SDK: it does not speak 2026-07-28, and says so at connect.
    expect(report.revisions.map((r) => [r.profile, r.served])).toEqual([
      ['2025-11-25 form+url', true],
      ['2025-11-25 form', true],
      ['2025-11-25 url', true],
      ['2025-06-18 elicitation:{}', true],
      ['2025-11-25 no elicitation', true],
      ['2026-07-28 form+url', false],
      ['2026-07-28 form', false],
      ['2026-07-28 url', false],
      ['2026-07-28 no elicitation', false],
    ]);
    const found = report.findings.map((f) => `${f.tool} ${f.rule} ${f.severity}${f.field ? ` ${f.field}` : ''}`).sort();
    expect(found).toEqual([
      // It registers the tool for any elicitation capability and sends a form to a client that
      // declared only URL mode; the SDK's client refuses it.
      'trigger-elicitation-request EK01 error',
      'trigger-elicitation-request EK04 warning',
      'trigger-elicitation-request EK05 warning',
      'trigger-elicitation-request EK07 warning untitledMultipleSelectEnum',
      'trigger-elicitation-request EK07 warning untitledSingleSelectEnum',
      'trigger-elicitation-request EK17 error firstLine',
      'trigger-elicitation-request EK17 error integer',
      'trigger-elicitation-request EK17 error legacyTitledEnum',
      'trigger-elicitation-request EK17 error number',
      'trigger-elicitation-request EK17 error titledMultipleSelectEnum',
      'trigger-elicitation-request EK17 error titledSingleSelectEnum',
      'trigger-elicitation-request EK17 error untitledMultipleSelectEnum',
      'trigger-elicitation-request EK17 error untitledSingleSelectEnum',
      'trigger-url-elicitation EK05 warning',
    ]);
    expect(code).toBe(1);
    // Its results carry no structuredContent: the success verdicts say they rest on isError alone.
    expect(report.findings.filter((f) => f.rule === 'EK04' || f.rule === 'EK05').every((f) => f.ambiguous)).toBe(true);
    expect(report.notes.map((n) => n.tool)).toEqual(['trigger-long-running-operation']);

    const questions = report.tools.flatMap((t) =>
      t.questions.map((q) => [t.name, q.key === 'url' ? 'url' : 'form', q.reached.map((r) => r.profile)]),
    );
    expect(questions).toEqual([
      // Reached under the URL-only client too: sent there, and refused (EK01).
      [
        'trigger-elicitation-request',
        'form',
        ['2025-11-25 form+url', '2025-11-25 form', '2025-11-25 url', '2025-06-18 elicitation:{}'],
      ],
      ['trigger-url-elicitation', 'url', ['2025-11-25 form+url', '2025-11-25 url']],
    ]);
    expect(report.coverage.fullyReached).toBe(2);
  });
});
