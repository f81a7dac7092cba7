import { ElicitRequestFormParamsSchema } from '@modelcontextprotocol/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { breakersFor, contentFor, formSchema } from '../../test/arbitraries.js';
import { coerceContent } from '../coerce.js';
import { describeFields } from '../fields.js';
import { lint } from '../lint/index.js';
import { downgrade, toLegacyEnums, toTitledEnums } from '../normalize.js';
import { parseFormSchema } from '../schema/parse.js';
import { validate } from './validate.js';

const runs = { numRuns: 300 };

describe('validate (properties)', () => {
  it('accepts every answer generated inside the form’s constraints', () => {
    fc.assert(
      fc.property(
        formSchema.chain((schema) => fc.tuple(fc.constant(schema), contentFor(schema))),
        ([schema, content]) => {
          const result = validate(schema, content);
          expect(result, JSON.stringify({ schema, content })).toMatchObject({ ok: true, value: content });
        },
      ),
      runs,
    );
  });

  it('rejects every answer pushed outside them, naming the field', () => {
    const broken = formSchema.chain((schema) => {
      const required = new Set(schema.required ?? []);
      const candidates = Object.entries(schema.properties).flatMap(([n, f]) =>
        breakersFor(n, f, required.has(n)).map((b) => ({ n, b })),
      );
      return fc.tuple(fc.constant(schema), contentFor(schema), fc.constantFrom(...candidates));
    });
    fc.assert(
      fc.property(broken, ([schema, content, { n, b }]) => {
        const result = validate(schema, b(content));
        expect(result.ok, JSON.stringify({ schema, content: b(content) })).toBe(false);
        if (!result.ok) expect(result.issues.some((i) => i.path[0] === n)).toBe(true);
      }),
      runs,
    );
  });

  it('rejects any key that is not a field', () => {
    fc.assert(
      fc.property(
        formSchema.chain((s) => fc.tuple(fc.constant(s), contentFor(s), fc.string({ minLength: 1 }))),
        ([schema, content, key]) => {
          fc.pre(!Object.hasOwn(schema.properties, key));
          const result = validate(schema, { ...content, [key]: 'x' });
          expect(result.ok).toBe(false);
        },
      ),
      runs,
    );
  });

  it('never throws on arbitrary JSON, as schema or as content', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.jsonValue(), (schema, content) => {
        expect(() => validate(schema as never, content)).not.toThrow();
        expect(() => parseFormSchema(schema)).not.toThrow();
        expect(() => describeFields(schema)).not.toThrow();
        expect(() => lint({ message: 'm', requestedSchema: schema })).not.toThrow();
        expect(() => lint(content)).not.toThrow();
      }),
      { numRuns: 500 },
    );
  });

  it('never throws on arbitrary values against a valid form', () => {
    fc.assert(
      fc.property(
        formSchema,
        fc.anything({ withNullPrototype: true, withObjectString: true, withBoxedValues: true }),
        (schema, content) => {
          expect(() => validate(schema, content)).not.toThrow();
          const result = validate(schema, content);
          if (result.ok) expect(Object.keys(result.value).every((k) => Object.hasOwn(schema.properties, k))).toBe(true);
        },
      ),
      runs,
    );
  });

  it('never throws on arbitrary text fed to the coercions', () => {
    fc.assert(
      fc.property(formSchema, fc.dictionary(fc.string(), fc.string()), (schema, raw) => {
        expect(() => coerceContent(schema, raw)).not.toThrow();
      }),
      runs,
    );
  });
});

describe('generated forms on the wire', () => {
  it('are accepted by the SDK’s own ElicitRequestFormParamsSchema, before and after normalization', () => {
    fc.assert(
      fc.property(formSchema, (schema) => {
        for (const s of [
          schema,
          toTitledEnums(schema),
          toLegacyEnums(schema),
          downgrade(schema, '2025-06-18').schema,
        ]) {
          const parsed = ElicitRequestFormParamsSchema.safeParse({
            mode: 'form',
            message: 'Pick values for the report',
            requestedSchema: s,
          });
          expect(parsed.success, JSON.stringify(s)).toBe(true);
        }
      }),
      runs,
    );
  });

  it('parse back to themselves with no problems', () => {
    fc.assert(
      fc.property(formSchema, (schema) => {
        const { schema: clean, problems } = parseFormSchema(JSON.parse(JSON.stringify(schema)));
        expect(problems).toEqual([]);
        expect(clean).toEqual(schema);
      }),
      runs,
    );
  });
});
