/**
 * What is worked out once per schema (issue 12: the per-call work of `ask()`): a built form's
 * schema is frozen, so the caches keyed by it — its downgrade, its field models for reading an
 * adapted answer back, the known-client lookup — can never hand one schema another's result, nor
 * a stale one. Schemas that are not frozen are never cached.
 */
import { describe, expect, it } from 'vitest';
import { form, fromJsonSchema } from './builder/form.js';
import { field } from './builder/kinds.js';
import { restoreAnswer } from './clients/adapt.js';
import { knownClientOf } from './clients/lookup.js';
import { downgrade } from './normalize.js';
import type { FormSchema } from './wire.js';

const envForm = () =>
  form({
    env: field.select(
      [
        { value: 'dev', title: 'Dev' },
        { value: 'prod', title: 'Prod' },
      ],
      { title: 'Environment' },
    ),
  });

describe('a built form’s schema', () => {
  it('is frozen all the way down: changing it throws and the form still checks what it sends', () => {
    const f = envForm();
    expect(Object.isFrozen(f.schema)).toBe(true);
    expect(Object.isFrozen(f.schema.properties)).toBe(true);
    expect(Object.isFrozen(f.schema.properties.env)).toBe(true);
    expect(() => {
      (f.schema.properties as Record<string, unknown>).extra = { type: 'string' };
    }).toThrow(TypeError);
    expect(() => {
      (f.schema.properties.env as { title?: string }).title = 'Changed';
    }).toThrow(TypeError);
    expect(f.schema.properties.env?.title).toBe('Environment');
    expect(f.parse({ env: 'prod' }).ok).toBe(true);
    expect(f.parse({ env: 'qa' }).ok).toBe(false);
  });

  it('is a copy: the JSON a form was made from is neither frozen nor tied to it', () => {
    const raw = { type: 'object', properties: { name: { type: 'string', title: 'Name' } }, required: ['name'] };
    const f = fromJsonSchema(raw);
    expect(Object.isFrozen(raw)).toBe(false);
    expect(Object.isFrozen(raw.properties.name)).toBe(false);
    raw.properties.name.title = 'Changed later';
    expect(f.schema.properties.name?.title).toBe('Name');
  });
});

describe('downgrade, cached per frozen schema', () => {
  it('returns one frozen result per schema and revision, never another schema’s', () => {
    const a = envForm();
    const b = form({ sure: field.boolean({ title: 'Sure', default: false }) });
    const first = downgrade(a.schema, '2025-06-18');
    expect(downgrade(a.schema, '2025-06-18')).toBe(first);
    expect(Object.isFrozen(first.schema)).toBe(true);
    expect(first.schema.properties.env).toEqual({
      type: 'string',
      title: 'Environment',
      enum: ['dev', 'prod'],
      enumNames: ['Dev', 'Prod'],
    });
    const other = downgrade(b.schema, '2025-06-18');
    expect(other).not.toBe(first);
    expect(Object.keys(other.schema.properties)).toEqual(['sure']);
    // A revision that needs no downgrade takes the schema as it is.
    expect(downgrade(a.schema, '2025-11-25').schema).toBe(a.schema);
  });

  it('works an unfrozen schema out each time, so a change to it shows', () => {
    const raw: FormSchema = {
      type: 'object',
      properties: { env: { type: 'string', title: 'Env', oneOf: [{ const: 'dev', title: 'Dev' }] } },
    };
    const before = downgrade(raw, '2025-06-18');
    expect(before.schema.properties.env).toMatchObject({ enum: ['dev'] });
    raw.properties.env = { type: 'string', title: 'Env', oneOf: [{ const: 'qa', title: 'QA' }] };
    const after = downgrade(raw, '2025-06-18');
    expect(after).not.toBe(before);
    expect(after.schema.properties.env).toMatchObject({ enum: ['qa'] });
  });
});

describe('restoreAnswer, field models cached per frozen schema', () => {
  it('reads each schema’s answer by its own fields', () => {
    const yesNo = form({ sure: field.boolean({ title: 'Sure' }) });
    const count = form({ sure: field.integer({ title: 'How many' }) });
    const asChoice = { quirk: 'booleanAsChoice' as const, fields: ['sure'] };
    const asText = { quirk: 'textOnly' as const, fields: ['sure'] };
    for (let i = 0; i < 2; i++) {
      expect(restoreAnswer({ sure: 'yes' }, asChoice, yesNo.schema)).toEqual({ ok: true, value: { sure: true } });
      expect(restoreAnswer({ sure: '3' }, asText, count.schema)).toEqual({ ok: true, value: { sure: 3 } });
    }
  });

  it('reads an unfrozen schema as it is now', () => {
    const raw: FormSchema = { type: 'object', properties: { n: { type: 'integer', title: 'N' } } };
    const asText = { quirk: 'textOnly' as const, fields: ['n'] };
    expect(restoreAnswer({ n: '3' }, asText, raw)).toEqual({ ok: true, value: { n: 3 } });
    raw.properties.n = { type: 'boolean', title: 'N' };
    expect(restoreAnswer({ n: 'yes' }, asText, raw)).toEqual({ ok: true, value: { n: true } });
  });
});

describe('knownClientOf, cached per name', () => {
  it('answers the same for a name asked again, known or not, and past its bound', () => {
    for (let round = 0; round < 2; round++) {
      expect(knownClientOf({ name: 'Trae' })?.id).toBe('trae');
      expect(knownClientOf({ name: '  cline ' })?.id).toBe('cline');
      expect(knownClientOf({ name: 'bench' })).toBeUndefined();
    }
    // More names than the cache keeps: it forgets, it does not answer wrongly.
    for (let i = 0; i < 600; i++) expect(knownClientOf({ name: `client-${i}` })).toBeUndefined();
    expect(knownClientOf({ name: 'Trae' })?.id).toBe('trae');
    expect(knownClientOf({ name: 'cursor-vscode' })?.id).toBe('cursor');
  });
});
