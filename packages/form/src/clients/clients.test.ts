import { describe, expect, it } from 'vitest';
import { form } from '../builder/form.js';
import { field } from '../builder/kinds.js';
import { downgrade } from '../normalize.js';
import { validate } from '../validate/validate.js';
import type { FormSchema } from '../wire.js';
import { type Adaptation, type AdaptWords, adaptForClient, restoreAnswer } from './adapt.js';
import { clientQuirksOf, isKnownClientId, knownClient, knownClientOf } from './lookup.js';
import { KNOWN_CLIENTS } from './table.js';

const WORDS: AdaptWords = {
  yes: 'Yes',
  no: 'No',
  typeYesNo: 'Answer yes or no.',
  typeOneOf: (o) => `One of: ${o}.`,
  typeSeveral: (o) => `Several of: ${o}, separated by commas.`,
  typeNumber: 'A number.',
};

const confirmation = form({
  confirmed: field.boolean({ title: 'I confirm the production deploy', default: false }),
  ticket: field.string({ title: 'Release ticket', minLength: 4 }),
});

describe('the known-clients table', () => {
  it.each([
    ['claude-code', 'claude-code'],
    ['Claude Code', 'claude-code'],
    ['claude-ai', 'claude-desktop'],
    ['cursor-vscode', 'cursor'],
    ['Visual Studio Code', 'vscode'],
    ['visual-studio-code', 'vscode'],
    ['Trae', 'trae'],
    ['trae-cn', 'trae'],
    ['Cline', 'cline'],
  ])('%s is %s (case-insensitive)', (name, id) => {
    expect(knownClientOf({ name, version: '1' })?.id).toBe(id);
    expect(knownClientOf({ name: name.toUpperCase() })?.id).toBe(id);
  });

  it.each([
    [''],
    ['   '],
    ['my-client'],
    ['extraterrestrial'], // "trae" inside a word is not Trae
    ['decline'], // nor is "cline"
    ['opsdesk-test-2025-06-18'],
  ])('%j is no known client, and has no quirks', (name) => {
    expect(knownClientOf({ name })).toBeUndefined();
    expect(clientQuirksOf({ name })).toEqual({});
  });

  it('a missing or malformed clientInfo is no known client', () => {
    expect(knownClientOf(undefined)).toBeUndefined();
    expect(knownClientOf({ name: 42 } as never)).toBeUndefined();
  });

  it('each entry announces a name its own patterns match, has evidence, and ids are unique', () => {
    for (const c of KNOWN_CLIENTS) {
      expect(knownClientOf({ name: c.announces })?.id, c.id).toBe(c.id);
      expect(c.evidence.length, c.id).toBeGreaterThan(0);
      for (const e of c.evidence) expect(e.date, `${c.id}: ${e.source}`).toMatch(/^\d{4}-\d{2}(-\d{2})?$/);
    }
    expect(new Set(KNOWN_CLIENTS.map((c) => c.id)).size).toBe(KNOWN_CLIENTS.length);
  });

  it('the quirks of the field notes: Trae Yes/No, Cursor folds after 3, Cline text only', () => {
    expect(clientQuirksOf({ name: 'Trae' })).toEqual({ booleanAsChoice: true });
    expect(clientQuirksOf({ name: 'cursor-vscode' })).toEqual({ foldsAfter: 3 });
    expect(clientQuirksOf({ name: 'Cline' })).toEqual({ textOnly: true });
    expect(knownClient('vscode').looks.boolean).toBe('a Yes/No QuickPick');
    expect(isKnownClientId('trae')).toBe(true);
    expect(isKnownClientId('netscape')).toBe(false);
    expect(() => knownClient('netscape' as never)).toThrow(/Unknown client/);
  });
});

/** The restored content, failing the test when it does not restore. */
function restored(
  content: Record<string, unknown>,
  adaptation: Adaptation | undefined,
  schema: FormSchema = confirmation.schema,
): Record<string, unknown> {
  const r = restoreAnswer(content, adaptation, schema);
  if (!r.ok) throw new Error(`did not restore: ${JSON.stringify(r.issues)}`);
  return r.value;
}

