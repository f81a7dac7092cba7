import { ElicitkitError } from '@elicitkit/form';
import { describe, expect, it } from 'vitest';
import { describeArguments, toolArguments } from './arguments.js';
import { ToolSchemaError } from './errors.js';
import { readInputSchema } from './input-schema.js';

const source = { server: 'evil', tool: 'deploy' };
const many = Object.fromEntries(Array.from({ length: 501 }, (_, i) => [`p${i}`, { type: 'string' }]));
let deep: Record<string, unknown> = { type: 'string' };
for (let i = 0; i < 12; i++) deep = { type: 'array', items: deep };

describe('server-sent input schemas', () => {
  it.each([
    [
      'a string enum',
      { properties: { env: { type: 'string', enum: 'dev' } } },
      /properties\["env"\]\.enum is the text "dev", not a list/,
    ],
    ['an object enum', { properties: { env: { enum: { a: 1 } } } }, /\.enum is an object, not a list/],
    ['an enum of objects', { properties: { env: { enum: [{ a: 1 }] } } }, /\.enum\[0\] is an object; only strings/],
    [
      'a property that is a string',
      { properties: { env: 'string' } },
      /properties\["env"\] is the text "string", not a schema object/,
    ],
    ['a property that is null', { properties: { env: null } }, /is null, not a schema object/],
    ['properties as a list', { properties: [{ type: 'string' }] }, /inputSchema\.properties is a list, not an object/],
    ['properties as a number', { properties: 5 }, /inputSchema\.properties is number 5/],
    ['a numeric type', { properties: { n: { type: 7 } } }, /\.type is number 7, not a type name/],
    [
      'a list type with an object in it',
      { properties: { n: { type: ['string', {}] } } },
      /\.type is a list, not a type name/,
    ],
    ['required as text', { required: 'service' }, /inputSchema\.required is not a list of names/],
    ['required with numbers', { required: [1] }, /inputSchema\.required is not a list of names/],
    ['a description object', { properties: { n: { description: { x: 1 } } } }, /\.description is an object, not text/],
    ['items as a string', { properties: { n: { type: 'array', items: 'string' } } }, /\.items is the text "string"/],
    ['a schema that is a string', 'object', /inputSchema is the text "object", not an object/],
    ['a schema that is a list', [], /inputSchema is a list, not an object/],
    ['too many properties', { properties: many }, /has 501 entries; at most 500/],
    ['a huge enum', { properties: { e: { enum: Array.from({ length: 1001 }, (_, i) => i) } } }, /has 1001 values/],
    ['deep nesting', { properties: { d: deep } }, /nests deeper than 8 levels/],
  ])('%s: a ToolSchemaError naming the server and the tool', (_label, schema, problem) => {
    for (const read of [
      () => describeArguments(schema, source),
      () => toolArguments(schema, [], undefined, source),
      () => readInputSchema(schema, source),
    ]) {
      let caught: unknown;
      try {
        read();
      } catch (e) {
        caught = e;
      }
      expect(caught).toBeInstanceOf(ToolSchemaError);
      expect(ElicitkitError.is(caught) && caught.code).toBe('BAD_TOOL_SCHEMA');
      expect((caught as ToolSchemaError).message).toMatch(/^tool "deploy" of server "evil" has an input schema/);
      expect((caught as ToolSchemaError).message).toMatch(problem);
      expect((caught as ToolSchemaError).server).toBe('evil');
      expect((caught as ToolSchemaError).tool).toBe('deploy');
    }
  });

  it('keeps __proto__ and constructor properties ordinary arguments, touching no prototype', () => {
    const schema = JSON.parse(
      '{"properties":{"__proto__":{"type":"string","enum":["x"]},"constructor":{"type":"integer"}},"required":["__proto__"]}',
    );
    expect(describeArguments(schema, source)).toEqual(['__proto__: x', 'constructor?: integer']);
    const args = toolArguments(schema, ['__proto__=x', 'constructor=3'], undefined, source);
    expect(Object.getPrototypeOf(args)).toBe(Object.prototype);
    expect(Object.entries(args)).toEqual([
      ['__proto__', 'x'],
      ['constructor', 3],
    ]);
    expect(() => toolArguments(schema, ['__proto__=y'], undefined, source)).toThrow(/expected one of x/);
    expect(({} as Record<string, unknown>).type).toBeUndefined();
  });

  it('reads a `true` property as an untyped argument and ignores unknown keywords', () => {
    expect(describeArguments({ properties: { a: true, b: { type: 'string', pattern: '^x', oneOf: 5 } } })).toEqual([
      'a?: any',
      'b?: string',
    ]);
  });

  it('takes a missing or null schema as "no arguments"', () => {
    expect(describeArguments(undefined)).toEqual([]);
    expect(describeArguments(null)).toEqual([]);
    expect(toolArguments(undefined, ['free=form'], undefined)).toEqual({ free: 'form' });
  });

  it('a schema that looks cyclic (shared objects) is read once per use, not walked forever', () => {
    const shared: Record<string, unknown> = { type: 'string', enum: ['a', 'b'] };
    const schema = { properties: { one: shared, two: shared, list: { type: 'array', items: shared } } };
    expect(describeArguments(schema, source)).toEqual(['one?: a|b', 'two?: a|b', 'list?: array']);
    const cyclic: Record<string, unknown> = { type: 'array' };
    cyclic.items = cyclic;
    expect(() => describeArguments({ properties: { c: cyclic } }, source)).toThrow(/nests deeper than 8 levels/);
  });

  it('without a source the message still says what is wrong', () => {
    expect(() => describeArguments({ properties: { env: { enum: 'x' } } })).toThrow(
      /^a tool has an input schema elicitkit cannot use: inputSchema\.properties\["env"\]\.enum/,
    );
  });
});
