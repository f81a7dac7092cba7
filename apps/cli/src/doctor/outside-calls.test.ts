/**
 * Questions a server sends while no tool call is running. The protocol allows them (a server may
 * ask outside any request), so doctor cancels them, but it judges each as a question alone and
 * reports them under no tool; and one sent along with a call's result is not credited to the next
 * call. Real SDK servers over stdio, where messages come in the order they were written.
 */
import { describe, expect, it } from 'vitest';
import { toolName } from '../../test/broken-servers.js';
import { brokenStdio, doctorJson, rulesOf } from '../../test/doctor-harness.js';
import { OUTSIDE_CALLS } from './findings.js';
import { renderText } from './render-text.js';

describe('a question sent while no call is running', () => {
  // Was: answered cancel, counted in the profile's record, and dropped — a password asked for
  // before any call escaped EK09, a form sent to a URL-only client EK01, a titled select sent to
  // 2025-06-18 EK17, and nothing in the report said a question had come.
  it('is cancelled, judged by every rule of a question alone, and reported under no tool', async () => {
    const { report, code } = await doctorJson([
      '--budget',
      '0',
      '--',
      ...brokenStdio('good', 'readonly', 'ask-outside'),
    ]);
    const outside = report.findings.filter((f) => f.outsideCall);
    expect(outside.map((f) => [f.rule, f.severity, f.tool, f.field ?? null, f.profile])).toEqual([
      ['EK01', 'error', OUTSIDE_CALLS, null, '2025-11-25 url'],
      ['EK01', 'error', OUTSIDE_CALLS, null, '2025-11-25 no elicitation'],
      ['EK09', 'error', OUTSIDE_CALLS, 'password', '2025-11-25 form+url'],
      ['EK17', 'error', OUTSIDE_CALLS, 'region', '2025-06-18 elicitation:{}'],
    ]);
    // The tool asked well: every finding is the question's, none the tool's.
    expect(report.findings.filter((f) => !f.outsideCall)).toEqual([]);
    expect(code).toBe(1);
    // Pushed under every 2025 profile: where the client draws no forms, its SDK refused it.
    const question = {
      mode: 'form',
      message: 'Your session with the deployment console expired. Sign in again to keep deploying.',
      fields: ['password', 'region'],
    };
    const cancelled = { profile: '', questions: 1, cancelled: 1, asks: [{ ...question, answer: 'cancel (outside)' }] };
    expect(report.outsideCalls).toEqual([
      { ...cancelled, profile: '2025-11-25 form+url' },
      { ...cancelled, profile: '2025-11-25 form' },
      { profile: '2025-11-25 url', questions: 1, cancelled: 0, asks: [{ ...question, answer: null }] },
      { ...cancelled, profile: '2025-06-18 elicitation:{}' },
      { profile: '2025-11-25 no elicitation', questions: 1, cancelled: 0, asks: [{ ...question, answer: null }] },
    ]);
    const text = renderText(report, false);
    expect(text).toContain(
      'Questions outside any call (asked while no tool call was running; their findings say (outside any call)):',
    );
    expect(text).toContain('  2025-11-25 form+url: 1 question, cancelled by doctor');
    expect(text).toContain('  2025-11-25 url: 1 question, 0 cancelled by doctor, 1 refused by the client');
    expect(text).toContain('[(outside any call), field password, 2025-11-25 form+url; seen 5×]');
  }, 120_000);
});

describe('a question sent right after a call’s result', () => {
  // Was: doctor started the next call at once, and the question — sent 300 ms after the result,
  // before the server read anything more — arrived during it: credited to the next tool, which
  // asked nothing (a false question on an innocent tool, its other strategies called for it, and
  // under other answers false EK05, EK08 and EK12). Now doctor pings after each result: the
  // question comes before the ping's answer, while no call runs.
  it('comes outside any call, not in the next one', async () => {
    const { report, code } = await doctorJson([
      '--revision',
      '2025-11-25',
      '--budget',
      '0',
      '--',
      ...brokenStdio('after-result', 'quiet', 'readonly'),
    ]);
    const asks = (tool: string) =>
      report.tools.find((t) => t.name === toolName(tool))?.calls.map((c) => [c.profile, c.strategy, c.asks]);
    const askedNothing = (profile: string) => [
      [profile, 'accept-defaults', 0],
      [profile, 'accept-empty', 0],
      [profile, 'decline', 0],
      [profile, 'cancel', 0],
    ];
    for (const tool of ['after-result', 'quiet'])
      expect(asks(tool)).toEqual([
        ...askedNothing('2025-11-25 form+url'),
        ...askedNothing('2025-11-25 form'),
        ...askedNothing('2025-11-25 url'),
        ['2025-11-25 no elicitation', 'none', 0],
      ]);
    expect(report.tools.map((t) => t.questions)).toEqual([[], []]);
    expect(report.outsideCalls.map((o) => [o.profile, o.questions, o.cancelled])).toEqual([
      ['2025-11-25 form+url', 1, 1],
      ['2025-11-25 form', 1, 1],
    ]);
    expect(rulesOf(report), JSON.stringify(report.findings, null, 2)).toEqual([]);
    expect(code).toBe(0);
  }, 120_000);
});
