import { ElicitRequestFormParamsSchema } from '@modelcontextprotocol/core';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { ElicitkitError, FormSchemaError } from '../errors.js';
import type { FieldSchema } from '../wire.js';
import { form, fromJsonSchema, type Infer } from './form.js';
import { field } from './kinds.js';

/** Every shape of the 2025-11-25 subset, built with the builder, and the wire JSON it must produce. */
const shapes: [string, ReturnType<typeof field.string> | ReturnType<typeof field.boolean> | object, FieldSchema][] = [
  [
    'string with length bounds and default',
    field.string({ title: 'Ticket', minLength: 4, maxLength: 12, default: 'REL-' + '0000' }),
    { type: 'string', title: 'Ticket', minLength: 4, maxLength: 12, default: 'REL-0000' },
  ],
  ['email', field.string({ title: 'Email', format: 'email' }), { type: 'string', title: 'Email', format: 'email' }],
  [
    'uri',
    field.string({ title: 'Homepage', format: 'uri', default: 'https://example.com' }),
    { type: 'string', title: 'Homepage', format: 'uri', default: 'https://example.com' },
  ],
  [
    'date',
    field.string({ title: 'From', format: 'date', default: '2026-03-01' }),
    { type: 'string', title: 'From', format: 'date', default: '2026-03-01' },
  ],
  [
    'date-time',
    field.string({ title: 'At', format: 'date-time' }),
    { type: 'string', title: 'At', format: 'date-time' },
  ],
  [
    'number with bounds and default',
    field.number({ title: 'Budget', minimum: 0, maximum: 1e6, default: 10.5 }),
    { type: 'number', title: 'Budget', minimum: 0, maximum: 1e6, default: 10.5 },
  ],
  [
    'integer with bounds and default',
    field.integer({ title: 'Replicas', minimum: 1, maximum: 10, default: 2 }),
    { type: 'integer', title: 'Replicas', minimum: 1, maximum: 10, default: 2 },
  ],
  [
    'boolean with default',
    field.boolean({ title: 'Newsletter', default: false }),
    { type: 'boolean', title: 'Newsletter', default: false },
  ],
  [
    'untitled single select',
    field.select(['dev', 'staging', 'prod'], { title: 'Env', default: 'dev' }),
    { type: 'string', title: 'Env', enum: ['dev', 'staging', 'prod'], default: 'dev' },
  ],
  [
    'titled single select',
    field.select(
      [
        { value: 'dev', title: '开发 (dev)' },
        { value: 'prod', title: '生产 (prod)' },
      ],
      { title: '目标环境' },
    ),
    {
      type: 'string',
      title: '目标环境',
      oneOf: [
        { const: 'dev', title: '开发 (dev)' },
        { const: 'prod', title: '生产 (prod)' },
      ],
    },
  ],
  [
    'legacy single select',
    field.select(
      [
        { value: 'dev', title: 'Development' },
        { value: 'prod', title: 'Production' },
      ],
      { title: 'Env', style: 'legacy', default: 'dev' },
    ),
    { type: 'string', title: 'Env', enum: ['dev', 'prod'], enumNames: ['Development', 'Production'], default: 'dev' },
  ],
  [
    'untitled multi select',
    field.multiSelect(['email', 'sms', 'push'], { title: 'Channels', minItems: 1, maxItems: 2, default: ['email'] }),
    {
      type: 'array',
      title: 'Channels',
      items: { type: 'string', enum: ['email', 'sms', 'push'] },
      minItems: 1,
      maxItems: 2,
      default: ['email'],
    },
  ],
  [
    'titled multi select',
    field.multiSelect(
      [
        { value: 'email', title: 'Email' },
        { value: 'sms', title: 'SMS' },
      ],
      { title: 'Channels', maxItems: 2 },
    ),
    {
      type: 'array',
      title: 'Channels',
      items: {
        anyOf: [
          { const: 'email', title: 'Email' },
          { const: 'sms', title: 'SMS' },
        ],
      },
      maxItems: 2,
    },
  ],
];

describe('form builder: every shape', () => {
  it.each(shapes)('%s: builds the wire JSON the SDK accepts', (_label, def, wire) => {
    const f = form({ value: def as ReturnType<typeof field.string> });
    expect(f.schema).toEqual({ type: 'object', properties: { value: wire }, required: ['value'] });
    const parsed = ElicitRequestFormParamsSchema.safeParse({
      mode: 'form',
      message: 'Fill in the release details',
      requestedSchema: f.schema,
    });
    expect(parsed.success, JSON.stringify(parsed.error?.issues)).toBe(true);
  });

  it('marks optional fields as not required, and omits `required` when none are', () => {
    const f = form({ a: field.string({ title: 'A' }).optional(), b: field.boolean({ title: 'B' }).optional() });
    expect(f.schema).toEqual({
      type: 'object',
      properties: { a: { type: 'string', title: 'A' }, b: { type: 'boolean', title: 'B' } },
    });
  });

  it('keeps the declared field order', () => {
    const f = form({
      zeta: field.boolean({ title: 'Z' }),
      alpha: field.boolean({ title: 'A' }),
      mid: field.boolean({ title: 'M' }),
    });
    expect(Object.keys(f.schema.properties)).toEqual(['zeta', 'alpha', 'mid']);
  });
});

