import { toJsonSchema, toStandardJsonSchema } from '@valibot/to-json-schema';
import { type } from 'arktype';
import * as v from 'valibot';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { z } from 'zod';
import { ElicitkitError, FormSchemaError } from '../errors.js';
import { lint } from '../lint/index.js';
import type { SchemaProblem } from '../schema/problems.js';
import { type AnyForm, form, type Infer } from './form.js';
import { field } from './kinds.js';
import type { StandardFormOptions } from './standard.js';

function refused(build: () => unknown): SchemaProblem[] {
  try {
    build();
  } catch (error) {
    expect(error).toBeInstanceOf(FormSchemaError);
    return [...(error as FormSchemaError).problems];
  }
  throw new Error('the form was built');
}

describe('form(zod schema): accepted shapes', () => {
  const deploy = form(
    z.object({
      env: z.enum(['staging', 'prod']).meta({ title: 'Environment' }),
      region: z.union([z.literal('eu').meta({ title: 'Europe' }), z.literal('us').meta({ title: 'America' })]),
      email: z.email().meta({ title: 'Email' }),
      from: z.iso.date().meta({ title: 'From' }),
      at: z.iso.datetime().meta({ title: 'At' }),
      homepage: z.url().meta({ title: 'Homepage' }),
      replicas: z.number().int().min(1).max(10).meta({ title: 'Replicas' }),
      count: z.int().meta({ title: 'Count' }),
      budget: z.number().min(0).meta({ title: 'Budget' }),
      notify: z.boolean().default(false).meta({ title: 'Notify' }),
      tags: z
        .array(z.enum(['a', 'b']))
        .min(1)
        .meta({ title: 'Tags' }),
      zones: z.array(z.union([z.literal('z1').meta({ title: 'Zone 1' }), z.literal('z2')])).meta({ title: 'Zones' }),
      note: z.string().max(200).optional().meta({ title: 'Note', description: 'Anything the team should know' }),
    }),
  );

  it('sends the restricted schema, in the subset’s own spelling', () => {
    expect(deploy.schema).toEqual({
      type: 'object',
      properties: {
        env: { type: 'string', title: 'Environment', enum: ['staging', 'prod'] },
        region: {
          type: 'string',
          oneOf: [
            { const: 'eu', title: 'Europe' },
            { const: 'us', title: 'America' },
          ],
        },
        email: { type: 'string', title: 'Email', format: 'email' },
        from: { type: 'string', title: 'From', format: 'date' },
        at: { type: 'string', title: 'At', format: 'date-time' },
        homepage: { type: 'string', title: 'Homepage', format: 'uri' },
        replicas: { type: 'integer', title: 'Replicas', minimum: 1, maximum: 10 },
        count: { type: 'integer', title: 'Count' },
        budget: { type: 'number', title: 'Budget', minimum: 0 },
        notify: { type: 'boolean', title: 'Notify', default: false },
        tags: { type: 'array', title: 'Tags', items: { type: 'string', enum: ['a', 'b'] }, minItems: 1 },
        zones: {
          type: 'array',
          title: 'Zones',
          items: {
            anyOf: [
              { const: 'z1', title: 'Zone 1' },
              { const: 'z2', title: 'z2' },
            ],
          },
        },
        note: { type: 'string', title: 'Note', description: 'Anything the team should know', maxLength: 200 },
      },
      required: ['env', 'region', 'email', 'from', 'at', 'homepage', 'replicas', 'count', 'budget', 'tags', 'zones'],
    });
  });

  it('types the answer as the schema’s output', () => {
    type Out = {
      env: 'staging' | 'prod';
      region: 'eu' | 'us';
      email: string;
      from: string;
      at: string;
      homepage: string;
      replicas: number;
      count: number;
      budget: number;
      notify: boolean;
      tags: ('a' | 'b')[];
      zones: ('z1' | 'z2')[];
      note?: string;
    };
    expectTypeOf<Infer<typeof deploy>>().toEqualTypeOf<Out>();
  });

  const good = {
    env: 'prod',
    region: 'eu',
    email: 'ops@example.com',
    from: '2026-03-01',
    at: '2026-03-01T10:00:00Z',
    homepage: 'https://example.com',
    replicas: 3,
    count: -4,
    budget: 10.5,
    tags: ['a'],
    zones: ['z2'],
  };

  it('fills defaults and returns the library’s value', () => {
    const read = deploy.parse(good);
    expect(read).toEqual({ ok: true, value: { ...good, notify: false } });
  });

  it('checks the subset first, with the field’s label', () => {
    const read = deploy.parse({ ...good, replicas: 11 });
    expect(read.ok).toBe(false);
    if (!read.ok) expect(read.issues).toEqual([expect.objectContaining({ path: ['replicas'], code: 'too_big' })]);
  });

  it('is the same form as the one built with field.*, and lints the same', () => {
    const mine = form({
      env: field.select(['staging', 'prod']),
      ticket: field.string({ title: 'Release ticket', minLength: 4 }).optional(),
      confirmed: field.boolean({ title: 'Confirm', default: false }).optional(),
    });
    const theirs = form(
      z.object({
        env: z.enum(['staging', 'prod']),
        ticket: z.string().min(4).optional().meta({ title: 'Release ticket' }),
        confirmed: z.boolean().default(false).meta({ title: 'Confirm' }),
      }),
    );
    expect(theirs.schema).toEqual(mine.schema);
    expect(theirs.fields).toEqual(mine.fields);
    const message = 'Deploy to which environment?';
    const findings = lint({ mode: 'form', message, requestedSchema: theirs.schema });
    expect(findings).toEqual(lint({ mode: 'form', message, requestedSchema: mine.schema }));
    // The untitled field is flagged as it is for field.select() without a title.
    expect(findings.map((f) => f.rule)).toContain('EK07');
  });
});

