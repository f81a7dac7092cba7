import { describe, expect, it } from 'vitest';
import type { FormSchema } from '../wire.js';
import { formatIssues } from './issues.js';
import { MAX_ANSWER_LENGTH, validate } from './validate.js';

const schema: FormSchema = {
  type: 'object',
  properties: {
    name: { type: 'string', title: 'Name', minLength: 3, maxLength: 5 },
    email: { type: 'string', title: 'Email', format: 'email' },
    site: { type: 'string', format: 'uri' },
    day: { type: 'string', title: 'Day', format: 'date' },
    at: { type: 'string', title: 'At', format: 'date-time' },
    score: { type: 'number', title: 'Score', minimum: 0, maximum: 10 },
    count: { type: 'integer', title: 'Count' },
    ok: { type: 'boolean', title: 'OK' },
    env: {
      type: 'string',
      title: 'Env',
      oneOf: [
        { const: 'dev', title: 'Dev' },
        { const: 'prod', title: 'Prod' },
      ],
    },
    legacy: { type: 'string', enum: ['a', 'b'], enumNames: ['A', 'B'] },
    tags: { type: 'array', title: 'Tags', items: { type: 'string', enum: ['x', 'y', 'z'] }, minItems: 1, maxItems: 2 },
  },
  required: ['name'],
};

function codes(content: unknown, s: FormSchema = schema) {
  const result = validate(s, content);
  return result.ok ? [] : result.issues.map((i) => `${i.path.join('.')}:${i.code}`).sort();
}

