import { describe, expect, it } from 'vitest';
import { checkFormRequest } from './form.js';

const message = 'Sign in to the deployment console to continue.';

describe('checkFormRequest', () => {
  it('returns the parsed schema, the field model, the findings and the secret fields', () => {
    const checked = checkFormRequest({
      message,
      requestedSchema: {
        type: 'object',
        properties: { user: { type: 'string', title: 'User' }, apiKey: { type: 'string', title: 'API key' } },
      },
    });
    expect(checked.ok).toBe(true);
    if (!checked.ok) return;
    expect(checked.fields.map((f) => f.name)).toEqual(['user', 'apiKey']);
    expect(checked.secretFields).toEqual(['apiKey']);
    expect(checked.findings.map((f) => f.rule)).toEqual(['EK09']);
  });

  it('lists every problem with its fix when the schema is outside the subset', () => {
    const checked = checkFormRequest({
      message,
      requestedSchema: {
        type: 'object',
        properties: { a: { type: 'object', properties: {} }, b: { type: 'string', pattern: '^x' } },
      },
    });
    expect(checked.ok).toBe(false);
    if (checked.ok) return;
    expect(checked.message.split('\n')).toHaveLength(3);
    expect(checked.message).toMatch(/Flatten it/);
    expect(checked.message).toMatch(/pattern/);
  });

  it('refuses a default that breaks its own field (EK15)', () => {
    const checked = checkFormRequest({
      message,
      requestedSchema: { type: 'object', properties: { n: { type: 'integer', title: 'N', maximum: 3, default: 9 } } },
    });
    expect(checked).toMatchObject({ ok: false, message: expect.stringMatching(/default 9/) });
  });

  it('reports structural problems and bad defaults together, one sentence each', () => {
    const checked = checkFormRequest({
      message,
      requestedSchema: {
        type: 'object',
        properties: { a: { type: 'object' }, e: { type: 'string', title: 'E', enum: ['x'], default: 'y' } },
        required: ['zz'],
      },
    });
    expect(checked.ok).toBe(false);
    if (checked.ok) return;
    expect(checked.message.split('\n').slice(1)).toEqual([
      expect.stringMatching(/^- field "a" is a nested object\. Flatten it/),
      expect.stringMatching(/^- required names "zz", which is not a field\. /),
      expect.stringMatching(/^- field "e" has default "y" that breaks its own field: .* options\. Change the default/),
    ]);
    expect(checked.message).not.toContain('..');
  });

  it('accepts an empty form (EK02 is reported, not refused: accept {} is a valid answer)', () => {
    const checked = checkFormRequest({ message, requestedSchema: { type: 'object', properties: {} } });
    expect(checked.ok && checked.findings.map((f) => f.rule)).toEqual(['EK02']);
  });
});
