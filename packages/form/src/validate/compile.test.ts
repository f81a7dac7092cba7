import { describe, expect, it } from 'vitest';
import type { FormSchema } from '../wire.js';
import { compileForm } from './compile.js';
import { validate } from './validate.js';

const schema = (): FormSchema => ({
  type: 'object',
  properties: { ticket: { type: 'string', title: 'Ticket', minLength: 4 } },
  required: ['ticket'],
});

describe('compiling a form', () => {
  it('happens once per schema object, on first use', () => {
    const one = schema();
    const compiled = compileForm(one);
    expect(compileForm(one)).toBe(compiled);
    validate(one, { ticket: 'REL-1001' });
    expect(compileForm(one)).toBe(compiled);
  });

  it('keeps equal schemas apart: each object is its own form', () => {
    expect(compileForm(schema())).not.toBe(compileForm(schema()));
    expect(compileForm(schema()).fields.map((f) => f.name)).toEqual(['ticket']);
  });

  it('takes anything as the schema without throwing, and caches only objects', () => {
    for (const raw of [null, undefined, 'form', 7, true]) {
      expect(compileForm(raw).parsed.problems.map((p) => p.code)).toEqual(['not_object']);
    }
    expect(validate('form' as never, {})).toMatchObject({ ok: false, issues: [{ code: 'bad_schema' }] });
  });
});