describe('validate', () => {
  it('accepts a full valid answer and returns a clean copy', () => {
    const content = {
      name: 'Ann',
      email: 'ann@example.com',
      site: 'https://example.com/x',
      day: '2024-02-29',
      at: '2026-03-01T09:30:00Z',
      score: 9.5,
      count: -3,
      ok: false,
      env: 'prod',
      legacy: 'b',
      tags: ['x', 'z'],
    };
    const result = validate(schema, content);
    expect(result).toEqual({ ok: true, value: content });
    if (result.ok) expect(result.value).not.toBe(content);
  });

  it.each([
    ['missing required', {}, ['name:required']],
    ['too short', { name: 'Al' }, ['name:too_short']],
    ['too long', { name: 'Alexandra' }, ['name:too_long']],
    ['bad email', { name: 'Ann', email: 'ann@' }, ['email:format']],
    ['relative uri', { name: 'Ann', site: '/relative' }, ['site:format']],
    ['impossible date', { name: 'Ann', day: '2026-02-30' }, ['day:format']],
    ['date-time without zone', { name: 'Ann', at: '2026-03-01T09:30:00' }, ['at:format']],
    ['below minimum', { name: 'Ann', score: -1 }, ['score:too_small']],
    ['above maximum', { name: 'Ann', score: 11 }, ['score:too_big']],
    ['fractional integer', { name: 'Ann', count: 1.5 }, ['count:not_integer']],
    ['number as string', { name: 'Ann', score: '5' }, ['score:type']],
    ['boolean as string', { name: 'Ann', ok: 'yes' }, ['ok:type']],
    ['titled enum outside options', { name: 'Ann', env: 'Prod' }, ['env:not_in_options']],
    ['legacy enum outside options', { name: 'Ann', legacy: 'A' }, ['legacy:not_in_options']],
    ['multi item outside options', { name: 'Ann', tags: ['x', 'w'] }, ['tags.1:not_in_options']],
    ['too few selections', { name: 'Ann', tags: [] }, ['tags:too_few']],
    ['too many selections', { name: 'Ann', tags: ['x', 'y', 'z'] }, ['tags:too_many']],
    ['duplicate selections', { name: 'Ann', tags: ['x', 'x'] }, ['tags:duplicate']],
    ['multi as a string', { name: 'Ann', tags: 'x' }, ['tags:type']],
    ['unknown field', { name: 'Ann', admin: true }, ['admin:unknown_field']],
    ['null value', { name: null }, ['name:type']],
    ['nested object value', { name: { first: 'A' } }, ['name:type']],
  ])('%s', (_label, content, expected) => {
    expect(codes(content)).toEqual(expected);
  });

  it('reports every issue at once, unknown keys included', () => {
    expect(codes({ name: 'A', score: 99, evil: 1 })).toEqual(['evil:unknown_field', 'name:too_short', 'score:too_big']);
  });

  it.each([
    ['null', null],
    ['an array', [{ name: 'Ann' }]],
    ['a string', '{"name":"Ann"}'],
    ['a number', 7],
    ['undefined', undefined],
    ['a Date', new Date()],
    ['a Map', new Map([['name', 'Ann']])],
  ])('refuses %s as the answer', (_label, content) => {
    expect(codes(content)).toEqual([':not_object']);
  });

  it('refuses __proto__, constructor and prototype keys without touching any prototype', () => {
    const content = JSON.parse(
      '{"name":"Ann","__proto__":{"polluted":true},"constructor":{"prototype":{"polluted":true}},"prototype":1}',
    );
    expect(codes(content)).toEqual(['__proto__:unknown_field', 'constructor:unknown_field', 'prototype:unknown_field']);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.prototype).not.toHaveProperty('polluted');
  });

  it('refuses NaN and infinities as numbers', () => {
    expect(codes({ name: 'Ann', score: Number.NaN })).toEqual(['score:type']);
    expect(codes({ name: 'Ann', count: Number.POSITIVE_INFINITY })).toEqual(['count:type']);
    expect(codes({ name: 'Ann', score: JSON.parse('1e400') })).toEqual(['score:type']);
  });

  it('refuses whole numbers past the exact range: JSON has already rounded them', () => {
    // 9007199254740993 arrives as 9007199254740992: the person's digits are gone before any check.
    const rounded = JSON.parse('{"name": "Ann", "count": 9007199254740993}');
    expect(validate(schema, rounded)).toEqual({
      ok: false,
      issues: [
        {
          path: ['count'],
          code: 'too_big',
          message: '"Count" must be at most 9007199254740991 (larger whole numbers cannot be exact).',
        },
      ],
    });
    expect(validate(schema, { name: 'Ann', count: -(2 ** 60) })).toMatchObject({
      ok: false,
      issues: [
        {
          code: 'too_small',
          message: '"Count" must be at least -9007199254740991 (smaller whole numbers cannot be exact).',
        },
      ],
    });
    expect(codes({ name: 'Ann', count: 1e21 })).toEqual(['count:too_big']);
    expect(codes({ name: 'Ann', count: Number.MAX_SAFE_INTEGER })).toEqual([]);
    expect(codes({ name: 'Ann', count: Number.MIN_SAFE_INTEGER })).toEqual([]);
  });

  it('refuses huge strings quickly, before any format expression runs', () => {
    const huge = 'a'.repeat(5_000_000);
    expect(codes({ name: 'Ann', email: `${huge}@example.com`, site: `https://${huge}` })).toEqual([
      'email:too_long',
      'site:too_long',
    ]);
    expect(codes({ name: huge })).toEqual(['name:too_long']);
  });

  it('lists a bounded number of problems however large the answer: the first 20 of a kind, then how many more', () => {
    // A 3.5 MB answer of unknown keys made 300,000 issues (12 MB as text) in seconds of CPU; 200 KB
    // of wrong choices, 200,000. A person reads the first few; a server sends them back.
    const keys: Record<string, unknown> = { name: 'Ann' };
    for (let i = 0; i < 5000; i++) keys[`k${i}`] = 0;
    const unknown = validate(schema, keys);
    expect(unknown.ok).toBe(false);
    if (unknown.ok) return;
    expect(unknown.issues).toHaveLength(21);
    expect(unknown.issues.slice(0, 20).map((i) => i.path)).toEqual(Array.from({ length: 20 }, (_, i) => [`k${i}`]));
    expect(unknown.issues[20]).toEqual({
      path: [],
      code: 'unknown_field',
      message: 'And 4980 more keys that are not fields of this form.',
    });

    const wide: FormSchema = { type: 'object', properties: { tags: schema.properties.tags as never } };
    const choices = validate(wide, { tags: [...Array(900).fill(0), 'x', 'nope'] });
    expect(choices.ok).toBe(false);
    if (choices.ok) return;
    const items = choices.issues.filter((i) => i.path.length === 2);
    // Each of the first 20 wrong choices has its two issues (not text, not offered); the rest are counted.
    expect(items).toHaveLength(40);
    expect(new Set(items.map((i) => i.path[1]))).toEqual(new Set(Array.from({ length: 20 }, (_, i) => i)));
    expect(choices.issues.filter((i) => i.path.length === 1)).toEqual([
      { path: ['tags'], code: 'too_many', message: '"Tags" allows at most 2 selections.' },
      { path: ['tags'], code: 'not_in_options', message: 'And 881 more choices of "Tags" that are not offered.' },
    ]);
  });

  it('caps strings even without maxLength, configurably', () => {
    const open: FormSchema = { type: 'object', properties: { note: { type: 'string', title: 'Note' } } };
    // The string cap alone: the answer's own (MAX_ANSWER_LENGTH) is lifted here.
    const whole = { maxAnswerLength: Number.POSITIVE_INFINITY };
    expect(validate(open, { note: 'x'.repeat(100_001) }, whole).ok).toBe(false);
    expect(validate(open, { note: 'x'.repeat(100_000) }, whole).ok).toBe(true);
    expect(validate(open, { note: 'x'.repeat(20) }, { maxStringLength: 10 }).ok).toBe(false);
  });

  describe("an answer's whole size (MAX_ANSWER_LENGTH: what the server and the web route take)", () => {
    const two: FormSchema = {
      type: 'object',
      properties: { note: { type: 'string', title: 'Note' }, log: { type: 'string', title: 'Log' } },
    };
    const length = (content: object) => JSON.stringify(content).length;

    it('an answer of exactly the cap passes; one character more is refused at the field holding the most', () => {
      const fill = (n: number) => ({ note: 'n'.repeat(100), log: 'x'.repeat(n) });
      const exact = fill(MAX_ANSWER_LENGTH - length(fill(0)));
      expect(length(exact)).toBe(MAX_ANSWER_LENGTH);
      expect(validate(two, exact).ok).toBe(true);
      const over = fill(MAX_ANSWER_LENGTH - length(fill(0)) + 1);
      expect(validate(two, over)).toEqual({
        ok: false,
        issues: [
          {
            path: ['log'],
            code: 'too_long',
            message: `"Log" is too long for one answer: an answer holds at most ${MAX_ANSWER_LENGTH} characters in all, and this one ${MAX_ANSWER_LENGTH + 1}. Shorten it.`,
          },
        ],
      });
    });

    it('counts what JSON writes: escaped quotes and line breaks, two UTF-16 units an emoji', () => {
      // 33,000 characters each, under every per-field cap, yet twice that as JSON.
      for (const note of ['"'.repeat(33_000), '\n'.repeat(33_000), '😀'.repeat(33_000)]) {
        expect(length({ note })).toBeGreaterThan(MAX_ANSWER_LENGTH);
        const checked = validate(two, { note });
        expect(checked.ok).toBe(false);
        expect(checked.ok ? [] : checked.issues.map((i) => i.path)).toEqual([['note']]);
      }
    });

    it('two fields each within reach, too much together: said at the larger one', () => {
      const checked = validate(two, { note: 'a'.repeat(40_000), log: 'b'.repeat(30_000) });
      expect(checked.ok ? [] : checked.issues.map((i) => [i.path, i.code])).toEqual([[['note'], 'too_long']]);
    });

    it('a list of choices counts as well', () => {
      // 600 options of 90 characters: within the form's own text cap (65,536).
      const options = Array.from({ length: 600 }, (_, i) => `${i}`.padStart(90, 'o'));
      const many: FormSchema = {
        type: 'object',
        properties: {
          picks: { type: 'array', title: 'Picks', items: { type: 'string', enum: options } },
          note: { type: 'string', title: 'Note' },
        },
      };
      expect(validate(many, { picks: options, note: 'x'.repeat(5_000) }).ok).toBe(true);
      const all = validate(many, { picks: options, note: 'x'.repeat(20_000) });
      expect(all.ok ? [] : all.issues.map((i) => i.path)).toEqual([['picks']]);
    });

    it('maxAnswerLength sets another cap', () => {
      expect(validate(two, { note: 'x'.repeat(50) }, { maxAnswerLength: 40 }).ok).toBe(false);
      expect(validate(two, { note: 'x'.repeat(20) }, { maxAnswerLength: 40 }).ok).toBe(true);
    });
  });

  it('counts characters, not UTF-16 units, for length bounds', () => {
    const s: FormSchema = { type: 'object', properties: { n: { type: 'string', title: 'N', maxLength: 3 } } };
    expect(validate(s, { n: '😀😀😀' }).ok).toBe(true);
    expect(validate(s, { n: '部署到' }).ok).toBe(true);
    expect(validate(s, { n: '部署到生产' }).ok).toBe(false);
  });

  it('refuses half of a character (a lone UTF-16 surrogate) in any string, which storage would change', () => {
    const s: FormSchema = {
      type: 'object',
      properties: {
        user: { type: 'string', title: 'User', maxLength: 8 },
        env: { type: 'string', title: 'Env', enum: ['dev', 'prod\ud800'] },
      },
    };
    for (const bad of ['alice\ud800', '\udc00alice', 'a\udbff', '\ud83d\ud83d\ude00x'.slice(1, 2)]) {
      expect(validate(s, { user: bad })).toEqual({
        ok: false,
        issues: [{ path: ['user'], code: 'type', message: '"User" must be text, not half of a character.' }],
      });
    }
    expect(validate(s, { env: 'prod\ud800' }).ok).toBe(false);
    // A pair is one character, and fine.
    expect(validate(s, { user: 'al😀ce' })).toEqual({ ok: true, value: { user: 'al😀ce' } });
  });

  it('counts the string cap in characters too, as maxLength does', () => {
    const s: FormSchema = { type: 'object', properties: { n: { type: 'string', title: 'N', maxLength: 5 } } };
    // 4 characters, 8 UTF-16 units: within the field's 5 and a cap of 6.
    expect(validate(s, { n: '😀😀😀😀' }, { maxStringLength: 6 })).toEqual({ ok: true, value: { n: '😀😀😀😀' } });
    expect(validate(s, { n: '😀'.repeat(60_000) }, {})).toMatchObject({ ok: false, issues: [{ code: 'too_long' }] });
    const open: FormSchema = { type: 'object', properties: { n: { type: 'string', title: 'N' } } };
    expect(validate(open, { n: '😀'.repeat(60_000) }, { maxAnswerLength: Number.POSITIVE_INFINITY }).ok).toBe(true);
    for (const [n, cap] of [
      ['😀'.repeat(7), 6],
      ['x'.repeat(13), 6],
      ['😀'.repeat(100_001), 100_000],
    ] as const) {
      expect(validate(open, { n }, { maxStringLength: cap })).toEqual({
        ok: false,
        issues: [{ path: ['n'], code: 'too_long', message: `"N" is too long (more than ${cap} characters).` }],
      });
    }
  });

  it('accepts an empty answer when nothing is required (deciding it is empty is the caller’s rule)', () => {
    expect(validate({ type: 'object', properties: { a: { type: 'string', title: 'A' } } }, {})).toEqual({
      ok: true,
      value: {},
    });
  });

  it('reports a schema outside the subset as bad_schema instead of throwing', () => {
    const result = validate({ type: 'object', properties: { a: { type: 'object' } } } as never, { a: {} });
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.issues[0]?.code).toBe('bad_schema');
  });

  it('names fields by their title in messages', () => {
    const result = validate(schema, { name: 'Al', count: 0.5 });
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(formatIssues(result.issues)).toBe(
        '- "Name" needs at least 3 characters.\n- "Count" must be a whole number.',
      );
    }
  });
});

