/**
 * A hostile server's form must not cost the client unbounded work: every text a person reads has
 * a length cap, and the form as a whole a cap on its options and on its text. Past one, the form
 * (or the field) is refused with a problem naming the field, before the expensive checks run; at
 * the caps it is accepted.
 */
import { describe, expect, it } from 'vitest';
import { FORM_LIMITS } from '../index.js';
import { MAX_OPTIONS } from '../kinds/options.js';
import { MAX_DESCRIPTION_LENGTH, MAX_FORM_OPTIONS, MAX_FORM_TEXT, MAX_TITLE_LENGTH } from './limits.js';
import { MAX_FIELDS, parseFormSchema } from './parse.js';

const form = (properties: Record<string, unknown>) => ({ type: 'object', properties });
const problemsOf = (properties: Record<string, unknown>) => parseFormSchema(form(properties)).problems;

/** `n` distinct labels of exactly `length` characters. */
const labels = (n: number, length: number, prefix = 'o') =>
  Array.from({ length: n }, (_, i) => `${prefix}${i}`.padEnd(length, 'x'));

/** A titled select of `n` options whose values and titles are `length` characters each. */
const select = (n: number, length: number, prefix = 'o') => ({
  type: 'string',
  oneOf: labels(n, length, prefix).map((t, i) => ({ const: `${prefix}${i}`, title: t })),
});

describe('a text longer than a person reads', () => {
  it.each<[string, (n: number) => Record<string, unknown>, RegExp]>([
    ['a field title', (n) => ({ type: 'string', title: 'T'.repeat(n) }), /title of \d+ characters/],
    ['an option title', (n) => ({ type: 'string', oneOf: [{ const: 'a', title: 'T'.repeat(n) }] }), /oneOf/],
    ['an untitled option', (n) => ({ type: 'string', enum: ['a', 'T'.repeat(n)] }), /enum/],
    ['an enumNames title', (n) => ({ type: 'string', enum: ['a', 'b'], enumNames: ['A', 'T'.repeat(n)] }), /enumNames/],
    ['a multi-select option', (n) => ({ type: 'array', items: { type: 'string', enum: ['T'.repeat(n)] } }), /items/],
    [
      'a titled multi-select option',
      (n) => ({ type: 'array', items: { anyOf: [{ const: 'a', title: 'T'.repeat(n) }] } }),
      /items.anyOf/,
    ],
  ])('is refused past the cap for %s, naming the field; kept at the cap', (_what, make, where) => {
    const over = problemsOf({ ok: { type: 'boolean', title: 'Fine' }, long: make(MAX_TITLE_LENGTH + 1) });
    expect(over.map((p) => [p.field, p.code])).toEqual([['long', 'too_long']]);
    expect(over[0]?.message).toMatch(where);
    expect(over[0]?.message).toContain(`over the ${MAX_TITLE_LENGTH}`);
    // The field over the cap is left out; the rest of the form is still read.
    expect(
      Object.keys(
        parseFormSchema(form({ ok: { type: 'boolean' }, long: make(MAX_TITLE_LENGTH + 1) })).schema.properties,
      ),
    ).toEqual(['ok']);
    expect(problemsOf({ ok: { type: 'boolean', title: 'Fine' }, long: make(MAX_TITLE_LENGTH) })).toEqual([]);
  });

  it('is refused past the cap for a description, kept at it', () => {
    const field = (n: number) => ({ notes: { type: 'string', title: 'Notes', description: 'd'.repeat(n) } });
    expect(problemsOf(field(MAX_DESCRIPTION_LENGTH + 1))).toEqual([
      {
        field: 'notes',
        code: 'too_long',
        message: `field "notes" has a description of ${MAX_DESCRIPTION_LENGTH + 1} characters, over the ${MAX_DESCRIPTION_LENGTH} a description may have`,
        fix: 'Keep help to a few sentences; link to anything longer from the message.',
      },
    ]);
    expect(problemsOf(field(MAX_DESCRIPTION_LENGTH))).toEqual([]);
  });

  it('is refused for a field name past the cap (an untitled key is drawn as its label), quoted short', () => {
    const name = 'n'.repeat(100_000);
    const problems = problemsOf({ [name]: { type: 'string', title: 'Name' } });
    expect(problems.map((p) => p.code)).toEqual(['too_long']);
    expect(problems[0]?.message.length).toBeLessThan(200);
    expect(problemsOf({ ['n'.repeat(MAX_TITLE_LENGTH)]: { type: 'string' } })).toEqual([]);
  });
});