describe('form builder: inferred answer type', () => {
  const deploy = form({
    env: field.select(
      [
        { value: 'dev', title: 'Dev' },
        { value: 'prod', title: 'Prod' },
      ],
      { title: 'Environment' },
    ),
    confirmed: field.boolean({ title: 'I confirm', default: false }).optional(),
    ticket: field.string({ title: 'Ticket', minLength: 4 }),
    note: field.string({ title: 'Note' }).optional(),
    replicas: field.integer({ title: 'Replicas' }),
    tags: field.multiSelect(['a', 'b'], { title: 'Tags' }).optional(),
  });

  it('types required and defaulted fields as present, optional ones as possibly missing', () => {
    expectTypeOf<Infer<typeof deploy>>().toEqualTypeOf<{
      env: 'dev' | 'prod';
      confirmed: boolean;
      ticket: string;
      replicas: number;
      note?: string;
      tags?: ('a' | 'b')[];
    }>();
  });

  it('parse() applies defaults and returns the typed value', () => {
    const result = deploy.parse({ env: 'prod', ticket: 'REL-1001', replicas: 2 });
    expect(result).toEqual({ ok: true, value: { env: 'prod', ticket: 'REL-1001', replicas: 2, confirmed: false } });
    if (result.ok) expectTypeOf(result.value.env).toEqualTypeOf<'dev' | 'prod'>();
  });

  it('parse() on 2025-06-18 never fills a default that revision could not show (booleans only)', () => {
    // The client was sent no default for env, replicas or note, and asked them as required.
    const asked = form({
      env: field.select(['dev', 'prod'], { title: 'Environment', default: 'prod' }).optional(),
      replicas: field.integer({ title: 'Replicas', default: 9 }).optional(),
      note: field.string({ title: 'Note', default: 'drop the table' }).optional(),
      notify: field.boolean({ title: 'Notify the team', default: true }),
      ticket: field.string({ title: 'Ticket' }),
    });
    for (const revision of ['2025-06-18', '2025-03-26']) {
      const left = asked.parse({ ticket: 'REL-1' }, { revision });
      expect(left.ok).toBe(false);
      if (!left.ok)
        expect(left.issues).toEqual([
          { path: ['env'], code: 'required', message: '"Environment" is required.' },
          { path: ['replicas'], code: 'required', message: '"Replicas" is required.' },
          { path: ['note'], code: 'required', message: '"Note" is required.' },
        ]);
      // The boolean default was shown, and fills; what the person gave is kept.
      expect(asked.parse({ ticket: 'REL-1', env: 'dev', replicas: 1, note: '' }, { revision })).toEqual({
        ok: true,
        value: { ticket: 'REL-1', env: 'dev', replicas: 1, note: '', notify: true },
      });
      // Other issues are still reported beside them.
      const both = asked.parse({ env: 'qa' }, { revision });
      expect(both.ok || both.issues.map((i) => [i.path[0], i.code])).toEqual([
        ['replicas', 'required'],
        ['note', 'required'],
        ['ticket', 'required'],
        ['env', 'not_in_options'],
      ]);
    }
    for (const revision of ['2025-11-25', '2026-07-28', undefined]) {
      const options = revision === undefined ? {} : { revision };
      expect(asked.parse({ ticket: 'REL-1' }, options)).toEqual({
        ok: true,
        value: { ticket: 'REL-1', env: 'prod', replicas: 9, note: 'drop the table', notify: true },
      });
    }
  });

  it('parse() reports every issue as data', () => {
    const result = deploy.parse({ env: 'qa', ticket: 'R1', replicas: 1.5, extra: true });
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.issues.map((i) => [i.path[0], i.code]).sort()).toEqual([
        ['env', 'not_in_options'],
        ['extra', 'unknown_field'],
        ['replicas', 'not_integer'],
        ['ticket', 'too_short'],
      ]);
    }
  });

  it('is a Standard Schema', () => {
    expect(deploy['~standard'].vendor).toBe('elicitkit');
    expect(deploy['~standard'].validate({ env: 'dev', ticket: 'REL-1', replicas: 1 })).toEqual({
      value: { env: 'dev', ticket: 'REL-1', replicas: 1, confirmed: false },
    });
    const bad = deploy['~standard'].validate({});
    expect('issues' in bad && bad.issues.length).toBe(3);
  });

  it('rejects keys outside the options at compile time', () => {
    // @ts-expect-error pattern is not part of the restricted schema
    expect(() => form({ code: field.string({ title: 'Code', pattern: '^[A-Z]+$' }) })).toThrow(FormSchemaError);
    // @ts-expect-error a select default must be one of the choices
    expect(() => form({ env: field.select(['dev', 'prod'], { title: 'Env', default: 'qa' }) })).toThrow(/default "qa"/);
  });
});

