/**
 * fast-check generators for the differential tests: forms with awkward names and bounds, answers
 * that are anything from valid to hostile.
 */
import fc from 'fast-check';
import { drawnKey } from '../src/kinds/options.js';
import { fieldLabel } from '../src/schema/labels.js';
import type { FieldSchema, FormSchema, MultiSelectSchema } from '../src/wire.js';
import { valueFor } from './arbitraries.js';
import { formatEdge } from './format-edges.js';

/** Names that trip naive code: prototype members, array-like keys, JSON-pointer characters. */
const awkwardName = fc.constantFrom(
  'toString',
  'valueOf',
  'hasOwnProperty',
  'isPrototypeOf',
  '__defineGetter__',
  '0',
  '10',
  'a/b',
  'a~1b',
  'x y',
  '环境',
);
const fieldName = fc.oneof(fc.stringMatching(/^[a-z][a-zA-Z0-9_]{0,8}$/), awkwardName);
const title = fc.option(fc.oneof(fc.string({ maxLength: 12 }), fc.constantFrom(' ', 'Name', '  Padded  ')), {
  nil: undefined,
});
const optionValue = fc.oneof(
  fc.stringMatching(/^[a-z0-9][a-z0-9-]{0,6}$/),
  fc.constantFrom('__proto__', 'constructor', 'toString', '', ' ', 'A', 'a'),
);
// Unique as a person sees them too (`''` and `' '`, `A` and `a` look alike): such options are refused (kinds/options.ts).
const options = fc.uniqueArray(optionValue, { minLength: 1, maxLength: 6, selector: drawnKey });
const bound = fc.oneof(
  fc.integer({ min: -50, max: 50 }),
  fc.double({ min: -50, max: 50, noNaN: true }),
  fc.constantFrom(-0, 0.5, 1e21, -1e21, Number.MAX_SAFE_INTEGER),
);
const count = fc.option(fc.nat({ max: 6 }), { nil: undefined });

function withTitle<T extends FieldSchema>(field: T, t: string | undefined): T {
  return t === undefined ? field : { ...field, title: t };
}

const text: fc.Arbitrary<FieldSchema> = fc
  .tuple(
    count,
    count,
    fc.option(fc.constantFrom('email', 'uri', 'date', 'date-time'), { nil: undefined, freq: 2 }),
    title,
  )
  .map(([a, b, format, t]) => {
    const field: FieldSchema = { type: 'string' };
    if (a !== undefined) field.minLength = b === undefined ? a : Math.min(a, b);
    if (b !== undefined) field.maxLength = a === undefined ? b : Math.max(a, b);
    if (format) field.format = format;
    return withTitle(field, t);
  });

const numeric: fc.Arbitrary<FieldSchema> = fc
  .tuple(
    fc.constantFrom('number', 'integer'),
    fc.option(bound, { nil: undefined }),
    fc.option(bound, { nil: undefined }),
    title,
  )
  .map(([type, a, b, t]) => {
    const field: FieldSchema = { type: type as 'number' | 'integer' };
    if (a !== undefined) field.minimum = b === undefined ? a : Math.min(a, b);
    if (b !== undefined) field.maximum = a === undefined ? b : Math.max(a, b);
    if (field.type === 'integer') {
      // A whole-number range must hold a whole number JSON carries exactly, or the form is refused
      // (kinds/number.ts): one with none gets the nearest such number as the bounds it has.
      const max = Number.MAX_SAFE_INTEGER;
      const low = Math.max(Math.ceil(field.minimum ?? -max), -max);
      const high = Math.min(Math.floor(field.maximum ?? max), max);
      if (low > high) {
        const only = Math.min(low, max);
        if (field.minimum !== undefined) field.minimum = only;
        if (field.maximum !== undefined) field.maximum = only;
      }
    }
    return withTitle(field, t);
  });

const choice: fc.Arbitrary<FieldSchema> = fc
  .tuple(options, fc.constantFrom('untitled', 'titled', 'legacy'), title)
  .map(([values, style, t]) => {
    if (style === 'untitled') return withTitle({ type: 'string', enum: values }, t);
    if (style === 'legacy') return withTitle({ type: 'string', enum: values, enumNames: values }, t);
    return withTitle({ type: 'string', oneOf: values.map((v) => ({ const: v, title: `${v}!` })) }, t);
  });

const multi: fc.Arbitrary<FieldSchema> = fc
  .tuple(options, fc.boolean(), count, count, title)
  .map(([values, titled, a, b, t]) => {
    const field: MultiSelectSchema = titled
      ? { type: 'array', items: { anyOf: values.map((v) => ({ const: v, title: v })) } }
      : { type: 'array', items: { type: 'string', enum: values } };
    if (a !== undefined) field.minItems = Math.min(a, values.length, b ?? a);
    if (b !== undefined) field.maxItems = Math.max(b, field.minItems ?? 0);
    return withTitle(field, t);
  });

const anyField = fc.oneof(text, numeric, fc.constant<FieldSchema>({ type: 'boolean' }), choice, multi);

/** A form of one field of any kind (text twice as often: it has the most ways to be wrong), and an answer to it. */
export const oneFieldCase: fc.Arbitrary<[FormSchema, Record<string, unknown>]> = fc
  .tuple(fieldName, fc.oneof(text, anyField), fc.boolean())
  .chain(([n, f, req]) => {
    const schema: FormSchema = { type: 'object', properties: { [n]: f }, ...(req ? { required: [n] } : {}) };
    const answer = fc
      .option(anyValueFor(f), { nil: undefined, freq: 8 })
      .map((v) => (v === undefined ? {} : { [n]: v }));
    return fc.tuple(fc.constant(schema), answer);
  });

