import { type FieldKind, type FieldSchema, type FormSchema, validate } from '@elicitkit/form';
import { describe, expect, it } from 'vitest';
import { sampleArguments, sampleContent } from './values.js';

describe('sampleArguments on server-sent schemas', () => {
  it.each([
    ['required as a number', { required: 5 }, {}],
    ['required as text', { required: 'env' }, {}],
    ['properties as a list', { properties: [1], required: ['env'] }, { env: 'doctor' }],
    ['a property that is text', { properties: { env: 'string' }, required: ['env'] }, { env: 'doctor' }],
    ['an enum that is not a list', { properties: { env: { enum: 'dev' } }, required: ['env'] }, { env: 'doctor' }],
    ['not an object at all', 'schema', {}],
  ])('%s: no crash', (_label, schema, expected) => {
    expect(sampleArguments(schema)).toEqual(expected);
  });

  it('fits required strings to their format, so the server’s own checks let the call through', () => {
    const props = Object.fromEntries(
      ['uri', 'email', 'date', 'date-time', 'hostname'].map((f) => [f, { type: 'string', format: f }]),
    );
    const args = sampleArguments({ properties: props, required: Object.keys(props) });
    expect(args.uri).toBe('https://example.com/doctor');
    expect(args.email).toBe('doctor@example.com');
    expect(String(args.date)).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(Number.isNaN(Date.parse(String(args['date-time'])))).toBe(false);
    expect(args.hostname).toBe('doctor');
  });

  it('makes free text unique per tag, within its bounds', () => {
    const schema: FormSchema = {
      type: 'object',
      properties: {
        user: { type: 'string', title: 'Username', minLength: 3, maxLength: 10 },
        mail: { type: 'string', title: 'Email', format: 'email' },
      },
    };
    const a = sampleContent(schema, '-aaaaa');
    const b = sampleContent(schema, '-bbbbb');
    expect(a).toEqual({ user: 'ctor-aaaaa', mail: 'doctor-aaaaa@example.com' });
    expect(a.user).not.toBe(b.user);
    expect(validate(schema, a)).toEqual({ ok: true, value: a });
  });

  it('keeps a required __proto__ an ordinary argument', () => {
    const args = sampleArguments(JSON.parse('{"properties":{"__proto__":{"type":"object"}},"required":["__proto__"]}'));
    expect(Object.getPrototypeOf(args)).toBe(Object.prototype);
    expect(Object.keys(args)).toEqual(['__proto__']);
  });
});

/** One field of every kind, bounds included: a new kind fails to compile here until it has a case. */
const EVERY_KIND: Record<FieldKind, FieldSchema[]> = {
  text: [
    { type: 'string', title: 'Ticket', minLength: 8 },
    { type: 'string', title: 'Code', maxLength: 3 },
  ],
  email: [{ type: 'string', title: 'Email', format: 'email' }],
  uri: [{ type: 'string', title: 'Site', format: 'uri' }],
  date: [{ type: 'string', title: 'Day', format: 'date' }],
  'date-time': [{ type: 'string', title: 'At', format: 'date-time' }],
  number: [
    { type: 'number', title: 'Ratio', maximum: 0.5 },
    { type: 'number', title: 'Budget', minimum: 10 },
  ],
  integer: [{ type: 'integer', title: 'Replicas', minimum: 2, maximum: 9 }],
  boolean: [{ type: 'boolean', title: 'Notify' }],
  select: [{ type: 'string', title: 'Env', oneOf: [{ const: 'dev', title: 'Dev' }] }],
  multiselect: [{ type: 'array', title: 'Tags', items: { type: 'string', enum: ['a', 'b', 'c'] }, minItems: 2 }],
};

describe('doctor’s sample answers', () => {
  it('fill every field of every kind with a value its form accepts', () => {
    const properties = Object.fromEntries(
      Object.values(EVERY_KIND)
        .flat()
        .map((field, i) => [`f${i}`, field]),
    );
    const schema: FormSchema = { type: 'object', properties, required: Object.keys(properties) };
    const content = sampleContent(schema);
    expect(Object.keys(content)).toEqual(Object.keys(properties));
    expect(validate(schema, content)).toEqual({ ok: true, value: content });
  });

  it('send a field’s default when it has one', () => {
    const schema: FormSchema = {
      type: 'object',
      properties: { env: { type: 'string', title: 'Env', enum: ['dev', 'prod'], default: 'prod' } },
    };
    expect(sampleContent(schema)).toEqual({ env: 'prod' });
  });
});
