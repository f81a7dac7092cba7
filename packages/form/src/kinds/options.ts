/** Options of the choice kinds (select, multi-select): reading them from the wire and matching typed text. */
import { isObject, isStringArray, own, ownKeys, show } from '../json.js';
import { problem, type SchemaProblem } from '../schema/problems.js';
import type { EnumOption, FieldSchema } from '../wire.js';

/** Caps that keep a hostile schema from becoming a denial of service. */
export const MAX_OPTIONS = 1000;

/** One option as a renderer shows it. */
export interface OptionModel {
  value: string;
  /** The display title, or the value when the schema gives none. */
  label: string;
}

/** A choice with a display title; the `value` is what the tool receives. */
export interface Choice<V extends string = string> {
  value: V;
  title: string;
}

/** Choices as plain values, `{value, title}` pairs, or a mix. */
export type ChoiceList = readonly (string | Choice)[];

/** The union of values a choice list allows. */
export type ChoiceValue<C extends ChoiceList> = C[number] extends infer X
  ? X extends string
    ? X
    : X extends Choice<infer V>
      ? V
      : never
  : never;

/** Choices as `{value, title}` pairs, a plain value titled by itself. */
export function titledChoices(list: ChoiceList): Choice[] {
  return list.map((c) => (typeof c === 'object' && c !== null ? c : { value: c, title: c }));
}

type Result<T> = { ok: true; value: T; problems: SchemaProblem[] } | { ok: false; problems: SchemaProblem[] };

/** An `enum` list: non-empty strings, unique, within the cap. */
export function parseEnum(name: string, raw: unknown, where: string): Result<string[]> {
  if (!isStringArray(raw) || raw.length === 0) {
    return fail(
      name,
      `field "${name}" has ${where} ${show(raw)}, not a non-empty list of strings`,
      'List the allowed values as strings.',
    );
  }
  return checkOptions(name, raw, where, raw);
}

/** A `oneOf` / `items.anyOf` list: exactly `{const, title}` strings, unique values, within the cap. */
export function parseOptions(name: string, raw: unknown, where: string): Result<EnumOption[]> {
  if (!Array.isArray(raw) || raw.length === 0) {
    return fail(
      name,
      `field "${name}" has ${where} ${show(raw)}, not a non-empty list`,
      'List the options as [{const, title}].',
    );
  }
  const options: EnumOption[] = [];
  for (const item of raw) {
    const value = isObject(item) ? own(item, 'const') : undefined;
    const title = isObject(item) ? own(item, 'title') : undefined;
    if (
      typeof value !== 'string' ||
      typeof title !== 'string' ||
      !isObject(item) ||
      ownKeys(item).some((k) => k !== 'const' && k !== 'title')
    ) {
      return fail(
        name,
        `field "${name}" has an option ${show(item)} in ${where}`,
        'Each option is exactly {const: string, title: string}.',
      );
    }
    options.push({ const: value, title });
  }
  return checkOptions(
    name,
    options.map((o) => o.const),
    where,
    options,
  );
}

function checkOptions<T>(name: string, values: string[], where: string, value: T): Result<T> {
  if (values.length > MAX_OPTIONS) {
    return fail(
      name,
      `field "${name}" offers ${values.length} options in ${where}`,
      `Offer at most ${MAX_OPTIONS}; for open-ended input use a string field.`,
    );
  }
  const seen = new Set<string>();
  for (const v of values) {
    if (seen.has(v))
      return fail(name, `field "${name}" lists ${show(v)} twice in ${where}`, 'Make every option value unique.');
    seen.add(v);
  }
  return { ok: true, value, problems: [] };
}

function fail(name: string, message: string, fix: string): { ok: false; problems: SchemaProblem[] } {
  return { ok: false, problems: [problem(name, 'bad_options', message, fix)] };
}

/** The option values of a select or multi-select field, in order. */
export function optionValues(field: FieldSchema): string[] {
  if ('enum' in field) return field.enum;
  if ('oneOf' in field) return field.oneOf.map((o) => o.const);
  if (field.type === 'array') return 'enum' in field.items ? field.items.enum : field.items.anyOf.map((o) => o.const);
  return [];
}

/** Exact value first, then value or label ignoring case. */
export function matchOption(options: readonly OptionModel[], text: string): OptionModel | undefined {
  const exact = options.find((o) => o.value === text);
  if (exact) return exact;
  const lower = text.toLowerCase();
  return options.find((o) => o.value.toLowerCase() === lower) ?? options.find((o) => o.label.toLowerCase() === lower);
}

/** The options as a person reads them in a message: `prod (Production), dev`. */
export function listOptions(options: readonly OptionModel[]): string {
  return options.map((o) => (o.label === o.value ? o.value : `${o.value} (${o.label})`)).join(', ');
}