describe('an answer that changes as it is read (getters, proxies: JavaScript callers)', () => {
  const schema: FormSchema = {
    type: 'object',
    properties: {
      env: { type: 'string', enum: ['dev', 'prod'] },
      ticket: { type: 'string', format: 'date' },
      tags: { type: 'array', items: { type: 'string', enum: ['a', 'b'] } },
    },
  };

  it('is judged on one reading of each value, and the clean value is that reading', () => {
    let reads = 0;
    // The first reading is short and valid; every later one is huge and not a date.
    const content = {
      get ticket() {
        reads++;
        return reads === 1 ? '2026-03-01' : 'x'.repeat(1_000_000);
      },
    };
    const result = validate(schema, content);
    expect(reads).toBe(1);
    expect(result).toEqual({ ok: true, value: { ticket: '2026-03-01' } });
  });

  it('copies a list before checking it, so what passed is what the caller gets', () => {
    const backing = ['a', 'b'];
    let reads = 0;
    const tags = new Proxy(backing, {
      get(target, key, receiver) {
        if (typeof key === 'string' && /^\d+$/.test(key)) reads++;
        // After the first two item reads, every item turns into something never offered.
        if (typeof key === 'string' && /^\d+$/.test(key) && reads > 2) return 'rm -rf';
        return Reflect.get(target, key, receiver);
      },
    });
    const result = validate(schema, { tags });
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.value.tags).toEqual(['a', 'b']);
    expect(result.value.tags).not.toBe(tags);
    // The caller's own list is not what was judged, and was not handed back.
    expect(tags[0]).toBe('rm -rf');
  });
});

