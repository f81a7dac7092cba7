/**
 * Shaping a form for a known client's quirks, and reading its answer back into the form's own
 * types. The per-revision `downgrade` runs after this one, so an adapted form still takes the
 * shape its revision has (a Yes/No choice is `enum` + `enumNames` on 2025-06-18).
 */
import { coerceValue } from '../coerce.js';
import { describeFields } from '../fields.js';
import { listOptions } from '../kinds/options.js';
import type { FieldModel } from '../kinds/registry.js';
import { needsDowngrade, type Revision } from '../revision.js';
import { type Issue, issue, type Validation } from '../validate/issues.js';
import type { FieldSchema, FormSchema, StringFieldSchema, TitledSelectSchema } from '../wire.js';
import type { ClientQuirks } from './quirks.js';

/** What was changed for a client: the quirk applied and the fields it changed. */
export type Adaptation = { quirk: 'booleanAsChoice' | 'textOnly'; fields: string[] };

/** The words an adapted form shows, in the asking server's language. */
export interface AdaptWords {
  /** Titles of the two options a boolean becomes. */
  yes: string;
  no: string;
  /** Hints a text-only field gets, by the kind it stands for. */
  typeYesNo: string;
  typeOneOf(options: string): string;
  typeSeveral(options: string): string;
  typeNumber: string;
}

/** The form a client is sent: adapted (or as it was), or why its quirks cannot show it faithfully. */
export type Adapted =
  | { ok: true; schema: FormSchema; adaptation?: Adaptation }
  | { ok: false; quirk: 'textOnly'; detail: string };

/** The values a boolean travels as when it is asked as a choice. They never change with the language. */
export const YES_NO = { yes: 'yes', no: 'no' } as const;

/**
 * Shapes a form for a client's quirks. `booleanAsChoice`: every boolean becomes a titled Yes/No
 * single-select. `textOnly`: a form of one field becomes one line of text (its kind told in the
 * description); a form of several fields cannot be asked faithfully and is refused. No quirks,
 * or nothing to change: the form as it was, with no adaptation.
 *
 * @example
 * const a = adaptForClient(form.schema, clientQuirksOf(clientInfo), words);
 * if (!a.ok) return unsupported(a.detail);
 * send(a.schema); // later: restoreAnswer(content, a.adaptation, form.schema)
 */
export function adaptForClient(schema: FormSchema, quirks: ClientQuirks, words: AdaptWords): Adapted {
  if (quirks.textOnly) return asText(schema, words);
  if (quirks.booleanAsChoice) return booleansAsChoices(schema, words);
  return { ok: true, schema };
}

/**
 * Reads an adapted form's answer back into the original form's values: `'yes'`/`'no'` to
 * booleans, typed text to the field's kind. An answer outside the shape that was sent (a boolean
 * where a Yes/No choice was asked, text that does not read as the field's kind) is an issue, never
 * guessed at; the form's own validation runs on the result afterwards.
 *
 * @example
 * restoreAnswer({ confirmed: 'yes' }, { quirk: 'booleanAsChoice', fields: ['confirmed'] }, schema)
 * // { ok: true, value: { confirmed: true } }
 */
export function restoreAnswer(
  content: Record<string, unknown>,
  adaptation: Adaptation | undefined,
  schema: FormSchema,
  revision?: Revision,
): Validation<Record<string, unknown>> {
  if (!adaptation) return { ok: true, value: content };
  const out: Record<string, unknown> = { ...content };
  const issues: Issue[] = [];
  const models = modelsOf(schema);
  // A 2025-06-18 client is shown boolean defaults only: a field adapted into a choice or text lost
  // its default there and was asked as required (the form's own check judges the form as declared,
  // where the boolean kept it). Left out, it is missing — never filled with a default not shown.
  const defaultsLost = revision !== undefined && needsDowngrade(revision);
  for (const name of adaptation.fields) {
    const model = models.get(name);
    if (!model) continue;
    if (!Object.hasOwn(out, name)) {
      const declared = schema.properties[name];
      if (defaultsLost && declared?.default !== undefined && !schema.required?.includes(name))
        issues.push(issue([name], 'required', `${model.label} is required.`));
      continue;
    }
    const value = out[name];
    if (adaptation.quirk === 'booleanAsChoice') {
      if (value === YES_NO.yes) out[name] = true;
      else if (value === YES_NO.no) out[name] = false;
      else issues.push(issue([name], 'not_in_options', `${model.label} must be "${YES_NO.yes}" or "${YES_NO.no}".`));
      continue;
    }
    if (typeof value !== 'string') {
      issues.push(issue([name], 'type', `${model.label} was asked as text and must be answered as text.`));
      continue;
    }
    const read = coerceValue(model, value);
    if (!read.ok) issues.push(issue([name], 'type', `${model.label}: ${read.message}`));
    else if (read.value === undefined) delete out[name];
    else out[name] = read.value;
  }
  return issues.length > 0 ? { ok: false, issues } : { ok: true, value: out };
}

