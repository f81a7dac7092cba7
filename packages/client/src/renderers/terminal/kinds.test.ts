import type { FieldModel } from '@elicitkit/form';
import { describe, expect, it } from 'vitest';
import { viewOf } from './kinds.js';

describe('the terminal kind table', () => {
  it('refuses a model of no known kind, as a hand-built prompt might carry', () => {
    const field = { kind: 'toString', name: 'p', label: 'P', required: true } as unknown as FieldModel;
    expect(() => viewOf(field)).toThrow('Unknown field kind "toString".');
  });
});

describe('a field’s prompt line', () => {
  it('does not repeat limits its label already states, and shows them otherwise', async () => {
    const { fieldMessage } = await import('./fields.js');
    const date = (label: string) => ({ kind: 'date', name: 'from', label, required: true }) as unknown as FieldModel;
    const { stripVTControlCharacters: plain } = await import('node:util');
    expect(plain(fieldMessage(date('From (YYYY-MM-DD)')))).toBe('From (YYYY-MM-DD)');
    expect(plain(fieldMessage(date('From')))).toBe('From [YYYY-MM-DD]');
  });
});