describe('form(zod schema): the library reads every answer', () => {
  const release = form(
    z.object({
      ticket: z
        .string()
        .min(4)
        .refine((s) => s.startsWith('REL-'), 'Start the ticket with REL-')
        .meta({ title: 'Release ticket' }),
      name: z
        .string()
        .transform((s) => s.trim())
        .meta({ title: 'Name' }),
    }),
  );

  it('runs refinements, naming the field by its label', () => {
    const read = release.parse({ ticket: 'ABCD-1', name: 'x' });
    expect(read).toEqual({
      ok: false,
      issues: [{ path: ['ticket'], code: 'custom', message: '"Release ticket": Start the ticket with REL-' }],
    });
  });

  it('runs transforms: the handler gets the output', () => {
    expect(release.parse({ ticket: 'REL-1', name: '  Ada ' })).toEqual({
      ok: true,
      value: { ticket: 'REL-1', name: 'Ada' },
    });
  });

  it('its Standard Schema face gives the same issues', () => {
    const out = release['~standard'].validate({ ticket: 'nope', name: '' });
    expect(out).toEqual({ issues: [{ message: '"Release ticket": Start the ticket with REL-', path: ['ticket'] }] });
  });

  it('refuses a schema that validates asynchronously, saying where the check belongs', () => {
    const slow = form(
      z.object({
        ticket: z
          .string()
          .refine(async (s) => s.length > 0, 'taken')
          .meta({ title: 'Ticket' }),
      }),
    );
    expect(() => slow.parse({ ticket: 'REL-1' })).toThrow(ElicitkitError);
    expect(() => slow.parse({ ticket: 'REL-1' })).toThrow(/asynchronously.*check option/);
  });

  it('keeps a form built here as it is', () => {
    expect(form(release)).toBe(release);
  });
});

type Named = { field: string | undefined; code: SchemaProblem['code'] };

/** `form` as a JavaScript caller (or a schema assembled at run time) reaches it: no compile-time check. */
const untyped = form as unknown as (schema: object, options?: StandardFormOptions) => AnyForm;

