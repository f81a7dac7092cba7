import { describe, expect, it } from 'vitest';
import { formatAnswerProblems, parseAnswers } from './answers.js';

describe('parseAnswers', () => {
  it('reads every entry kind of the answers-file format', () => {
    const json = JSON.parse(
      '[{"action":"accept","content":{"env":"prod","n":3,"ok":true,"tags":["a","b"]}},' +
        '{"action":"accept"},{"action":"accept-defaults"},{"action":"decline"},{"action":"cancel"}]',
    );
    expect(parseAnswers(json)).toEqual({
      ok: true,
      answers: [
        { action: 'accept', content: { env: 'prod', n: 3, ok: true, tags: ['a', 'b'] } },
        { action: 'accept' },
        { action: 'accept-defaults' },
        { action: 'decline' },
        { action: 'cancel' },
      ],
    });
    expect(parseAnswers([])).toEqual({ ok: true, answers: [] });
  });

  it.each([
    ['an object', { action: 'accept' }, /JSON array, not an object/],
    ['a string', 'decline', /JSON array, not "decline"/],
    ['null', null, /JSON array, not null/],
  ])('refuses a file that is %s', (_label, json, message) => {
    const parsed = parseAnswers(json);
    expect(parsed.ok).toBe(false);
    expect(!parsed.ok && parsed.problems).toEqual([{ message: expect.stringMatching(message) }]);
  });

  it('refuses an absurdly long script', () => {
    const parsed = parseAnswers(Array.from({ length: 1001 }, () => ({ action: 'decline' })));
    expect(!parsed.ok && parsed.problems[0]?.message).toMatch(/1001 entries/);
  });

  it('reports every bad entry at once, with its position and what is wrong', () => {
    const parsed = parseAnswers([
      { action: 'decline' },
      'accept',
      { action: 'approve' },
      {},
      { action: 'decline', content: { a: 1 } },
      { action: 'accept', content: [1] },
      { action: 'accept', content: { when: null } },
      { action: 'accept', content: { n: Number.NaN } },
      { action: 'accept', content: { tags: ['a', 2] } },
      { action: 'accept', content: { nested: { a: 1 } } },
      { action: 'cancel', reason: 'because' },
    ]);
    expect(parsed.ok).toBe(false);
    if (parsed.ok) return;
    expect(parsed.problems.map((p) => p.index)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    expect(formatAnswerProblems(parsed.problems).split('\n')).toEqual([
      'entry 2: expected an object like {"action":"decline"}, got "accept"',
      'entry 3: "action" must be one of "accept", "accept-defaults", "decline", "cancel", got "approve"',
      'entry 4: "action" must be one of "accept", "accept-defaults", "decline", "cancel", got nothing',
      'entry 5: unexpected "content" ("content" belongs to "accept" only)',
      'entry 6: "content" must be an object of field values, got an array',
      'entry 7: "content.when" must be text, a number, true/false or a list of texts, got null',
      'entry 8: "content.n" must be text, a number, true/false or a list of texts, got number NaN',
      'entry 9: "content.tags" must be text, a number, true/false or a list of texts, got an array',
      'entry 10: "content.nested" must be text, a number, true/false or a list of texts, got an object',
      'entry 11: unexpected "reason"',
    ]);
  });

  it('keeps a "__proto__" key from JSON as a plain field name, touching no prototype', () => {
    const parsed = parseAnswers(JSON.parse('[{"action":"accept","content":{"__proto__":["x"],"env":"dev"}}]'));
    expect(parsed.ok).toBe(true);
    if (!parsed.ok) return;
    const entry = parsed.answers[0];
    const content = entry?.action === 'accept' ? entry.content : undefined;
    expect(Object.keys(content ?? {})).toEqual(['__proto__', 'env']);
    // A plain assignment would have made the array the object's prototype.
    expect(Object.getPrototypeOf(content)).toBe(Object.prototype);
    expect(Object.getOwnPropertyDescriptor(content, '__proto__')?.value).toEqual(['x']);
  });
});
