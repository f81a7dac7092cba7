import { describe, expect, it } from 'vitest';
import { MAX_OPTIONS } from '../kinds/options.js';
import { MAX_FIELDS, parseFormSchema } from './parse.js';
import type { SchemaProblemCode } from './problems.js';

function codes(raw: unknown): SchemaProblemCode[] {
  return parseFormSchema(raw).problems.map((p) => p.code);
}
const form = (properties: unknown, extra: Record<string, unknown> = {}) => ({ type: 'object', properties, ...extra });

describe('parseFormSchema', () => {
  it('takes a form of exactly MAX_FIELDS fields, and says the bound as one it may reach', () => {
    const fields = (n: number) =>
      form(Object.fromEntries(Array.from({ length: n }, (_, i) => [`f${i}`, { type: 'boolean' }])));
    expect(codes(fields(MAX_FIELDS))).toEqual([]);
    const [over] = parseFormSchema(fields(MAX_FIELDS + 1)).problems;
    expect(over).toMatchObject({ code: 'too_many_fields', message: `the form has ${MAX_FIELDS + 1} fields` });
    expect(over?.fix).toBe(`Keep a form to at most ${MAX_FIELDS} fields; take bulk data as tool arguments.`);
  });

  it.each<[string, unknown, SchemaProblemCode[]]>([
    ['not an object', 'schema', ['not_object']],
    ['root of another type', { type: 'array', properties: {} }, ['not_object']],
    ['open root', form({}, { additionalProperties: true }), ['nested_object']],
    ['root $ref', form({}, { $ref: '#/x' }), ['ref']],
    ['root anyOf', form({}, { anyOf: [] }), ['composition']],
    ['unknown root keyword', form({}, { minProperties: 1 }), ['unknown_keyword']],
    ['properties not an object', form([]), ['no_properties']],
    [
      'too many fields',
      form(Object.fromEntries(Array.from({ length: MAX_FIELDS + 1 }, (_, i) => [`f${i}`, { type: 'boolean' }]))),
      ['too_many_fields'],
    ],
    ['empty name', form({ '': { type: 'string' } }), ['reserved_name']],
    ['constructor name', form({ constructor: { type: 'string' } }), ['reserved_name']],
    ['field not an object', form({ a: 'string' }), ['not_object']],
    ['several types', form({ a: { type: ['string', 'null'] } }), ['bad_type']],
    ['nested', form({ a: { type: 'object' } }), ['nested_object']],
    ['properties without type', form({ a: { properties: {} } }), ['nested_object']],
    ['$ref field', form({ a: { $ref: '#/a' } }), ['ref']],
    ['pattern', form({ a: { type: 'string', pattern: 'x' } }), ['pattern']],
    ['unknown format', form({ a: { type: 'string', format: 'ipv4' } }), ['bad_format']],
    ['negative minLength', form({ a: { type: 'string', minLength: -1 } }), ['bad_constraint']],
    ['min above max length', form({ a: { type: 'string', minLength: 5, maxLength: 2 } }), ['bad_constraint']],
    ['infinite bound', form({ a: { type: 'number', maximum: 'big' } }), ['bad_constraint']],
    ['exclusiveMinimum', form({ a: { type: 'number', exclusiveMinimum: 0 } }), ['unknown_keyword']],
    ['enum of numbers', form({ a: { type: 'string', enum: [1, 2] } }), ['bad_options']],
    ['enumNames mismatch', form({ a: { type: 'string', enum: ['a', 'b'], enumNames: ['A'] } }), ['bad_options']],
    [
      'enum and oneOf',
      form({ a: { type: 'string', enum: ['a'], oneOf: [{ const: 'a', title: 'A' }] } }),
      ['bad_options'],
    ],
    ['option missing title', form({ a: { type: 'string', oneOf: [{ const: 'a' }] } }), ['bad_options']],
    [
      'too many options',
      form({ a: { type: 'string', enum: Array.from({ length: MAX_OPTIONS + 1 }, (_, i) => `o${i}`) } }),
      ['bad_options'],
    ],
    ['array without items', form({ a: { type: 'array' } }), ['array_of_non_enum']],
    ['array of numbers', form({ a: { type: 'array', items: { type: 'number', enum: [1] } } }), ['array_of_non_enum']],
    [
      'minItems above options',
      form({ a: { type: 'array', items: { type: 'string', enum: ['x'] }, minItems: 2 } }),
      ['bad_constraint'],
    ],
    [
      'uniqueItems keyword',
      form({ a: { type: 'array', items: { type: 'string', enum: ['x'] }, uniqueItems: true } }),
      ['unknown_keyword'],
    ],
    ['default of wrong type', form({ a: { type: 'integer', default: '1' } }), ['bad_default']],
    ['title not a string', form({ a: { type: 'boolean', title: 5 } }), ['bad_constraint']],
    ['required not a list', form({ a: { type: 'boolean' } }, { required: 'a' }), ['bad_required']],
    ['required unknown', form({ a: { type: 'boolean' } }, { required: ['b'] }), ['bad_required']],
    ['required twice', form({ a: { type: 'boolean' } }, { required: ['a', 'a'] }), ['bad_required']],
  ])('%s', (_label, raw, expected) => {
    expect(codes(raw)).toEqual(expected);
  });

  it('keeps the valid fields and drops the rest', () => {
    const { schema, problems } = parseFormSchema(
      form({ ok: { type: 'boolean', title: 'OK' }, bad: { type: 'object' } }, { required: ['ok', 'bad'] }),
    );
    expect(schema).toEqual({ type: 'object', properties: { ok: { type: 'boolean', title: 'OK' } }, required: ['ok'] });
    expect(problems).toHaveLength(1);
  });

  it('names the first few of many names `required` lists that are no field, each quoted short, and counts the rest', () => {
    const names = ['x'.repeat(2_000_000), ...Array.from({ length: 99_999 }, (_, i) => `nope_${i}`)];
    const { problems } = parseFormSchema(form({ a: { type: 'boolean' } }, { required: ['a', ...names] }));
    expect(problems.map((p) => p.message).slice(-2)).toEqual([
      'required names "nope_3", which is not a field',
      'required names 99995 more that are not fields',
    ]);
    expect(problems).toHaveLength(6);
    expect(problems[0]?.message.length).toBeLessThan(100);
  });

  it('copies only known keywords, so the result is safe to send', () => {
    const raw = JSON.parse('{"type":"object","$schema":"x","properties":{"a":{"type":"string","title":"A"}}}');
    expect(parseFormSchema(raw).schema).toEqual({ type: 'object', properties: { a: { type: 'string', title: 'A' } } });
  });
});
