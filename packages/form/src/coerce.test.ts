import { describe, expect, it } from 'vitest';
import { coerceContent, coerceValue } from './coerce.js';
import { describeFields, type FieldModel } from './fields.js';
import type { FormSchema } from './wire.js';

const schema: FormSchema = {
  type: 'object',
  properties: {
    replicas: { type: 'integer', title: 'Replicas', minimum: 1, maximum: 5 },
    ratio: { type: 'number', title: 'Ratio' },
    confirmed: { type: 'boolean', title: 'Confirmed' },
    env: {
      type: 'string',
      title: 'Env',
      oneOf: [
        { const: 'prod', title: '生产 (prod)' },
        { const: 'dev', title: 'Development' },
      ],
    },
    notify: {
      type: 'array',
      title: 'Notify',
      items: {
        anyOf: [
          { const: 'email', title: 'Email' },
          { const: 'sms', title: 'SMS' },
        ],
      },
    },
    note: { type: 'string', title: 'Note' },
  },
  required: ['replicas'],
};
const fields = new Map(describeFields(schema).map((f) => [f.name, f]));
const f = (name: string) => fields.get(name) as FieldModel;

describe('coerceValue', () => {
  it.each([
    ['replicas', '3', 3],
    ['replicas', ' +4 ', 4],
    ['ratio', '2.5', 2.5],
    ['ratio', '-.5', -0.5],
    ['ratio', '1e3', 1000],
    ['confirmed', 'y', true],
    ['confirmed', 'YES', true],
    ['confirmed', 'true', true],
    ['confirmed', 'n', false],
    ['confirmed', 'No', false],
    ['confirmed', '是', true],
    ['confirmed', '否', false],
    ['env', 'prod', 'prod'],
    ['env', 'PROD', 'prod'],
    ['env', 'development', 'dev'],
    ['env', '生产 (prod)', 'prod'],
    ['notify', 'email, sms', ['email', 'sms']],
    ['notify', 'SMS，email、sms', ['sms', 'email']],
    ['note', '  keep my spaces ', '  keep my spaces '],
  ])('%s ← %j', (name, input, value) => {
    expect(coerceValue(f(name), input)).toEqual({ ok: true, value });
  });

  it.each([
    ['replicas', '3.5', /whole number/],
    ['replicas', '12abc', /whole number/],
    ['replicas', '99999999999999999999', /too large/],
    ['ratio', 'two', /Type a number/],
    ['ratio', '1,5', /Type a number/],
    ['ratio', 'Infinity', /Type a number/],
    ['confirmed', 'maybe', /yes or no/],
    ['env', 'staging', /Choose one of: prod \(生产 \(prod\)\), dev \(Development\)/],
    ['notify', 'email, fax', /"fax" is not an option/],
  ])('%s ← %j fails clearly', (name, input, message) => {
    const result = coerceValue(f(name), input);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.message).toMatch(message);
  });

  it.each([
    ['0.10000000000000000001', 0.1],
    ['1e-400', 0],
    // JSON has no negative zero: any spelling of it is sent as 0, as the CLI and the chat say.
    ['-1e-400', -0],
    ['-0', -0],
    ['-0.0', -0],
    ['-0e5', -0],
    ['9007199254740993', 9007199254740992],
    ['123456789012345678901234567890', 1.2345678901234568e29],
  ])('refuses %s for a number, which would arrive as %s, saying so', (input, arrivesAs) => {
    expect(coerceValue(f('ratio'), input)).toEqual({
      ok: false,
      message: `${input} cannot be sent exactly: it would arrive as ${arrivesAs}.`,
      arrivesAs,
    });
  });

  it.each([
    ['2.50e-1', 0.25],
    ['0.1', 0.1],
    ['0', 0],
    ['+0', 0],
    ['0.0000001', 1e-7],
    ['1e21', 1e21],
    ['+.5', 0.5],
    ['9007199254740992', 9007199254740992],
  ])('takes %s for a number: it arrives as typed', (input, value) => {
    expect(coerceValue(f('ratio'), input)).toEqual({ ok: true, value });
  });

  it('judges a number of a million digits, zeros inside, in one pass', () => {
    const long = `1.${'0'.repeat(1_000_000)}1`;
    expect(coerceValue(f('ratio'), long)).toEqual({
      ok: false,
      message: `${long} cannot be sent exactly: it would arrive as 1.`,
      arrivesAs: 1,
    });
    expect(coerceValue(f('ratio'), `1.${'0'.repeat(1_000_000)}`)).toEqual({ ok: true, value: 1 });
  });

  it('refuses -0 for a whole number too: it would arrive as 0', () => {
    expect(coerceValue(f('replicas'), '-0')).toEqual({
      ok: false,
      message: '-0 cannot be sent exactly: it would arrive as 0.',
      arrivesAs: -0,
    });
  });

  it('reads empty input as "left empty"', () => {
    expect(coerceValue(f('note'), '   ')).toEqual({ ok: true, value: undefined });
    expect(coerceValue(f('replicas'), '')).toEqual({ ok: true, value: undefined });
  });
});

describe('coerceContent', () => {
  it('turns text inputs into a validated answer', () => {
    expect(coerceContent(schema, { replicas: '2', confirmed: 'n', notify: 'email', note: '' })).toEqual({
      ok: true,
      value: { replicas: 2, confirmed: false, notify: ['email'] },
    });
  });

  it('reports coercion failures, unknown keys and constraint failures', () => {
    const bad = coerceContent(schema, { replicas: 'x', nope: '1' });
    expect(bad.ok).toBe(false);
    if (!bad.ok)
      expect(bad.issues.map((i) => `${i.path[0]}:${i.code}`)).toEqual(['replicas:type', 'nope:unknown_field']);
    const range = coerceContent(schema, { replicas: '9' });
    expect(range.ok).toBe(false);
    if (!range.ok) expect(range.issues.map((i) => i.code)).toEqual(['too_big']);
    const missing = coerceContent(schema, {});
    expect(missing.ok).toBe(false);
    if (!missing.ok) expect(missing.issues.map((i) => i.code)).toEqual(['required']);
  });

  it('lists unknown keys up to 20, then says how many more, as validate does', () => {
    const raw: Record<string, string> = { replicas: '1' };
    for (let i = 0; i < 1000; i++) raw[`k${i}`] = 'x';
    const result = coerceContent(schema, raw);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.issues).toHaveLength(21);
    expect(result.issues[20]).toEqual({
      path: [],
      code: 'unknown_field',
      message: 'And 980 more keys that are not fields of this form.',
    });
  });

  it('does not pollute prototypes through keys', () => {
    const raw = JSON.parse('{"__proto__":"x","replicas":"1"}');
    const result = coerceContent(schema, raw);
    expect(result.ok).toBe(false);
    expect(Object.prototype).not.toHaveProperty('x');
  });
});
