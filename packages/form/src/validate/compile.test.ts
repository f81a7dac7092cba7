import { describe, expect, it } from 'vitest';
import { deepFreeze } from '../json.js';
import type { FormSchema } from '../wire.js';
import { compileForm } from './compile.js';
import { validate } from './validate.js';

const schema = (): FormSchema => ({
  type: 'object',
  properties: { ticket: { type: 'string', title: 'Ticket', minLength: 4 } },
  required: ['ticket'],
});

describe('compiling a form', () => {
  it('happens once per frozen schema object (a built form’s), on first use', () => {
    const one = deepFreeze(schema());
    const compiled = compileForm(one);
    expect(compileForm(one)).toBe(compiled);
    validate(one, { ticket: 'REL-1001' });
    expect(compileForm(one)).toBe(compiled);
  });

  it('keeps equal schemas apart: each object is its own form', () => {
    expect(compileForm(deepFreeze(schema()))).not.toBe(compileForm(deepFreeze(schema())));
    expect(compileForm(schema()).fields.map((f) => f.name)).toEqual(['ticket']);
  });

  it('checks a schema that is not frozen as it is now: the options offered now are the ones enforced', () => {
    // A server that fills a shared schema's options per person (the projects this user may see).
    const raw = {
      type: 'object' as const,
      properties: { project: { type: 'string' as const, title: 'Project', enum: ['alpha', 'beta'] } },
      required: ['project'],
    };
    expect(validate(raw, { project: 'beta' }).ok).toBe(true);
    raw.properties.project.enum = ['alpha'];
    expect(validate(raw, { project: 'beta' })).toEqual({
      ok: false,
      issues: [{ path: ['project'], code: 'not_in_options', message: '"Project" must be one of the offered options.' }],
    });
    raw.properties.project.enum = ['alpha', 'beta', 'gamma'];
    expect(validate(raw, { project: 'gamma' }).ok).toBe(true);
  });

  it('takes anything as the schema without throwing, and caches only objects', () => {
    for (const raw of [null, undefined, 'form', 7, true]) {
      expect(compileForm(raw).parsed.problems.map((p) => p.code)).toEqual(['not_object']);
    }
    expect(validate('form' as never, {})).toMatchObject({ ok: false, issues: [{ code: 'bad_schema' }] });
  });
});
