/**
 * Options must mean what the person saw. Two options drawn alike (the same title, or an untitled
 * value, up to Unicode form, compatibility characters, invisible characters, spacing and case), or
 * a title that breaks the line, are refused in the schema, since
 * picking one would send a value the person could not know; typed text that names more than one
 * option is refused, never settled by the options' order. Property-tested over invisible
 * characters and Unicode forms.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fromJsonSchema } from '../builder/form.js';
import { coerceValue } from '../coerce.js';
import { FormSchemaError } from '../errors.js';
import { describeFields, type FieldModel } from '../fields.js';
import { parseFormSchema } from '../schema/parse.js';
import { validate } from '../validate/validate.js';
import type { FieldSchema } from '../wire.js';

const one = (field: unknown) => ({ type: 'object', properties: { env: field } });
const problemsOf = (field: unknown) => parseFormSchema(one(field)).problems;
const model = (field: FieldSchema) => describeFields(one(field))[0] as FieldModel;

/** Characters that draw nothing, or draw as the spacing beside them does. */
const UNSEEN = ['\u200b', '\u200c', '\u200d', '\u2060', '\ufeff', '\u00ad', '\u202e', '\u2066', '\u061c', '\u0007'];

/** A title and another drawn the same way: invisible characters, other spacing, another Unicode form. */
const lookAlike = fc
  .tuple(
    fc.constantFrom('Staging', 'Production', 'Café', '生产环境', 'Dry run'),
    fc.constantFrom(...UNSEEN),
    fc.nat({ max: 6 }),
    fc.constantFrom('hide', 'space', 'nfd'),
  )
  .map(([title, hidden, at, how]) => {
    const i = Math.min(at, title.length);
    const twin =
      how === 'hide'
        ? `${title.slice(0, i)}${hidden}${title.slice(i)}`
        : how === 'space'
          ? ` ${title.replace(' ', '  ')}\u00a0`
          : title.normalize('NFD') === title
            ? `${title}${hidden}`
            : title.normalize('NFD');
    return [title, twin] as const;
  });

describe('options drawn alike', () => {
  it('are refused in every option shape, however the twin differs', () => {
    fc.assert(
      fc.property(lookAlike, ([title, twin]) => {
        expect(twin).not.toBe(title);
        const shapes: unknown[] = [
          {
            type: 'string',
            oneOf: [
              { const: 'staging', title },
              { const: 'prod', title: twin },
            ],
          },
          { type: 'string', enum: ['staging', 'prod'], enumNames: [title, twin] },
          { type: 'string', enum: [title, twin] },
          {
            type: 'array',
            items: {
              anyOf: [
                { const: 'staging', title },
                { const: 'prod', title: twin },
              ],
            },
          },
          { type: 'array', items: { type: 'string', enum: [title, twin] } },
        ];
        for (const field of shapes) {
          const problems = problemsOf(field);
          expect(problems.map((p) => p.code)).toEqual(['bad_options']);
          expect(problems[0]?.message).toContain('shows two options alike');
          // The validator refuses every answer, the builder the form.
          expect(validate(one(field) as never, { env: 'prod' }).ok).toBe(false);
          expect(() => fromJsonSchema(one(field))).toThrow(FormSchemaError);
        }
      }),
    );
  });

  it('names both, with the invisible characters shown', () => {
    const [problem] = problemsOf({
      type: 'string',
      oneOf: [
        { const: 'staging', title: 'Staging' },
        { const: 'prod', title: 'Sta\u200bging' },
      ],
    });
    expect(problem?.message).toBe(
      'field "env" shows two options alike in the titles of oneOf: "Staging" and "Sta\\u200bging"',
    );
  });

  it('keeps options that differ in what a person sees: letters, punctuation', () => {
    for (const [a, b] of [
      ['Staging', 'Staging 2'],
      ['Stage', 'Staged'],
      ['a-b', 'a b'],
    ])
      expect(
        problemsOf({
          type: 'string',
          oneOf: [
            { const: '1', title: a },
            { const: '2', title: b },
          ],
        }),
      ).toEqual([]);
  });
});

