import { describe, expect, it } from 'vitest';
import { applyDefaults, defaultsOf } from './defaults.js';
import { describeField, describeFields, humanize } from './fields.js';
import { field, form } from './index.js';
import { validate } from './validate/validate.js';
import type { FormSchema } from './wire.js';

const schema: FormSchema = {
  type: 'object',
  properties: {
    releaseTicket: { type: 'string', minLength: 4, maxLength: 20, description: 'e.g. REL-1001' },
    email: { type: 'string', title: 'Email', format: 'email', default: 'a@b.co' },
    from_date: { type: 'string', title: 'From', format: 'date' },
    at: { type: 'string', title: 'At', format: 'date-time' },
    site: { type: 'string', title: 'Site', format: 'uri' },
    budget: { type: 'number', title: 'Budget', minimum: 0 },
    replicas: { type: 'integer', title: 'Replicas', maximum: 9, default: 2 },
    confirmed: { type: 'boolean', title: '我确认', default: false },
    env: { type: 'string', title: '环境', oneOf: [{ const: 'dev', title: '开发 (dev)' }], default: 'dev' },
    plain: { type: 'string', title: 'Plain', enum: ['a', 'b'] },
    legacy: { type: 'string', title: 'Legacy', enum: ['a', 'b'], enumNames: ['Alpha', 'Beta'] },
    tags: {
      type: 'array',
      title: 'Tags',
      items: { type: 'string', enum: ['x', 'y'] },
      minItems: 1,
      maxItems: 2,
      default: ['x'],
    },
    chans: { type: 'array', title: 'Channels', items: { anyOf: [{ const: 'sms', title: 'SMS' }] } },
  },
  required: ['releaseTicket', 'env'],
};

describe('describeFields', () => {
  it('gives every renderer the same ordered model', () => {
    expect(describeFields(schema)).toEqual([
      {
        name: 'releaseTicket',
        label: 'Release ticket',
        help: 'e.g. REL-1001',
        required: true,
        kind: 'text',
        minLength: 4,
        maxLength: 20,
      },
      { name: 'email', label: 'Email', required: false, kind: 'email', default: 'a@b.co' },
      { name: 'from_date', label: 'From', required: false, kind: 'date' },
      { name: 'at', label: 'At', required: false, kind: 'date-time' },
      { name: 'site', label: 'Site', required: false, kind: 'uri' },
      { name: 'budget', label: 'Budget', required: false, kind: 'number', minimum: 0 },
      { name: 'replicas', label: 'Replicas', required: false, kind: 'integer', maximum: 9, default: 2 },
      { name: 'confirmed', label: '我确认', required: false, kind: 'boolean', default: false, confirmation: true },
      {
        name: 'env',
        label: '环境',
        required: true,
        kind: 'select',
        titled: true,
        options: [{ value: 'dev', label: '开发 (dev)' }],
        default: 'dev',
      },
      {
        name: 'plain',
        label: 'Plain',
        required: false,
        kind: 'select',
        titled: false,
        options: [
          { value: 'a', label: 'a' },
          { value: 'b', label: 'b' },
        ],
      },
      {
        name: 'legacy',
        label: 'Legacy',
        required: false,
        kind: 'select',
        titled: true,
        options: [
          { value: 'a', label: 'Alpha' },
          { value: 'b', label: 'Beta' },
        ],
      },
      {
        name: 'tags',
        label: 'Tags',
        required: false,
        kind: 'multiselect',
        titled: false,
        options: [
          { value: 'x', label: 'x' },
          { value: 'y', label: 'y' },
        ],
        minItems: 1,
        maxItems: 2,
        default: ['x'],
      },
      {
        name: 'chans',
        label: 'Channels',
        required: false,
        kind: 'multiselect',
        titled: true,
        options: [{ value: 'sms', label: 'SMS' }],
      },
    ]);
  });

  it('leaves out fields outside the subset and never throws on junk', () => {
    expect(
      describeFields({ type: 'object', properties: { a: { type: 'object' }, b: { type: 'boolean', title: 'B' } } }).map(
        (f) => f.name,
      ),
    ).toEqual(['b']);
    expect(describeFields(null)).toEqual([]);
  });

  it('humanizes keys', () => {
    expect(humanize('releaseTicket')).toBe('Release ticket');
    expect(humanize('from_date')).toBe('From date');
    expect(humanize('typed-table-name')).toBe('Typed table name');
  });

  it('refuses to describe a field that was never parsed into the subset', () => {
    expect(() => describeField('address', { type: 'object' } as never, false)).toThrow(
      'Field "address" is outside the restricted schema',
    );
  });
});

describe('applyDefaults', () => {
  it('fills only what is missing and never replaces an answer', () => {
    expect(applyDefaults(schema, { email: 'me@x.io', replicas: 0 })).toEqual({
      email: 'me@x.io',
      replicas: 0,
      confirmed: false,
      env: 'dev',
      tags: ['x'],
    });
  });

  it('copies array defaults so the schema cannot be mutated through the answer', () => {
    const filled = defaultsOf(schema);
    (filled.tags as string[]).push('y');
    expect(schema.properties.tags?.default).toEqual(['x']);
  });

  it('keeps a __proto__ key as a plain key, so validation reports it', async () => {
    const { validate } = await import('./validate/validate.js');
    const content = JSON.parse('{"__proto__": "x", "releaseTicket": "REL-1001", "env": "dev"}');
    const filled = applyDefaults(schema, content) as Record<string, unknown>;
    expect(Object.getPrototypeOf(filled)).toBe(Object.prototype);
    expect(Object.keys(filled)).toContain('__proto__');
    const result = validate(schema, filled);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.issues.map((i) => `${i.path[0]}:${i.code}`)).toEqual(['__proto__:unknown_field']);
  });

  it('returns non-objects unchanged for validation to report', () => {
    expect(applyDefaults(schema, null)).toBeNull();
    expect(applyDefaults(schema, 'x')).toBe('x');
  });
});

describe('defaults of fields named like Object.prototype members', () => {
  const schema: FormSchema = {
    type: 'object',
    properties: {
      toString: { type: 'string' as const, title: 'Note', default: 'none' },
      valueOf: { type: 'integer' as const, title: 'Replicas', default: 2 },
      hasOwnProperty: { type: 'boolean' as const, title: 'Keep', default: false },
    },
    required: ['toString', 'valueOf'],
  };

  it('are filled when the answer leaves them out, and never replace a value given', () => {
    expect(applyDefaults(schema, {})).toEqual({ toString: 'none', valueOf: 2, hasOwnProperty: false });
    expect(defaultsOf(schema)).toEqual({ toString: 'none', valueOf: 2, hasOwnProperty: false });
    expect(applyDefaults(schema, { toString: 'given', valueOf: 5 })).toEqual({
      toString: 'given',
      valueOf: 5,
      hasOwnProperty: false,
    });
  });

  it('so an answer leaving them out validates, and a built form parses {} to its defaults', () => {
    expect(validate(schema, applyDefaults(schema, {}))).toMatchObject({ ok: true });
    const f = form({ toString: field.string({ title: 'Note', default: 'none' }) });
    expect(f.parse({})).toEqual({ ok: true, value: { toString: 'none' } });
  });
});
