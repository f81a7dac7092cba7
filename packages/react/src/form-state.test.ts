import { describeFields, type FormSchema, validator } from '@elicitkit/form';
import { describe, expect, it } from 'vitest';
import { checkDrafts, groupIssues, initialDrafts, readDraft } from './form-state.js';

const SCHEMA: FormSchema = {
  type: 'object',
  properties: {
    name: { type: 'string', title: 'Name', minLength: 2, default: 'Ann' },
    replicas: { type: 'integer', title: 'Replicas', maximum: 9 },
    confirmed: { type: 'boolean', title: 'Confirmed' },
    newsletter: { type: 'boolean', title: 'Newsletter' },
    env: { type: 'string', title: 'Env', enum: ['dev', 'prod'] },
    tags: { type: 'array', title: 'Tags', items: { type: 'string', enum: ['a', 'b', 'c'] } },
    must: { type: 'array', title: 'Must', items: { type: 'string', enum: ['x', 'y'] }, minItems: 1 },
  },
  required: ['name', 'confirmed', 'must'],
};
const fields = describeFields(SCHEMA);
const field = (name: string) => fields.find((f) => f.name === name) ?? fields[0]!;
const check = (drafts: Record<string, unknown>) =>
  checkDrafts(fields, validator(SCHEMA), { ...initialDrafts(fields, undefined), ...drafts } as never);

describe('form state', () => {
  it('starts each control from the default, or from the previous answer alone, in the shape the control holds', () => {
    expect(initialDrafts(fields, undefined)).toEqual({
      name: 'Ann',
      replicas: '',
      confirmed: undefined,
      newsletter: undefined,
      env: undefined,
      tags: [],
      must: [],
    });
    expect(
      initialDrafts(fields, { name: 'Bo', replicas: 3, newsletter: true, env: 'prod', tags: ['b'] }),
    ).toMatchObject({
      name: 'Bo',
      replicas: '3',
      newsletter: true,
      env: 'prod',
      tags: ['b'],
    });
    // Re-asked: a field the person had cleared starts empty, not with its default put back.
    expect(initialDrafts(fields, { replicas: 3 })).toMatchObject({ name: '', replicas: '3' });
  });

  it('reads drafts as values: unchecked required box is "no", empty optional choices are left out', () => {
    expect(readDraft(field('confirmed'), undefined)).toEqual({ ok: true, value: false });
    expect(readDraft(field('newsletter'), undefined)).toEqual({ ok: true, value: undefined });
    expect(readDraft(field('env'), undefined)).toEqual({ ok: true, value: undefined });
    // No answer is undefined; '' is a value (an option may have it), judged by the validator.
    expect(readDraft(field('env'), '')).toEqual({ ok: true, value: '' });
    expect(readDraft(field('tags'), [])).toEqual({ ok: true, value: undefined });
    expect(readDraft(field('tags'), ['c', 'a'])).toEqual({ ok: true, value: ['a', 'c'] });
    expect(readDraft(field('must'), [])).toEqual({ ok: true, value: [] });
    expect(readDraft(field('replicas'), 'three')).toMatchObject({ ok: false });
  });

  it('hands over content only when nothing is wrong: what the controls show, the defaults they started from', () => {
    expect(check({ must: ['y'] })).toEqual({
      byField: new Map(),
      general: [],
      content: { name: 'Ann', confirmed: false, must: ['y'] },
    });
  });

  it('never refills a cleared default: required is reported, optional is left out', () => {
    const optional = { ...SCHEMA, required: ['confirmed', 'must'] } as FormSchema;
    const optionalFields = describeFields(optional);
    const cleared = checkDrafts(optionalFields, validator(optional), {
      ...initialDrafts(optionalFields, undefined),
      name: '',
      must: ['x'],
    } as never);
    expect(cleared.content).toEqual({ confirmed: false, must: ['x'] });
    expect(check({ name: '', must: ['x'] }).byField.get('name')?.[0]?.code).toBe('required');
  });

  it('reports every problem under its field, unreadable text once', () => {
    const checked = check({ name: '', replicas: 'three', must: [] });
    expect(checked.content).toBeUndefined();
    expect([...checked.byField.keys()]).toEqual(['replicas', 'name', 'must']);
    expect(checked.byField.get('replicas')).toEqual([
      { path: ['replicas'], code: 'type', message: 'Type a whole number, like 3 (got "three").' },
    ]);
    expect(checked.byField.get('name')?.[0]?.code).toBe('required');
    expect(checked.byField.get('must')?.[0]?.code).toBe('too_few');
    expect(check({ replicas: '12', must: ['x'] }).byField.get('replicas')?.[0]?.code).toBe('too_big');
  });

  it('puts issues that name no field of the form in general', () => {
    const grouped = groupIssues(fields, [
      { path: ['name'], code: 'custom', message: 'taken' },
      { path: [], code: 'custom', message: 'frozen' },
      { path: ['ghost'], code: 'unknown_field', message: 'ghost' },
    ]);
    expect([...grouped.byField.keys()]).toEqual(['name']);
    expect(grouped.general.map((i) => i.message)).toEqual(['frozen', 'ghost']);
  });
});
