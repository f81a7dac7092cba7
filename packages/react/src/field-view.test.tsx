import { describeFields, type FieldModel } from '@elicitkit/form';
import { describe, expect, it } from 'vitest';
import { viewOf } from './field-view.js';
import { LABELS_EN } from './labels.js';

describe('the React kind table', () => {
  it('draws every kind a form can describe', () => {
    const fields = describeFields({
      type: 'object',
      properties: {
        n: { type: 'integer', title: 'N', minimum: 1 },
        m: { type: 'array', title: 'M', items: { type: 'string', enum: ['a'] }, maxItems: 1 },
      },
    });
    expect(fields.map((f) => viewOf(f).hint(f, LABELS_EN))).toEqual([
      'Whole number, at least 1',
      'Choose at most 1 choice',
    ]);
  });

  it('refuses a model of no known kind, as a hand-built prompt might carry', () => {
    const field = { kind: 'password', name: 'p', label: 'P', required: true } as unknown as FieldModel;
    expect(() => viewOf(field)).toThrow('Unknown field kind "password".');
  });
});
