/**
 * A field's label must tell the person which box is which: two fields drawn alike (the same title,
 * or a title and another field's key shown in its place, up to Unicode form, compatibility
 * characters, invisible characters, spacing and case, as options are compared) are refused, and so
 * is a field whose label draws nothing or whose title breaks the line.
 * Property-tested over invisible characters, spacing and Unicode forms.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fromJsonSchema } from '../builder/form.js';
import { FormSchemaError } from '../errors.js';
import { describeFields } from '../fields.js';
import { validate } from '../validate/validate.js';
import { parseFormSchema } from './parse.js';

const form = (properties: Record<string, unknown>) => ({ type: 'object', properties });
const problemsOf = (properties: Record<string, unknown>) => parseFormSchema(form(properties)).problems;

const UNSEEN = ['\u200b', '\u200c', '\u200d', '\u2060', '\ufeff', '\u00ad', '\u202e', '\u2066', '\u061c', '\u0007'];

const lookAlike = fc
  .tuple(
    fc.constantFrom('Confirm', 'Environment', 'Café', '生产环境', 'Release ticket'),
    fc.constantFrom(...UNSEEN),
    fc.nat({ max: 8 }),
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

describe('fields drawn alike', () => {
  it('are refused whatever kind each field is, however the twin differs', () => {
    fc.assert(
      fc.property(lookAlike, ([title, twin]) => {
        const properties = {
          safe: { type: 'boolean', title, default: false },
          risky: { type: 'string', title: twin },
        };
        const problems = problemsOf(properties);
        expect(problems.map((p) => p.code)).toEqual(['bad_title']);
        expect(problems[0]?.field).toBe('risky');
        // The validator refuses every answer, the builder the form, and no renderer gets the fields.
        expect(validate(form(properties) as never, { safe: true, risky: 'x' }).ok).toBe(false);
        expect(() => fromJsonSchema(form(properties))).toThrow(FormSchemaError);
      }),
    );
  });

  it('names both fields, with the invisible characters shown', () => {
    expect(
      problemsOf({ confirm: { type: 'boolean', title: 'Confirm' }, wipe: { type: 'boolean', title: 'Con\u200bfirm' } }),
    ).toEqual([
      {
        field: 'wipe',
        code: 'bad_title',
        message: 'field "wipe" is shown as "Con\\u200bfirm", which reads as field "confirm" ("Confirm")',
        fix: 'Give every field a title a person can tell apart from the others.',
      },
    ]);
  });

  it('takes a field shown by its key (no title) as drawn: the key humanized', () => {
    // `confirm` has no title, so it is shown as "Confirm": another field titled so is refused.
    expect(
      problemsOf({ confirm: { type: 'boolean' }, wipe: { type: 'boolean', title: 'Confirm' } }).map((p) => p.code),
    ).toEqual(['bad_title']);
    // Two keys drawn alike once humanized: release_ticket and releaseTicket both show "Release ticket".
    expect(
      problemsOf({ release_ticket: { type: 'string' }, releaseTicket: { type: 'string' } }).map((p) => p.code),
    ).toEqual(['bad_title']);
    // A key holding an invisible character, untitled, beside the same key.
    expect(problemsOf({ env: { type: 'string' }, 'en\u200bv': { type: 'string' } }).map((p) => p.code)).toEqual([
      'bad_title',
    ]);
    // A blank or invisible title falls back to the key, which is compared as drawn.
    expect(problemsOf({ env: { type: 'string', title: 'Env' }, other: { type: 'string', title: ' \u200b ' } })).toEqual(
      [],
    );
    expect(describeFields(form({ other: { type: 'string', title: '\u200b\u202e' } }))[0]?.label).toBe('Other');
    expect(
      problemsOf({ env: { type: 'string', title: 'Other' }, other: { type: 'string', title: '\u200b' } }).map(
        (p) => p.code,
      ),
    ).toEqual(['bad_title']);
  });

  it('refuses a field whose label draws nothing (an invisible key without a title)', () => {
    const problems = problemsOf({ '\u200b': { type: 'string' } });
    expect(problems.map((p) => p.code)).toEqual(['bad_title']);
    expect(problems[0]?.message).toBe('field "\\u200b" is shown with no label a person can see');
  });

  it('keeps fields that differ in what a person sees: letters, punctuation', () => {
    for (const [a, b] of [
      ['Ticket', 'Ticket 2'],
      ['Stage', 'Staged'],
      ['a-b', 'a b'],
    ])
      expect(problemsOf({ one: { type: 'string', title: a }, two: { type: 'string', title: b } })).toEqual([]);
  });
});

describe('fields drawn alike through letters of another script', () => {
  it('are refused: a Latin letter swapped for a Cyrillic or Greek one', () => {
    for (const twin of ['C\u043enfirm', '\u0421onfirm', 'C\u03bfnfirm'])
      expect(
        problemsOf({ ok: { type: 'boolean', title: 'Confirm' }, wipe: { type: 'boolean', title: twin } }).map(
          (p) => p.code,
        ),
      ).toEqual(['bad_title']);
    // An untitled key is compared as drawn too.
    expect(
      problemsOf({ confirm: { type: 'boolean' }, wipe: { type: 'boolean', title: '\u0421onfirm' } }).map((p) => p.code),
    ).toEqual(['bad_title']);
  });

  it('keeps a title beside its translation', () => {
    expect(
      problemsOf({ a: { type: 'string', title: 'Environment' }, b: { type: 'string', title: 'Окружение' } }),
    ).toEqual([]);
  });
});

describe('fields drawn alike once compatibility characters and case are folded', () => {
  it.each([
    ['fullwidth letters', 'Confirm', '\uff23\uff4f\uff4e\uff46\uff49\uff52\uff4d'],
    ['a ligature', 'Office', 'O\ufb03ce'],
    ['mathematical letters', 'Confirm', '\u{1d402}onfirm'],
    ['case only', 'Confirm', 'confirm'],
    ['a dotless i', 'Confirm', 'Conf\u0131rm'],
    ['a Cyrillic first letter, case folded', 'Production', '\u0440roduction'],
  ])('are refused: %s', (_what, a, b) => {
    const problems = problemsOf({ ok: { type: 'boolean', title: a }, wipe: { type: 'boolean', title: b } });
    expect(problems.map((p) => [p.field, p.code])).toEqual([['wipe', 'bad_title']]);
  });

  it('compares an untitled key as drawn, case folded: `confirm` beside a field titled CONFIRM', () => {
    expect(
      problemsOf({ confirm: { type: 'boolean' }, wipe: { type: 'boolean', title: 'CONFIRM' } }).map((p) => p.code),
    ).toEqual(['bad_title']);
  });
});

describe('a field title that breaks the line', () => {
  it.each(['\n', '\r', '\u2028', '\u2029', '\u0085'])(
    'is refused (%j): its second line draws as another field',
    (brk) => {
      const problems = problemsOf({
        env: { type: 'string', title: 'Environment' },
        wipe: { type: 'boolean', title: `Ticket${brk}Confirm wipe` },
      });
      expect(problems.map((p) => [p.field, p.code])).toEqual([['wipe', 'bad_title']]);
      expect(problems[0]?.message).toContain('breaks the line');
    },
  );

  it('is kept in a description, which is help text over several lines', () => {
    expect(problemsOf({ env: { type: 'string', title: 'Environment', description: 'One.\nTwo.' } })).toEqual([]);
  });
});

describe('a field title drawn as another field’s plus spaces', () => {
  it('is refused, and a title is drawn with its runs of spaces as one', () => {
    expect(
      problemsOf({
        ok: { type: 'boolean', title: 'Confirm' },
        wipe: { type: 'boolean', title: 'Confirm   \u00a0 ' },
      }).map((p) => p.code),
    ).toEqual(['bad_title']);
    expect(
      describeFields(form({ wipe: { type: 'boolean', title: `Confirm${' '.repeat(150)}(wipe all)` } }))[0]?.label,
    ).toBe('Confirm (wipe all)');
  });
});
