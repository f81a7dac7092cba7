import { describe, expect, it } from 'vitest';
import { confirmationsOf } from './confirmation.js';

const form = (properties: Record<string, unknown>) => ({ type: 'object', properties });

describe('confirmationsOf', () => {
  it('finds a checkbox by its name or its title, in English and Chinese', () => {
    expect(confirmationsOf(form({ confirmed: { type: 'boolean' } }))).toEqual([
      { field: 'confirmed', kind: 'checkbox', term: 'confirmed' },
    ]);
    expect(confirmationsOf(form({ ok: { type: 'boolean', title: 'I agree to the terms' } }))).toEqual([
      { field: 'ok', kind: 'checkbox', term: 'agree' },
    ]);
    expect(confirmationsOf(form({ ok: { type: 'boolean', title: '我已确认' } }))).toEqual([
      { field: 'ok', kind: 'checkbox', term: '确认' },
    ]);
  });

  it('finds a Yes/No choice standing in for a checkbox (how Trae is asked one), in either shape', () => {
    const oneOf = [
      { const: 'yes', title: 'Yes' },
      { const: 'no', title: 'No' },
    ];
    expect(confirmationsOf(form({ confirmed: { type: 'string', title: 'I confirm', oneOf } }))).toEqual([
      { field: 'confirmed', kind: 'checkbox', term: 'confirmed' },
    ]);
    const legacy = { type: 'string', title: 'I confirm the release', enum: ['yes', 'no'], enumNames: ['是', '否'] };
    expect(confirmationsOf(form({ ok: legacy }))).toEqual([{ field: 'ok', kind: 'checkbox', term: 'confirm' }]);
    // A Yes/No choice that confirms nothing, and a confirmation-named choice of other options, are not.
    expect(confirmationsOf(form({ updates: { type: 'string', title: 'Send updates', oneOf } }))).toEqual([]);
    expect(confirmationsOf(form({ confirmed: { type: 'string', enum: ['yes', 'no', 'maybe'] } }))).toEqual([]);
  });

  it('finds a typed confirmation: a text field the person types to confirm', () => {
    const found = confirmationsOf(
      form({
        understood: { type: 'boolean', title: 'I understand this cannot be undone' },
        typedTableName: { type: 'string', title: 'Type the table name to confirm' },
      }),
    );
    expect(found.map((c) => [c.field, c.kind])).toEqual([
      ['understood', 'checkbox'],
      ['typedTableName', 'typed'],
    ]);
    expect(confirmationsOf(form({ t: { type: 'string', title: '输入表名以确认' } }))[0]?.kind).toBe('typed');
  });

  it('leaves ordinary questions alone, a checkbox whose description alone agrees included', () => {
    expect(
      confirmationsOf(
        form({
          env: { type: 'string', enum: ['dev', 'prod'] },
          notify: { type: 'boolean', title: 'Notify the team' },
          check: { type: 'boolean', title: 'Boolean', description: 'Agree to the terms and conditions' },
          ticket: { type: 'string', title: 'Release ticket' },
        }),
      ),
    ).toEqual([]);
  });

  it('accepts any JSON without throwing', () => {
    for (const bad of [null, 'form', 42, { properties: [] }, form({ x: { type: 'object' } })])
      expect(confirmationsOf(bad)).toEqual([]);
  });
});
