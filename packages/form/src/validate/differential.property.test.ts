/**
 * Differential tests: our validator against ajv (the validator this package used before it had its
 * own), on random forms and random, hostile answers. They must agree on acceptance and on every
 * issue — path, code, message and order.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ajvFormat, oracleValidate } from '../../test/ajv-oracle.js';
import { formatEdge, ipLiteral } from '../../test/format-edges.js';
import { anyAnswerFor, hostileForm, oneFieldCase } from '../../test/hostile.js';
import { FORMATS } from '../kinds/text/formats.js';
import type { FormSchema } from '../wire.js';
import type { IssueCode } from './issues.js';
import { validate } from './validate.js';

/**
 * ajv's `uniqueItems` remembers items as keys of a plain object, so `"__proto__"` chosen twice is
 * never seen as a duplicate. Ours reports it; such answers are judged by the test below instead.
 */
function protoTwice(content: Record<string, unknown>): boolean {
  return Object.values(content).some((v) => Array.isArray(v) && v.filter((x) => x === '__proto__').length > 1);
}

describe('validate agrees with ajv', () => {
  it('on every answer to every form: acceptance, value and each issue', () => {
    fc.assert(
      fc.property(
        hostileForm.chain((schema) => fc.tuple(fc.constant(schema), anyAnswerFor(schema))),
        ([schema, content]) => {
          fc.pre(!protoTwice(content));
          expect(validate(schema, content)).toEqual(oracleValidate(schema, content));
        },
      ),
      { numRuns: 1000 },
    );
  });

  it('on one field of each kind at a time', () => {
    fc.assert(
      fc.property(oneFieldCase, ([schema, content]) => {
        fc.pre(!protoTwice(content));
        expect(validate(schema, content)).toEqual(oracleValidate(schema, content));
      }),
      { numRuns: 2000 },
    );
  });

  it('on anything at all as the schema or the answer (bad_schema, not_object)', () => {
    fc.assert(
      fc.property(fc.oneof(fc.jsonValue(), hostileForm), fc.oneof(fc.jsonValue(), fc.anything()), (schema, content) => {
        expect(validate(schema as FormSchema, content)).toEqual(oracleValidate(schema, content));
      }),
      { numRuns: 300 },
    );
  });

  it('with a tighter string cap', () => {
    fc.assert(
      fc.property(
        hostileForm.chain((schema) => fc.tuple(fc.constant(schema), anyAnswerFor(schema), fc.nat({ max: 12 }))),
        ([schema, content, cap]) => {
          fc.pre(!protoTwice(content));
          expect(validate(schema, content, { maxStringLength: cap })).toEqual(oracleValidate(schema, content, cap));
        },
      ),
      { numRuns: 300 },
    );
  });

  it.each(['email', 'uri', 'date', 'date-time'] as const)('on the %s format, one string at a time', (format) => {
    const theirs = ajvFormat(format);
    fc.assert(
      fc.property(formatEdge(format), (value) => {
        expect(FORMATS[format].test(value), JSON.stringify(value)).toBe(theirs(value));
      }),
      { numRuns: 5000 },
    );
  });
});

describe('the uri format agrees with ajv on IP literals', () => {
  it.each(['http://', 'x:/', 'a://u@'])('after %s', (prefix) => {
    const theirs = ajvFormat('uri');
    fc.assert(
      fc.property(ipLiteral, fc.constantFrom('', ':8080', '/p'), (literal, rest) => {
        const value = `${prefix}${literal}${rest}`;
        expect(FORMATS.uri.test(value), value).toBe(theirs(value));
      }),
      { numRuns: 1500 },
    );
  });
});

describe('the generators', () => {
  it('reach every issue code an answer can earn, so the comparison above means something', () => {
    const seen = new Set<string>();
    const cases = [
      ...fc.sample(oneFieldCase, { numRuns: 1200, seed: 1 }),
      ...fc.sample(
        hostileForm.chain((s) => fc.tuple(fc.constant(s), anyAnswerFor(s))),
        { numRuns: 300, seed: 1 },
      ),
    ];
    for (const [schema, content] of cases) {
      const result = oracleValidate(schema, content);
      seen.add(result.ok ? 'accepted' : 'refused');
      if (!result.ok) for (const i of result.issues) seen.add(i.code);
    }
    const codes: (IssueCode | 'accepted' | 'refused')[] = [
      'accepted',
      'refused',
      'required',
      'unknown_field',
      'type',
      'too_short',
      'too_long',
      'format',
      'too_small',
      'too_big',
      'not_integer',
      'not_in_options',
      'too_few',
      'too_many',
      'duplicate',
    ];
    expect([...seen].sort()).toEqual(codes.sort());
  });
});

describe('where ajv is wrong, and we are not', () => {
  const schema: FormSchema = {
    type: 'object',
    properties: {
      picks: { type: 'array', title: 'Picks', items: { type: 'string', enum: ['__proto__', 'a'] } },
      toString: { type: 'string' as const, title: 'Note' },
    },
  };

  it('reports "__proto__" chosen twice as a duplicate (ajv lets it through)', () => {
    const content = { picks: ['__proto__', '__proto__'] };
    expect(oracleValidate(schema, content).ok).toBe(true);
    expect(validate(schema, content)).toEqual({
      ok: false,
      issues: [{ path: ['picks'], code: 'duplicate', message: '"Picks" lists the same choice twice.' }],
    });
  });

  it('reads only the answer’s own keys: a field named toString is simply absent when left out', () => {
    // The old wrapper handed ajv a plain object, which "had" toString: the form could never be answered.
    expect(validate(schema, {})).toEqual({ ok: true, value: {} });
    expect(validate({ ...schema, required: ['toString'] }, {})).toEqual({
      ok: false,
      issues: [{ path: ['toString'], code: 'required', message: '"Note" is required.' }],
    });
    expect(validate(schema, { toString: 'hi' })).toEqual({ ok: true, value: { toString: 'hi' } });
  });
});