describe('typed text that names an option', () => {
  const select = model({
    type: 'string',
    oneOf: [
      { const: 'prod', title: 'Production' },
      { const: 'staging', title: 'prod' },
    ],
  });

  it('is refused when it names several: one option by its value, another by its title', () => {
    const read = coerceValue(select, 'prod');
    expect(read).toEqual({
      ok: false,
      message:
        '"prod" could mean any of prod (Production), staging (prod): type one option\'s value exactly as listed.',
    });
    // Each is still reached by the name only it has.
    expect(coerceValue(select, 'Production')).toEqual({ ok: true, value: 'prod' });
    expect(coerceValue(select, 'staging')).toEqual({ ok: true, value: 'staging' });
  });

  it('is refused when it names several once case is ignored, and read as typed when exact', () => {
    // Titles differing only by case are refused (drawn alike); values may, and are typed.
    const cased = model({
      type: 'string',
      oneOf: [
        { const: 'Prod', title: 'Production' },
        { const: 'prod', title: 'Staging' },
      ],
    });
    expect(coerceValue(cased, 'prod')).toEqual({ ok: true, value: 'prod' });
    expect(coerceValue(cased, 'Prod')).toEqual({ ok: true, value: 'Prod' });
    expect(coerceValue(cased, 'PROD')).toMatchObject({
      ok: false,
      message: expect.stringContaining('could mean any of'),
    });
  });

  it('reads a title typed in another Unicode form or with invisible characters as that title', () => {
    const cafe = model({
      type: 'string',
      oneOf: [
        { const: 'c', title: 'Café' },
        { const: 't', title: 'Tea' },
      ],
    });
    expect(coerceValue(cafe, 'Café'.normalize('NFD'))).toEqual({ ok: true, value: 'c' });
    expect(coerceValue(cafe, 'T\u200bea')).toEqual({ ok: true, value: 't' });
  });

  it('multi-select: text that is one option and also a list of others means neither', () => {
    const cities = model({
      type: 'array',
      items: {
        anyOf: [
          { const: 'paris', title: 'Paris' },
          { const: 'france', title: 'France' },
          { const: 'paris-fr', title: 'Paris, France' },
          { const: 'rome', title: 'Rome, Italy' },
        ],
      },
    });
    expect(coerceValue(cities, 'Paris, France')).toMatchObject({
      ok: false,
      message: expect.stringContaining('could mean any of paris-fr (Paris, France), paris (Paris), france (France)'),
    });
    // One option with a comma, and nothing else it could be: that option.
    expect(coerceValue(cities, 'Rome, Italy')).toEqual({ ok: true, value: ['rome'] });
    expect(coerceValue(cities, 'paris-fr')).toEqual({ ok: true, value: ['paris-fr'] });
    expect(coerceValue(cities, 'paris, france')).toMatchObject({ ok: false });
    expect(coerceValue(cities, 'Paris, rome')).toEqual({ ok: true, value: ['paris', 'rome'] });
  });

  it('multi-select: a part that names several options is refused', () => {
    const tags = model({
      type: 'array',
      items: {
        anyOf: [
          { const: 'a', title: 'b' },
          { const: 'b', title: 'c' },
        ],
      },
    });
    expect(coerceValue(tags, 'a, b')).toMatchObject({ ok: false, message: expect.stringContaining('"b" could mean') });
  });
});

describe('options drawn alike through letters of another script', () => {
  /** Latin letters and a Cyrillic or Greek letter drawn like each. */
  const TWINS: [string, string][] = [
    ['a', '\u0430'], // Cyrillic а
    ['e', '\u0435'], // Cyrillic е
    ['o', '\u043e'], // Cyrillic о
    ['p', '\u0440'], // Cyrillic р
    ['c', '\u0441'], // Cyrillic с
    ['A', '\u0391'], // Greek Α
    ['o', '\u03bf'], // Greek ο
    ['P', '\u03a1'], // Greek Ρ
  ];
  const swapped = fc
    .tuple(fc.constantFrom('Staging', 'Production', 'prod', 'Apac', 'Europe'), fc.constantFrom(...TWINS))
    .filter(([word, [latin]]) => word.includes(latin))
    .map(([word, [latin, twin]]) => [word, word.replace(latin, twin)] as const);

  it('are refused as titles, untitled values (what the person reads) and enumNames', () => {
    fc.assert(
      fc.property(swapped, ([word, twin]) => {
        for (const field of [
          {
            type: 'string',
            oneOf: [
              { const: 'a', title: word },
              { const: 'b', title: twin },
            ],
          },
          { type: 'string', enum: [word, twin] },
          { type: 'string', enum: ['a', 'b'], enumNames: [twin, word] },
          { type: 'array', items: { type: 'string', enum: [twin, word] } },
        ])
          expect(problemsOf(field).map((p) => p.code)).toEqual(['bad_options']);
      }),
    );
  });

  it('keeps words of one script, and a word beside its translation', () => {
    for (const list of [
      ['Staging', 'Stagings'],
      ['Прод', 'Prod'], // different letters, not a swap: П is drawn unlike P
      ['Production', 'Продакшн'],
      ['α', 'β'],
      ['Europe', 'Европа'],
    ])
      expect(problemsOf({ type: 'string', enum: list })).toEqual([]);
  });

  it('names the twin as sent, its letters shown as they are', () => {
    expect(problemsOf({ type: 'string', enum: ['prod', 'pr\u043ed'] })[0]?.message).toBe(
      'field "env" shows two options alike in enum: "prod" and "prоd"',
    );
  });
});

