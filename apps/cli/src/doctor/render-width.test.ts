/**
 * doctor's terminal report fits the terminal: a table that would be wider is drawn a profile a
 * line, wrapped between entries (never "uns/upported" cut at the edge); the header names the
 * server once; and on a terminal a progress line counts the calls, drawn over itself and wiped.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { main } from '../main.js';
import { progressLine } from './progress.js';
import { renderText, wrapEntries } from './render-text.js';
import type { DoctorReport } from './report.js';

let report: DoctorReport;
beforeAll(async () => {
  const out: string[] = [];
  await main(['doctor', 'opsdesk', '--json'], { out: (s) => out.push(s), err: () => {} });
  report = JSON.parse(out.join('\n')) as DoctorReport;
}, 60_000);

describe('the terminal report', () => {
  for (const width of [60, 80, 100]) {
    it(`at ${width} columns no line is wider, and no outcome is cut`, () => {
      const text = renderText(report, false, { width });
      // The calls' lines: from a case (or a tool's first profile row) to its questions.
      const table: string[] = [];
      let inside = false;
      for (const line of text.split('\n')) {
        if (/^ {2}(case |profile )/.test(line)) inside = true;
        else if (/^ {2}questions:/.test(line) || line === '' || /^\S/.test(line)) inside = false;
        else if (inside) table.push(line);
      }
      expect(table.length).toBeGreaterThan(0);
      for (const line of table) expect(line.length, line).toBeLessThanOrEqual(width);
      expect(text).toContain('unsupported');
    });
  }

  it('is a table when the terminal is wide enough', () => {
    const text = renderText(report, false, { width: 200 });
    expect(text).toMatch(/ {2}profile {2,}accept-defaults {2,}accept-empty/);
  });

  it('names the server once in its header', () => {
    const header = renderText(report, false).split('\n')[0] ?? '';
    expect(header).toMatch(/^elicitkit doctor — opsdesk 0\.1\.0 \(throw-away data: .+\)$/);
    expect(header).not.toContain('opsdesk (opsdesk');
  });

  it('wraps between entries, continuing indented, and gives an entry too long its own line', () => {
    expect(wrapEntries('  p:', ['a 1', 'b 2', 'c 3'], 13, 4)).toEqual(['  p: a 1', '    b 2 · c 3']);
    expect(wrapEntries('  p:', ['x'.repeat(20), 'y'], 10, 4)).toEqual(['  p:', `    ${'x'.repeat(20)}`, '    y']);
  });
});

describe('the progress line', () => {
  it('on a terminal counts calls over itself, at most ten times a second, and is wiped at the end', () => {
    let t = 0;
    const written: string[] = [];
    const p = progressLine({ isTTY: true, columns: 60, write: (s) => written.push(s) }, () => t);
    p.call({ tool: 'deploy_service', profile: '2026-07-28 form' });
    t = 50;
    p.call({ tool: 'deploy_service', profile: '2026-07-28 form' });
    t = 200;
    p.call({ tool: 'a_tool_with_a_very_long_name_indeed', profile: '2025-11-25 form+url' });
    p.done();
    expect(written[0]).toBe('\r\x1b[2Kdoctor: 1 call · deploy_service × 2026-07-28 form');
    expect(written).toHaveLength(3);
    expect(written[1]?.startsWith('\r\x1b[2Kdoctor: 3 calls')).toBe(true);
    expect(written[1]?.length).toBeLessThanOrEqual('\r\x1b[2K'.length + 59);
    expect(written[1]?.endsWith('…')).toBe(true);
    expect(written[2]).toBe('\r\x1b[2K');
  });

  it('draws nothing where nobody watches (a pipe, a CI log)', () => {
    const written: string[] = [];
    const p = progressLine({ isTTY: false, write: (s) => written.push(s) });
    p.call({ tool: 't', profile: 'p' });
    p.done();
    expect(written).toEqual([]);
  });
});