describe('adaptForClient: booleanAsChoice', () => {
  const trae = clientQuirksOf({ name: 'Trae' });

  it('a boolean becomes a titled Yes/No single-select with its title and default; other fields stay', () => {
    const a = adaptForClient(confirmation.schema, trae, WORDS);
    expect(a.ok && a.adaptation).toEqual({ quirk: 'booleanAsChoice', fields: ['confirmed'] });
    if (!a.ok) throw new Error('not adapted');
    expect(a.schema.properties.confirmed).toEqual({
      type: 'string',
      title: 'I confirm the production deploy',
      oneOf: [
        { const: 'yes', title: 'Yes' },
        { const: 'no', title: 'No' },
      ],
      default: 'no',
    });
    expect(a.schema.properties.ticket).toEqual(confirmation.schema.properties.ticket);
    expect(a.schema.required).toEqual(confirmation.schema.required);
    // The adapted form is itself inside the restricted schema.
    expect(validate(a.schema, { confirmed: 'yes', ticket: 'REL-1001' }).ok).toBe(true);
  });

  it("on 2025-06-18 the choice takes that revision's shape: enum + enumNames, no default", () => {
    const a = adaptForClient(confirmation.schema, trae, WORDS);
    if (!a.ok) throw new Error('not adapted');
    const down = downgrade(a.schema, '2025-06-18');
    expect(down.ok).toBe(true);
    expect(down.schema.properties.confirmed).toEqual({
      type: 'string',
      title: 'I confirm the production deploy',
      enum: ['yes', 'no'],
      enumNames: ['Yes', 'No'],
    });
  });

  it('the answer comes back as the boolean the form declares, and the form accepts it', () => {
    const a = adaptForClient(confirmation.schema, trae, WORDS);
    if (!a.ok) throw new Error('not adapted');
    const yes = restored({ confirmed: 'yes', ticket: 'REL-1001' }, a.adaptation);
    expect(confirmation.parse(yes)).toEqual({ ok: true, value: { confirmed: true, ticket: 'REL-1001' } });
    const no = restored({ confirmed: 'no', ticket: 'REL-1001' }, a.adaptation);
    expect(confirmation.parse(no)).toMatchObject({ ok: true, value: { confirmed: false } });
  });

  it.each([['Yes'], ['maybe'], [true], [false], [1], [null], [['yes']]])(
    'anything but "yes" or "no" (%j) is an issue, even a boolean: the client was asked a choice',
    (value) => {
      const out = restoreAnswer(
        { confirmed: value, ticket: 'REL-1001' },
        { quirk: 'booleanAsChoice', fields: ['confirmed'] },
        confirmation.schema,
      );
      expect(out).toEqual({
        ok: false,
        issues: [{ path: ['confirmed'], code: 'not_in_options', message: expect.stringMatching(/"yes" or "no"/) }],
      });
    },
  );

  it('a field left out stays out (the form reports it if required)', () => {
    expect(restored({ ticket: 'REL-1001' }, { quirk: 'booleanAsChoice', fields: ['confirmed'] })).toEqual({
      ticket: 'REL-1001',
    });
  });

  it('hostile keys are copied as data, never onto the prototype', () => {
    const content = JSON.parse('{"__proto__": {"polluted": true}, "confirmed": "yes", "ticket": "REL-1001"}');
    const out = restored(content, { quirk: 'booleanAsChoice', fields: ['confirmed'] });
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(confirmation.parse(out).ok).toBe(false); // the unknown key is refused by the form
  });

  it('a form without booleans, or a client without quirks, is sent as it is', () => {
    const env = form({ env: field.select(['dev', 'prod'], { title: 'Environment' }) });
    expect(adaptForClient(env.schema, trae, WORDS)).toEqual({ ok: true, schema: env.schema });
    expect(adaptForClient(confirmation.schema, {}, WORDS)).toEqual({ ok: true, schema: confirmation.schema });
    expect(restoreAnswer({ confirmed: 'yes' }, undefined, confirmation.schema)).toEqual({
      ok: true,
      value: { confirmed: 'yes' },
    });
  });
});