describe('form builder: shapes outside the subset fail at build time with a fix', () => {
  const cases: [string, () => unknown, RegExp][] = [
    [
      'pattern',
      () => form({ code: field.string({ title: 'Code', pattern: '^x$' } as never) }),
      /pattern.*Validate the value on the server/s,
    ],
    [
      'nested object',
      () => form({ address: { type: 'object', properties: { city: { type: 'string' } } } as never }),
      /not a field builder.*nested objects are not allowed/s,
    ],
    [
      'nested object from JSON',
      () => fromJsonSchema({ type: 'object', properties: { address: { type: 'object', properties: {} } } }),
      /nested object.*Flatten it/s,
    ],
    [
      '$ref',
      () => fromJsonSchema({ type: 'object', properties: { a: { $ref: '#/$defs/a' } } }),
      /\$ref.*Inline the definition/s,
    ],
    [
      'array of non-enum',
      () => fromJsonSchema({ type: 'object', properties: { tags: { type: 'array', items: { type: 'string' } } } }),
      /not of enum strings.*comma-separated/s,
    ],
    [
      'array of objects',
      () => fromJsonSchema({ type: 'object', properties: { rows: { type: 'array', items: { type: 'object' } } } }),
      /array.*multi-select/s,
    ],
    [
      'unknown format',
      () => form({ ip: field.string({ title: 'IP', format: 'ipv4' as never }) }),
      /format "ipv4".*email, uri, date, date-time/s,
    ],
    [
      'min above max',
      () => form({ n: field.integer({ title: 'N', minimum: 5, maximum: 1 }) }),
      /minimum 5 above maximum 1/,
    ],
    [
      'a whole-number range with no whole number in it',
      () => form({ n: field.integer({ title: 'N', minimum: 1.2, maximum: 1.8 }) }),
      /whole number with minimum 1\.2 and maximum 1\.8, and no whole number that can be sent exactly lies there/,
    ],
    [
      'a whole-number range past what JSON carries exactly',
      () => fromJsonSchema({ type: 'object', properties: { n: { type: 'integer', title: 'N', minimum: 1e20 } } }),
      /minimum 100000000000000000000, and no whole number/,
    ],
    ['duplicate options', () => form({ e: field.select(['a', 'a'], { title: 'E' }) }), /lists "a" twice/],
    ['empty options', () => form({ e: field.select([], { title: 'E' }) }), /non-empty list/],
    [
      'default out of bounds',
      () => form({ n: field.integer({ title: 'N', maximum: 3, default: 9 }) }),
      /default 9 .*at most 3/,
    ],
    [
      'default with the wrong format',
      () => form({ d: field.string({ title: 'D', format: 'date', default: '2026-02-30' }) }),
      /default "2026-02-30".*calendar date/,
    ],
    [
      'multi default too long',
      () => form({ m: field.multiSelect(['a', 'b'], { title: 'M', maxItems: 1, default: ['a', 'b'] }) }),
      /at most 1 selection/,
    ],
    ['empty form', () => form({}), /no fields/],
    [
      'reserved name',
      () => fromJsonSchema({ type: 'object', properties: JSON.parse('{"__proto__": {"type": "string"}}') }),
      /cannot be used/,
    ],
  ];

  it.each(cases)('%s', (_label, build, message) => {
    let thrown: unknown;
    try {
      build();
    } catch (e) {
      thrown = e;
    }
    expect(thrown).toBeInstanceOf(FormSchemaError);
    expect(ElicitkitError.is(thrown)).toBe(true);
    expect((thrown as FormSchemaError).code).toBe('FORM_SCHEMA');
    expect((thrown as Error).message).toMatch(message);
    expect((thrown as FormSchemaError).problems.length).toBeGreaterThan(0);
  });

  it('fromJsonSchema keeps a valid raw schema as is, dropping only harmless root keys', () => {
    const f = fromJsonSchema({
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'object',
      additionalProperties: false,
      properties: { n: { type: 'string', title: 'Name' } },
      required: ['n'],
    });
    expect(f.schema).toEqual({ type: 'object', properties: { n: { type: 'string', title: 'Name' } }, required: ['n'] });
  });
});
