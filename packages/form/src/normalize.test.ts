import { ElicitRequestFormParamsSchema } from '@modelcontextprotocol/core';
import { describe, expect, it } from 'vitest';
import { downgrade, toLegacyEnums, toTitledEnums } from './normalize.js';
import type { FormSchema } from './wire.js';

const modern: FormSchema = {
  type: 'object',
  properties: {
    env: {
      type: 'string',
      title: 'Env',
      oneOf: [
        { const: 'dev', title: 'Dev' },
        { const: 'prod', title: 'Prod' },
      ],
      default: 'dev',
    },
    ticket: { type: 'string', title: 'Ticket', minLength: 4, default: 'REL-' },
    replicas: { type: 'integer', title: 'Replicas', default: 2 },
    confirmed: { type: 'boolean', title: 'Confirmed', default: false },
    tags: { type: 'array', title: 'Tags', items: { type: 'string', enum: ['a'] } },
  },
  required: ['env', 'tags'],
};

describe('enum normalization', () => {
  it('converts titled oneOf to enum + enumNames and back', () => {
    const legacy = toLegacyEnums(modern);
    expect(legacy.properties.env).toEqual({
      type: 'string',
      title: 'Env',
      enum: ['dev', 'prod'],
      enumNames: ['Dev', 'Prod'],
      default: 'dev',
    });
    expect(toTitledEnums(legacy)).toEqual(modern);
  });

  it('leaves untitled enums and other fields alone', () => {
    const s: FormSchema = { type: 'object', properties: { e: { type: 'string', enum: ['a'] } } };
    expect(toTitledEnums(s)).toEqual(s);
    expect(toLegacyEnums(s)).toEqual(s);
  });
});

describe('downgrade to 2025-06-18', () => {
  const down = downgrade(modern, '2025-06-18');

  it('says, as data, what cannot go down', () => {
    expect(down.ok).toBe(false);
    expect(down.losses.map((l) => [l.field, l.code, l.fatal])).toEqual([
      ['env', 'default_dropped', false],
      ['ticket', 'default_dropped', false],
      ['replicas', 'default_dropped', false],
      ['tags', 'multi_select', true],
    ]);
  });

  it('produces the 2025-06-18 shape: legacy enums, boolean defaults only, no multi-select', () => {
    expect(down.schema).toEqual({
      type: 'object',
      properties: {
        env: { type: 'string', title: 'Env', enum: ['dev', 'prod'], enumNames: ['Dev', 'Prod'] },
        ticket: { type: 'string', title: 'Ticket', minLength: 4 },
        replicas: { type: 'integer', title: 'Replicas' },
        confirmed: { type: 'boolean', title: 'Confirmed', default: false },
      },
      // A field whose default could not be shown is asked as required: no default the person never saw fills it.
      required: ['env', 'ticket', 'replicas'],
    });
    expect(
      ElicitRequestFormParamsSchema.safeParse({ message: 'Deploy order-service', requestedSchema: down.schema })
        .success,
    ).toBe(true);
  });

  it('is a no-op (ok) for later revisions', () => {
    expect(downgrade(modern, '2025-11-25')).toEqual({ ok: true, schema: modern, losses: [] });
    expect(downgrade(modern, '2026-07-28').ok).toBe(true);
  });

  it('is ok when only defaults are dropped', () => {
    const { tags: _tags, ...properties } = modern.properties;
    const result = downgrade({ type: 'object', properties }, '2025-06-18');
    expect(result.ok).toBe(true);
    expect(result.losses.every((l) => !l.fatal)).toBe(true);
  });

  it('refuses, with a clear error, a schema that was never parsed into the subset', () => {
    const raw = { type: 'object', properties: { address: { type: 'object', title: 'Address' } } } as never;
    expect(() => downgrade(raw, '2025-06-18')).toThrow('Field "address" is outside the restricted schema');
    // Later revisions take any form unchanged, as before.
    expect(downgrade(raw, '2025-11-25').schema).toBe(raw);
  });
});
