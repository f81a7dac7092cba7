import type { FieldModel } from '@elicitkit/form';
import { describe, expect, it } from 'vitest';
import { viewOf } from './kinds.js';

describe('the terminal kind table', () => {
  it('refuses a model of no known kind, as a hand-built prompt might carry', () => {
    const field = { kind: 'toString', name: 'p', label: 'P', required: true } as unknown as FieldModel;
    expect(() => viewOf(field)).toThrow('Unknown field kind "toString".');
  });
});