describe('form(zod schema): refused shapes name the field and say why', () => {
  it.each<[string, () => unknown, Named[]]>([
    [
      'a nested object',
      () => untyped(z.object({ owner: z.object({ name: z.string() }) })),
      [{ field: 'owner', code: 'nested_object' }],
    ],
    [
      'an array of free strings',
      () => untyped(z.object({ hosts: z.array(z.string()) })),
      [{ field: 'hosts', code: 'array_of_non_enum' }],
    ],
    [
      'a regex',
      () => untyped(z.object({ code: z.string().regex(/^[A-Z]{3}$/) })),
      [{ field: 'code', code: 'pattern' }],
    ],
    [
      'a nullable value',
      () => untyped(z.object({ note: z.string().nullable() })),
      [{ field: 'note', code: 'bad_type' }],
    ],
    [
      'a Date',
      () => untyped(z.object({ when: z.date(), ok: z.boolean() })),
      [{ field: 'when', code: 'no_json_schema' }],
    ],
    ['a bigint', () => untyped(z.object({ size: z.bigint() })), [{ field: 'size', code: 'no_json_schema' }]],
    [
      'a single literal',
      () => untyped(z.object({ kind: z.literal('deploy'), ok: z.boolean() })),
      [{ field: 'kind', code: 'bad_options' }],
    ],
    [
      'a union of strings and numbers',
      () => untyped(z.object({ id: z.union([z.string(), z.number()]) })),
      [{ field: 'id', code: 'bad_type' }],
    ],
    [
      'a loose object',
      () => untyped(z.looseObject({ name: z.string() })),
      [{ field: undefined, code: 'nested_object' }],
    ],
    [
      'a default its own field breaks',
      () => untyped(z.object({ ticket: z.string().min(5).default('REL') })),
      [{ field: 'ticket', code: 'bad_default' }],
    ],
    [
      'a record',
      () => untyped(z.record(z.string(), z.string())),
      [
        { field: undefined, code: 'nested_object' },
        { field: undefined, code: 'unknown_keyword' },
        { field: undefined, code: 'no_properties' },
      ],
    ],
    [
      'alternatives at the root',
      () => untyped(z.union([z.object({ a: z.string() }), z.object({ b: z.string() })])),
      [
        { field: undefined, code: 'not_object' },
        { field: undefined, code: 'composition' },
        { field: undefined, code: 'no_properties' },
      ],
    ],
    ['no fields', () => untyped(z.object({})), [{ field: undefined, code: 'no_properties' }]],
  ])('%s', (_name, build, expected) => {
    const problems = refused(build);
    expect(problems.map((p) => ({ field: p.field, code: p.code }))).toEqual(expected);
    for (const p of problems) {
      if (p.field) expect(p.message).toContain(`"${p.field}"`);
      expect(p.fix.length).toBeGreaterThan(10);
    }
  });

  it('a shape the compiler can see is refused before it runs', () => {
    // @ts-expect-error a nested object is not an answer value
    expect(() => form(z.object({ owner: z.object({ name: z.string() }) }))).toThrow(FormSchemaError);
    // @ts-expect-error nor is null
    expect(() => form(z.object({ note: z.string().nullable() }))).toThrow(FormSchemaError);
    // @ts-expect-error nor a Date
    expect(() => form(z.object({ when: z.date() }))).toThrow(FormSchemaError);
  });

  it('the thrown message names each field and says what to do', () => {
    expect(() => untyped(z.object({ owner: z.object({ name: z.string() }), code: z.string().regex(/x/) }))).toThrow(
      /field "owner" is a nested object\. Flatten it.*\n.*field "code" uses pattern\. Remove `pattern`/s,
    );
  });

  it('a schema that cannot be converted at all is refused whole', () => {
    const broken = {
      '~standard': {
        version: 1 as const,
        vendor: 'acme',
        validate: (value: unknown) => ({ value: value as Record<string, string> }),
        jsonSchema: {
          input: () => {
            throw new Error('Map cannot be represented');
          },
          output: () => ({}),
        },
      },
    };
    expect(refused(() => untyped(broken))).toEqual([
      expect.objectContaining({
        code: 'no_json_schema',
        message: 'the acme schema cannot be given as JSON Schema (Map cannot be represented)',
      }),
    ]);
  });
});

describe('form(other Standard Schema libraries)', () => {
  it('arktype: its JSON Schema (enum without type) becomes a select; its own checks run', () => {
    const deploy = form(type({ env: "'dev'|'prod'", replicas: '1 <= number.integer <= 5', 'note?': 'string' }));
    expect(deploy.schema).toEqual({
      type: 'object',
      properties: {
        env: { type: 'string', enum: ['dev', 'prod'] },
        replicas: { type: 'integer', minimum: 1, maximum: 5 },
        note: { type: 'string' },
      },
      required: ['env', 'replicas'],
    });
    expectTypeOf<Infer<typeof deploy>>().toEqualTypeOf<{ env: 'dev' | 'prod'; replicas: number; note?: string }>();
    expect(deploy.parse({ env: 'dev', replicas: 2 })).toEqual({ ok: true, value: { env: 'dev', replicas: 2 } });
  });

  it('arktype: a regex is refused by name', () => {
    expect(refused(() => form(type({ code: /^[A-Z]+$/ })))).toEqual([
      expect.objectContaining({ field: 'code', code: 'pattern' }),
    ]);
  });

  const signup = v.object({
    email: v.pipe(v.string(), v.email(), v.title('Email')),
    plan: v.picklist(['free', 'team']),
    seats: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1)), 1),
  });
  const wire = {
    type: 'object',
    properties: {
      email: { type: 'string', format: 'email', title: 'Email' },
      plan: { type: 'string', enum: ['free', 'team'] },
      seats: { type: 'integer', minimum: 1, default: 1 },
    },
    required: ['email', 'plan'],
  };

  it('valibot through toStandardJsonSchema', () => {
    const f = form(toStandardJsonSchema(signup));
    expect(f.schema).toEqual(wire);
    expectTypeOf<Infer<typeof f>>().toEqualTypeOf<{ email: string; plan: 'free' | 'team'; seats: number }>();
    expect(f.parse({ email: 'a@b.co', plan: 'team' })).toEqual({
      ok: true,
      value: { email: 'a@b.co', plan: 'team', seats: 1 },
    });
  });

  it('valibot with its converter passed in', () => {
    const f = form(signup, { jsonSchema: (s) => toJsonSchema(s as typeof signup) });
    expect(f.schema).toEqual(wire);
  });

  it('a library that gives no JSON Schema is told how to pass one', () => {
    expect(refused(() => form(signup))).toEqual([
      expect.objectContaining({
        code: 'no_json_schema',
        message: 'the valibot schema gives no JSON Schema (it does not implement ~standard.jsonSchema)',
        fix: expect.stringContaining('form(schema, { jsonSchema'),
      }),
    ]);
  });
});