/** Each frozen schema's field models by name (a frozen schema cannot change under its entry). */
const MODELS = new WeakMap<FormSchema, ReadonlyMap<string, FieldModel>>();

function modelsOf(schema: FormSchema): ReadonlyMap<string, FieldModel> {
  const known = MODELS.get(schema);
  if (known) return known;
  const models = new Map(describeFields(schema).map((f) => [f.name, f]));
  if (Object.isFrozen(schema)) MODELS.set(schema, models);
  return models;
}

function booleansAsChoices(schema: FormSchema, words: AdaptWords): Adapted {
  const fields: string[] = [];
  const properties: Record<string, FieldSchema> = {};
  for (const [name, field] of Object.entries(schema.properties)) {
    if (field.type !== 'boolean') {
      properties[name] = field;
      continue;
    }
    fields.push(name);
    const choice: TitledSelectSchema = {
      type: 'string',
      ...describedAs(field),
      oneOf: [
        { const: YES_NO.yes, title: words.yes },
        { const: YES_NO.no, title: words.no },
      ],
    };
    if (field.default !== undefined) choice.default = field.default ? YES_NO.yes : YES_NO.no;
    properties[name] = choice;
  }
  if (fields.length === 0) return { ok: true, schema };
  return { ok: true, schema: { ...schema, properties }, adaptation: { quirk: 'booleanAsChoice', fields } };
}

function asText(schema: FormSchema, words: AdaptWords): Adapted {
  const models = describeFields(schema);
  const [only] = models;
  if (models.length !== 1 || !only) {
    return {
      ok: false,
      quirk: 'textOnly',
      detail: `a text prompt holds one answer and this form has ${models.length} fields (${models.map((m) => m.name).join(', ')})`,
    };
  }
  const field = schema.properties[only.name];
  if (!field || isPlainText(field)) return { ok: true, schema };
  const help = [only.help, hintFor(only, words)].filter((s): s is string => Boolean(s)).join(' ');
  const text: StringFieldSchema = { type: 'string', title: only.label, description: help };
  const dflt = defaultText(only, words);
  if (dflt !== undefined) text.default = dflt;
  return {
    ok: true,
    schema: { ...schema, properties: { [only.name]: text } },
    adaptation: { quirk: 'textOnly', fields: [only.name] },
  };
}

function isPlainText(field: FieldSchema): boolean {
  return field.type === 'string' && !('enum' in field) && !('oneOf' in field);
}

function describedAs(field: FieldSchema): Pick<FieldSchema, 'title' | 'description'> {
  return {
    ...(field.title !== undefined ? { title: field.title } : {}),
    ...(field.description !== undefined ? { description: field.description } : {}),
  };
}

function hintFor(model: FieldModel, words: AdaptWords): string | undefined {
  switch (model.kind) {
    case 'boolean':
      return words.typeYesNo;
    case 'select':
      return words.typeOneOf(listOptions(model.options));
    case 'multiselect':
      return words.typeSeveral(listOptions(model.options));
    case 'number':
    case 'integer':
      return words.typeNumber;
    default:
      return undefined;
  }
}

function defaultText(model: FieldModel, words: AdaptWords): string | undefined {
  const value = model.default;
  if (value === undefined) return undefined;
  if (typeof value === 'boolean') return value ? words.yes : words.no;
  return Array.isArray(value) ? value.join(', ') : String(value);
}