describe('a form with more than a person reads', () => {
  /** Fields of at most MAX_OPTIONS options each, `total` options in all. */
  const spread = (total: number, length = 8) => {
    const properties: Record<string, unknown> = {};
    for (let f = 0; total > 0; f++) {
      const n = Math.min(MAX_OPTIONS, total);
      properties[`f${f}`] = select(n, length, `f${f}o`);
      total -= n;
    }
    return properties;
  };

  it('is refused whole past the options cap, though no field passes its own, and kept at it', () => {
    const over = problemsOf(spread(MAX_FORM_OPTIONS + 1));
    expect(over.map((p) => p.code)).toEqual(['too_many_options']);
    expect(over[0]?.message).toBe(
      `the form offers ${MAX_FORM_OPTIONS + 1} options in all, over the ${MAX_FORM_OPTIONS} a form may offer (the most in field "f0", ${MAX_OPTIONS})`,
    );
    expect(problemsOf(spread(MAX_FORM_OPTIONS))).toEqual([]);
  });

  it('is refused whole past the text cap, naming the field holding the most, and kept at it', () => {
    // Each field at its own caps; together over the form's.
    const field = (title: string) => ({ type: 'string', title, description: 'd'.repeat(MAX_DESCRIPTION_LENGTH) });
    const properties: Record<string, unknown> = {};
    let text = 0;
    for (let i = 0; text + 3 + 5 + MAX_DESCRIPTION_LENGTH <= MAX_FORM_TEXT; i++) {
      const name = `f${i}`.padEnd(3, '_');
      properties[name] = field(`T${i}`.padEnd(5, '_'));
      text += name.length + 5 + MAX_DESCRIPTION_LENGTH;
    }
    // Fill to the cap exactly with one more field's description.
    properties.zzz = { type: 'string', title: 'Last_', description: 'd'.repeat(MAX_FORM_TEXT - text - 3 - 5) };
    expect(problemsOf(properties)).toEqual([]);
    const over = {
      ...properties,
      zzz: { type: 'string', title: 'Last_', description: 'd'.repeat(MAX_FORM_TEXT - text - 3 - 5 + 1) },
    };
    const problems = problemsOf(over);
    expect(problems.map((p) => p.code)).toEqual(['too_long']);
    expect(problems[0]?.message).toMatch(
      new RegExp(
        `^the form holds ${MAX_FORM_TEXT + 1} characters of text .* over the ${MAX_FORM_TEXT} .*the most in field "f0_"`,
      ),
    );
  });

  it('counts a text field’s default, drawn pre-filled, in the form’s text', () => {
    const notes = (n: number) => ({ notes: { type: 'string', title: 'Notes', default: 'd'.repeat(n) } });
    const fits = MAX_FORM_TEXT - 'notes'.length - 'Notes'.length;
    expect(problemsOf(notes(fits))).toEqual([]);
    const problems = problemsOf(notes(fits + 1));
    expect(problems.map((p) => p.code)).toEqual(['too_long']);
    expect(problems[0]?.message).toContain(`the form holds ${MAX_FORM_TEXT + 1} characters of text`);
  });

  it('is refused before any field is read: no other problem of its fields is reported', () => {
    const properties = {
      ...spread(MAX_FORM_OPTIONS + 1),
      nested: { type: 'object' },
      again: { type: 'string', title: 'F0' },
    };
    expect(problemsOf(properties).map((p) => p.code)).toEqual(['too_many_options']);
    expect(parseFormSchema(form(properties)).schema.properties).toEqual({});
  });

  it('is accepted at every cap at once, with titles built to be compared letter by letter', () => {
    // Options of one shape mixing scripts (a Cyrillic а first), told apart only at their end: the
    // look-alike check must compare every one with every other without comparing each pair.
    const perField = Math.min(MAX_OPTIONS, MAX_FORM_OPTIONS);
    const length = Math.floor((MAX_FORM_TEXT - MAX_FIELDS * 4) / MAX_FORM_OPTIONS / 2);
    const letters = (i: number) => [676, 26, 1].map((d) => String.fromCharCode(97 + (Math.floor(i / d) % 26))).join('');
    const title = (i: number) => `\u0430${'a'.repeat(length - 4)}${letters(i)}`;
    const properties: Record<string, unknown> = {};
    let left = MAX_FORM_OPTIONS;
    for (let f = 0; f < MAX_FIELDS; f++) {
      const n = Math.min(perField, left);
      left -= n;
      properties[`f${f}`.padEnd(4, '_')] =
        n > 0
          ? { type: 'string', oneOf: Array.from({ length: n }, (_, i) => ({ const: title(i), title: title(i) })) }
          : { type: 'boolean' };
    }
    expect(problemsOf(properties)).toEqual([]);
  });

  it('publishes the caps it enforces', () => {
    expect(FORM_LIMITS).toEqual({
      fields: MAX_FIELDS,
      optionsPerField: MAX_OPTIONS,
      options: MAX_FORM_OPTIONS,
      titleLength: MAX_TITLE_LENGTH,
      descriptionLength: MAX_DESCRIPTION_LENGTH,
      text: MAX_FORM_TEXT,
    });
    expect(Object.isFrozen(FORM_LIMITS)).toBe(true);
  });
});
