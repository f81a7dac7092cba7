/**
 * A question too big to keep whole is kept as a stand-in, judged whole as it came: what the
 * judges, the report and the walk read of it must be what they would read of the whole, and no
 * more of it may stay in memory than the stand-in.
 */
import { lint } from '@elicitkit/form';
import { describe, expect, it } from 'vitest';
import { fieldsOf, questionKey } from './branches.js';
import { askFindings, judge } from './judge.js';
import { KEEP_WHOLE, keptOf, sizeUpTo } from './kept.js';
import { PROFILES } from './profiles.js';
import type { Ask, CallRecord } from './records.js';
import { sameQuestion } from './rounds.js';

const profile = PROFILES[0];

/** A pushed question as a call records it, kept as doctor keeps it. */
function kept(params: Record<string, unknown>): Ask {
  const ask: Ask = { mode: 'form', via: 'push', id: 1, after: 0, params };
  return keptOf(ask, (whole) => askFindings(whole, [], profile));
}

/** The rules (and fields) judge finds in one call that asked `asks`. */
function rulesIn(...asks: Ask[]): string[] {
  const call: CallRecord = {
    tool: 'sign_in',
    case: '{}',
    profile: profile?.id ?? '',
    strategy: 'decline',
    arguments: {},
    asks,
    outcome: { kind: 'result', isError: true, status: 'declined', text: 'declined' },
    ms: 1,
  };
  const run = { target: 't', throwAway: false, allowDestructive: false, tools: [], profiles: [], calls: [call] };
  return judge(run).findings.map((f) => `${f.rule}${f.field ? ` ${f.field}` : ''}`);
}

/** A form of `n` text fields, each with `description`. */
function form(n: number, description = 'What to enter.'): Record<string, unknown> {
  const properties = Object.fromEntries(
    Array.from({ length: n }, (_, i) => [`f${i}`, { type: 'string', title: `Field ${i}`, description }]),
  );
  return { type: 'object', properties, required: ['f0'] };
}

describe('a question too big to keep whole', () => {
  it('is kept as it came when small', () => {
    const params = {
      message: 'Which environment should order-service be deployed to?',
      requestedSchema: form(1),
    };
    expect(kept(params).params).toBe(params);
  });

  it('whose form is over the caps a client reads is EK03 as lint says, not an empty form (EK02)', () => {
    // 60 fields with 1,500 characters of help each: 90,000 characters of text, over the 65,536 a
    // form may hold; lint reads no field of it.
    const params = {
      message: 'Which details should the release notes of order-service carry?',
      requestedSchema: form(60, 'Help. '.repeat(250)),
    };
    const ask = kept(params);
    expect(ask.cut).toBeDefined();
    expect(sizeUpTo(ask.params, KEEP_WHOLE)).toBeLessThanOrEqual(KEEP_WHOLE);
    const whole = lint(params).map((f) => `${f.rule}${f.field ? ` ${f.field}` : ''}`);
    expect(whole).toContain('EK03');
    expect(rulesIn(ask)).toEqual(whole);
    expect(rulesIn(ask)).not.toContain('EK02');
    // The stand-in reads as the form was sent: its fields by name, one required.
    expect(fieldsOf(ask.params)).toEqual(fieldsOf(params));
    expect(questionKey(ask)).toBe(questionKey({ mode: 'form', params }));
  });

  it('whose form is small keeps it as a client reads it: the same fields, the same findings', () => {
    const params = {
      // 34,000 characters: longer than doctor keeps whole, within what a client shows.
      message: `Sign in to the deployment console to continue. ${'Read this first. '.repeat(2_000)}`,
      requestedSchema: { type: 'object', properties: { password: { type: 'string', title: 'Password' } } },
    };
    const ask = kept(params);
    expect(ask.params.requestedSchema).toEqual(params.requestedSchema);
    expect(rulesIn(ask)).toEqual(['EK09 password']);
  });

  it('is told from another that starts alike, and matched with itself', () => {
    const start = `Which release should order-service roll back to? ${'Releases: '.repeat(10_000)}`;
    const a = kept({ message: `${start} The last one was REL-1001.`, requestedSchema: form(1) });
    const b = kept({ message: `${start} The last one was REL-1002.`, requestedSchema: form(1) });
    const again = kept({ message: `${start} The last one was REL-1001.`, requestedSchema: form(1) });
    expect(a.params).toEqual(b.params);
    expect(sameQuestion(a, b)).toBe(false);
    expect(sameQuestion(a, again)).toBe(true);
  });

  it('keeps no text of unbounded length, a field named with a megabyte included', () => {
    const name = 'n'.repeat(1024 * 1024);
    const ask = kept({
      message: 'Which value?',
      requestedSchema: { type: 'object', properties: { [name]: { type: 'string' } } },
    });
    const texts = JSON.stringify(ask).length;
    expect(texts).toBeLessThan(KEEP_WHOLE);
    expect(ask.cut?.found.map((f) => f.rule)).toContain('EK03');
  });
});
