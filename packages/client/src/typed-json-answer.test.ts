import { coerceValue, describeFields, type FormSchema, validate } from '@elicitkit/form';
import { describe, expect, it } from 'vitest';
import { notAsTyped, numberNotAsTyped } from './arguments-json.js';

/**
 * An answer to a form is read by the form's rules, wherever it is typed. A number field took `1e16`
 * typed into it (the terminal, the web page's form), while the same answer written as JSON (an
 * answers file, the page's form sent to its answer route) was refused as "a whole number past
 * ±9007199254740991 … send it as a string" — which a form cannot do: the person could not answer
 * at all. With `answer`, such a number read exactly is the form's to judge; every number JSON
 * would round is still refused.
 */
const FORM: FormSchema = {
  type: 'object',
  properties: { amount: { type: 'number', title: 'Amount' }, count: { type: 'integer', title: 'Count' } },
};
const [amount, count] = describeFields(FORM);

/** What a form sends for text typed into one of its fields, or why it refused it. */
function typedIn(field: typeof amount, text: string) {
  if (!field) throw new Error('no field');
  const coerced = coerceValue(field, text);
  return coerced.ok ? { sent: JSON.stringify({ content: { [field.name]: coerced.value } }) } : { refused: coerced };
}

// Spellings of numbers a person might type, near every edge a double has.
const TYPED = [
  '1e16',
  '-1e16',
  '10000000000000000',
  '9007199254740991',
  '9007199254740992',
  '-9007199254740992',
  '9007199254740993',
  '123456789012345678',
  '1e21',
  '1E300',
  '1.7976931348623157e308',
  '1e309',
  '5e-324',
  '1e-400',
  '0.1',
  '0.30000000000000000001',
  '2.50',
  '+7',
  '-0',
  '0',
];

describe('notAsTyped with answer: what a form takes typed, its answer route takes as JSON', () => {
  it.each(TYPED)('%s: a number field and a whole-number field, typed or sent as JSON, agree', (text) => {
    for (const field of [amount, count]) {
      const typed = typedIn(field, text);
      if (!('sent' in typed)) continue; // refused where it was typed: nothing is sent
      expect(notAsTyped(typed.sent, { answer: true }), `${field?.name} took ${text}`).toBeUndefined();
      expect(validate(FORM, JSON.parse(typed.sent).content).ok, `${field?.name} took ${text}`).toBe(true);
    }
  });

  it('a number field takes 1e16 typed, and its JSON is sent as written', () => {
    expect(typedIn(amount, '1e16')).toEqual({ sent: '{"content":{"amount":10000000000000000}}' });
    expect(notAsTyped('{"content":{"amount":10000000000000000}}', { answer: true })).toBeUndefined();
    expect(numberNotAsTyped('-9007199254740992', { answer: true })).toBeUndefined();
  });

  it("a whole-number field refuses it, typed or as JSON, in the form's words", () => {
    expect(typedIn(count, '9007199254740992')).toMatchObject({ refused: { ok: false } });
    const checked = validate(FORM, { count: 9007199254740992 });
    expect(checked.ok).toBe(false);
    expect(JSON.stringify(checked)).toContain('larger whole numbers cannot be exact');
  });

  it.each([
    ['a whole number JSON would round', '{"amount":9007199254740993}', 'inexact'],
    ['a number past a double', '{"amount":1e400}', 'inexact'],
    ['a decimal past a double', '{"amount":0.30000000000000000001}', 'inexact'],
    ['negative zero', '{"amount":-0}', 'negative-zero'],
    ['a key given twice', '{"amount":1,"amount":2}', 'duplicate-key'],
    ['half a character', '{"note":"\\ud800"}', 'half-character'],
  ])('still refused in an answer: %s', (_label, text, kind) => {
    expect(notAsTyped(text, { answer: true })?.reason.kind).toBe(kind);
  });

  it('arguments are held as before: a whole number past ±2^53-1 is refused there', () => {
    expect(notAsTyped('{"amount":10000000000000000}')?.reason.kind).toBe('unsafe-integer');
    expect(numberNotAsTyped('1e21')?.kind).toBe('unsafe-integer');
  });
});