describe('what an answer says about itself in issues', () => {
  // Issues reach the person (an invalid result, a form's inline errors) and the model: an answer's
  // own text in them must read as quoted data, not reorder or continue the sentence around it.
  const BIDI = /[\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029]/;

  it('an unknown field named with bidi controls and line separators is shown escaped', () => {
    const result = validate(schema, { name: 'abc', 'env\u202e\u2028is fine': 1 });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    const message = result.issues.map((i) => i.message).join('\n');
    expect(message).toContain('"env\\u202e\\u2028is fine" is not a field of this form.');
    expect(message).not.toMatch(BIDI);
  });

  it('a field named like another with an invisible character, or an Arabic letter mark, is shown escaped', () => {
    const result = validate(schema, { name: 'abc', 'name\u200b': 1, 'e\u061cnv': 2 });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    const message = result.issues.map((i) => i.message).join('\n');
    expect(message).toContain('"name\\u200b" is not a field of this form.');
    expect(message).toContain('"e\\u061cnv" is not a field of this form.');
    expect(message).not.toMatch(/[\u200b\u061c]/);
  });

  it('a value with a bidi override is shown escaped', () => {
    const result = validate(schema, { name: 'abc', env: 'prod\u202e' });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(formatIssues(result.issues)).not.toMatch(BIDI);
  });
});