/** A valid form of every kind, with awkward names, titles and bounds. */
export const hostileForm: fc.Arbitrary<FormSchema> = fc
  .uniqueArray(fc.tuple(fieldName, anyField, fc.boolean()), { minLength: 1, maxLength: 5, selector: ([n]) => n })
  // Fields a person can tell apart: two drawn alike are refused (schema/labels.ts).
  .filter((entries) => {
    const seen = entries.map(([n, f]) => drawnKey(fieldLabel(n, f)));
    return new Set(seen).size === seen.length;
  })
  .map((entries) => {
    const properties: Record<string, FieldSchema> = {};
    const required: string[] = [];
    for (const [n, f, req] of entries) {
      properties[n] = f;
      if (req) required.push(n);
    }
    return { type: 'object', properties, ...(required.length > 0 ? { required } : {}) };
  });

/** A value for one field: valid for it, near its edges, valid for another kind, or hostile. */
export function anyValueFor(field: FieldSchema): fc.Arbitrary<unknown> {
  const format = field.type === 'string' && 'format' in field ? field.format : undefined;
  const choices = optionsOf(field);
  return fc.oneof(
    { weight: 3, arbitrary: validValue(field) },
    { weight: 6, arbitrary: format ? formatEdge(format) : lengthEdge(field) },
    { weight: format ? 2 : 0, arbitrary: lengthEdge(field) },
    {
      weight: 2,
      arbitrary: fc.array(fc.constantFrom(...choices, choices[0] ?? 'x'), { maxLength: choices.length + 2 }),
    },
    {
      weight: 1,
      arbitrary: fc.oneof(
        fc.integer({ min: -60, max: 60 }),
        fc.double(),
        fc.constantFrom(-0, 0.5, 1e21, Number.NaN, Number.POSITIVE_INFINITY),
      ),
    },
    {
      weight: 1,
      arbitrary: fc.array(fc.oneof(fc.constantFrom(...choices, '__proto__', 'nope'), fc.integer(), fc.constant(null)), {
        maxLength: 7,
      }),
    },
    { weight: 1, arbitrary: fc.oneof(fc.boolean(), fc.constant(null), fc.jsonValue({ maxDepth: 2 })) },
    { weight: 1, arbitrary: fc.constantFrom('x'.repeat(300), 'y'.repeat(9000), '😀'.repeat(4), '部署到生产') },
  );
}

/** Strings of lengths at and around a field's bounds, in characters that are one or two UTF-16 units. */
function lengthEdge(field: FieldSchema): fc.Arbitrary<string> {
  const bounds =
    field.type === 'string' && !('enum' in field) && !('oneOf' in field) ? [field.minLength, field.maxLength] : [];
  const lengths = bounds.filter((n): n is number => n !== undefined).flatMap((n) => [n - 1, n, n + 1]);
  const length = fc.oneof(fc.constantFrom(0, 1, ...lengths.filter((n) => n >= 0)), fc.nat({ max: 12 }));
  return fc.tuple(length, fc.constantFrom('a', '😀', '部', ' ')).map(([n, unit]) => unit.repeat(n));
}

function validValue(field: FieldSchema): fc.Arbitrary<unknown> {
  return field.type === 'number' || field.type === 'integer' ? numberNear(field) : valueFor(field);
}

function optionsOf(field: FieldSchema): string[] {
  if ('enum' in field) return field.enum;
  if ('oneOf' in field) return field.oneOf.map((o) => o.const);
  if (field.type === 'array') return 'enum' in field.items ? field.items.enum : field.items.anyOf.map((o) => o.const);
  return ['x'];
}

/** Numbers in and around a field's bounds, whole and fractional. */
function numberNear(field: { minimum?: number; maximum?: number }): fc.Arbitrary<number> {
  const edges = [field.minimum, field.maximum].filter((n): n is number => n !== undefined);
  const near = edges.flatMap((n) => [n, n - 1, n + 1, Math.floor(n), Math.ceil(n), n - 0.5]);
  return fc.oneof(
    fc.constantFrom(0, -0, 1, -1, ...near),
    fc.integer({ min: -100, max: 100 }),
    fc.double({ min: -100, max: 100, noNaN: true }),
  );
}

/**
 * An answer to `schema`. Half are nearly right (every field present and valid but for the odd
 * one); the rest leave fields out, give anything, and sometimes add keys that are not fields.
 */
export function anyAnswerFor(schema: FormSchema): fc.Arbitrary<Record<string, unknown>> {
  const entries = Object.entries(schema.properties);
  const nearlyRight = fc.record(
    Object.fromEntries(entries.map(([n, f]) => [n, fc.oneof({ weight: 9, arbitrary: validValue(f) }, anyValueFor(f))])),
  );
  const anything = fc.record(
    Object.fromEntries(entries.map(([n, f]) => [n, fc.option(anyValueFor(f), { nil: undefined, freq: 3 })])),
  );
  const extraKey = fc.oneof(fc.string({ maxLength: 6 }), fc.constantFrom('__proto__', 'constructor', 'toString'));
  const extras = fc.oneof(
    { weight: 4, arbitrary: fc.constant([]) },
    fc.array(fc.tuple(extraKey, fc.jsonValue({ maxDepth: 1 })), { minLength: 1, maxLength: 2 }),
  );
  return fc.tuple(fc.oneof(nearlyRight, anything), extras).map(([values, more]) => {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(values)) if (v !== undefined) out[k] = v;
    // defineProperty keeps `__proto__` an own key, as JSON.parse makes it.
    for (const [k, v] of more)
      Object.defineProperty(out, k, { value: v, enumerable: true, writable: true, configurable: true });
    return out;
  });
}