describe('adaptForClient: textOnly', () => {
  const cline = clientQuirksOf({ name: 'Cline' });

  it('a form of several fields cannot be one text prompt: refused, naming the fields', () => {
    const a = adaptForClient(confirmation.schema, cline, WORDS);
    expect(a).toEqual({
      ok: false,
      quirk: 'textOnly',
      detail: expect.stringMatching(/2 fields \(confirmed, ticket\)/),
    });
  });

  it('a select becomes a line of text that lists its options, read back by value or title', () => {
    const env = form({
      env: field.select(
        [
          { value: 'dev', title: 'Development' },
          { value: 'prod', title: 'Production' },
        ],
        { title: 'Environment' },
      ),
    });
    const a = adaptForClient(env.schema, cline, WORDS);
    if (!a.ok) throw new Error('refused');
    expect(a.adaptation).toEqual({ quirk: 'textOnly', fields: ['env'] });
    expect(a.schema.properties.env).toEqual({
      type: 'string',
      title: 'Environment',
      description: 'One of: dev (Development), prod (Production).',
    });
    expect(env.parse(restored({ env: 'Production' }, a.adaptation, env.schema))).toEqual({
      ok: true,
      value: { env: 'prod' },
    });
    expect(restoreAnswer({ env: 'qa' }, a.adaptation, env.schema)).toMatchObject({
      ok: false,
      issues: [{ path: ['env'], code: 'type', message: expect.stringMatching(/^Environment: /) }],
    });
    expect(restoreAnswer({ env: 2 }, a.adaptation, env.schema)).toMatchObject({
      ok: false,
      issues: [{ path: ['env'] }],
    });
  });

  it.each([
    [form({ ok: field.boolean({ title: 'Proceed?', default: false }) }), 'ok', 'y', true, 'Answer yes or no.'],
    [form({ n: field.integer({ title: 'Replicas', minimum: 1 }) }), 'n', '3', 3, 'A number.'],
    [
      form({ ch: field.multiSelect(['email', 'sms', 'push'], { title: 'Channels' }) }),
      'ch',
      'email, push',
      ['email', 'push'],
      'Several of: email, sms, push, separated by commas.',
    ],
  ])('%#: one field of another kind is typed, and read back into its kind', (f, name, typed, value, hint) => {
    const a = adaptForClient(f.schema, cline, WORDS);
    if (!a.ok) throw new Error('refused');
    expect(a.schema.properties[name]).toMatchObject({ type: 'string', description: hint });
    expect(f.parse(restored({ [name]: typed }, a.adaptation, f.schema))).toEqual({
      ok: true,
      value: { [name]: value },
    });
  });

  it('a plain text field is already what a text prompt shows: no adaptation', () => {
    const t = form({ note: field.string({ title: 'Note' }) });
    expect(adaptForClient(t.schema, cline, WORDS)).toEqual({ ok: true, schema: t.schema });
  });

  it('a number that does not read is an issue that says why', () => {
    const f = form({ n: field.integer({ title: 'Replicas' }) });
    expect(restoreAnswer({ n: 'three' }, { quirk: 'textOnly', fields: ['n'] }, f.schema)).toMatchObject({
      ok: false,
      issues: [{ path: ['n'], code: 'type', message: expect.stringMatching(/^Replicas: /) }],
    });
  });

  it('an empty line for an optional field leaves it out', () => {
    const f = form({ n: field.integer({ title: 'Replicas' }).optional() });
    expect(restored({ n: '  ' }, { quirk: 'textOnly', fields: ['n'] }, f.schema)).toEqual({});
  });
});