describe('an option whose title draws nothing', () => {
  it('is refused when the value it sends is not blank: the person would pick an empty line and send prod', () => {
    for (const blank of ['', ' ', '\u200b', '\u202e\u202c', '\u00a0\u2060'])
      for (const field of [
        {
          type: 'string',
          oneOf: [
            { const: 'dev', title: 'Development' },
            { const: 'prod', title: blank },
          ],
        },
        { type: 'string', enum: ['dev', 'prod'], enumNames: ['Development', blank] },
        {
          type: 'array',
          items: {
            anyOf: [
              { const: 'dev', title: 'Development' },
              { const: 'prod', title: blank },
            ],
          },
        },
      ]) {
        const problems = problemsOf(field);
        expect(problems.map((p) => p.code)).toEqual(['bad_options']);
        expect(problems[0]?.message).toContain('which sends "prod"');
      }
  });

  it('is kept for an untitled empty value, which shows what it sends', () => {
    expect(problemsOf({ type: 'string', enum: ['', 'dev'] })).toEqual([]);
  });
});

describe('options drawn alike once compatibility characters and case are folded', () => {
  it.each([
    ['fullwidth letters', 'Prod', '\uff30\uff52\uff4f\uff44'],
    ['a ligature', 'office', 'o\ufb03ce'],
    ['mathematical bold letters', 'Prod', '\u{1d40f}\u{1d42b}\u{1d428}\u{1d41d}'],
    ['one mathematical letter', 'Prod', '\u{1d40f}rod'],
    ['a superscript digit', 'm2', 'm\u00b2'],
    ['case only', 'Confirm', 'confirm'],
    ['case, all capitals', 'Production', 'PRODUCTION'],
    ['a dotless i', 'Fix', 'F\u0131x'],
    ['a long s', 'Test', 'Te\u017ft'],
    ['a Kelvin sign', 'Kill', '\u212aill'],
    ['a Cyrillic first letter beside a mathematical one', '\u{1d40f}roduction', '\u0420roduction'],
    ['an ideographic space', 'Dry run', 'Dry\u3000run'],
  ])('are refused: %s', (_what, a, b) => {
    for (const field of [
      {
        type: 'string',
        oneOf: [
          { const: 'a', title: a },
          { const: 'b', title: b },
        ],
      },
      { type: 'string', enum: [a, b] },
      { type: 'string', enum: ['a', 'b'], enumNames: [a, b] },
      { type: 'array', items: { type: 'string', enum: [a, b] } },
      {
        type: 'array',
        items: {
          anyOf: [
            { const: 'a', title: a },
            { const: 'b', title: b },
          ],
        },
      },
    ])
      expect(problemsOf(field).map((p) => p.code)).toEqual(['bad_options']);
  });

  it('types the folded spelling as the option: "prod" names the option titled in fullwidth', () => {
    const wide = model({
      type: 'string',
      oneOf: [
        { const: 'p', title: '\uff30\uff52\uff4f\uff44' },
        { const: 's', title: 'Staging' },
      ],
    });
    expect(coerceValue(wide, 'prod')).toEqual({ ok: true, value: 'p' });
  });
});

describe('an option title that breaks the line', () => {
  it.each(['\n', '\r', '\r\n', '\u000b', '\u000c', '\u0085', '\u2028', '\u2029'])(
    'is refused (%j): it draws as a second option or field below',
    (brk) => {
      for (const field of [
        { type: 'string', oneOf: [{ const: 'a', title: `Staging${brk}Production` }] },
        { type: 'string', enum: [`Staging${brk}Production`] },
        { type: 'string', enum: ['a'], enumNames: [`Staging${brk}Production`] },
        { type: 'array', items: { anyOf: [{ const: 'a', title: `Staging${brk}` }] } },
      ]) {
        const problems = problemsOf(field);
        expect(problems.map((p) => p.code)).toEqual(['bad_options']);
        expect(problems[0]?.message).toContain('breaks the line');
      }
    },
  );
});
