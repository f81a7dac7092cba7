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
  const checked = checkOptions(name, raw, where, raw);
  return checked.ok ? withLookAlikes(checked, lookAlikes(name, raw, where)) : checked;
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
  const checked = checkOptions(
    name,
    options.map((o) => o.const),
    where,
    options,
  );
  return checked.ok
    ? withLookAlikes(
        checked,
        lookAlikes(
          name,
          options.map((o) => o.title),
          `the titles of ${where}`,
          options.map((o) => o.const),
        ),
      )
    : checked;
}

function withLookAlikes<T>(checked: Result<T>, problems: SchemaProblem[]): Result<T> {
  return problems.length === 0 ? checked : { ok: false, problems };
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

/** Characters that draw nothing: default-ignorable code points, and controls other than whitespace. */
const UNSEEN = /\p{Default_Ignorable_Code_Point}|(?![\t\n\v\f\r])\p{Cc}/gu;

/**
 * How a person reads an option on screen: the same text whatever its Unicode form (NFC), its
 * invisible characters (zero-width, bidi controls, soft hyphen…) and its runs of spaces. Case
 * is kept: `Prod` and `prod` look different.
 */
export function onScreen(text: string): string {
  return text.normalize('NFC').replace(UNSEEN, '').replace(/\s+/gu, ' ').trim();
}

/**
 * Two options a person cannot tell apart (`labels` as they are drawn: titles, or the values of an
 * untitled list), or a title that draws nothing over a value that does (`values`, for titled
 * lists): the problem, or nothing. Picking one of them would send a value the person could
 * not know, so such a list is refused as a duplicate value is.
 */
export function lookAlikes(
  name: string,
  labels: readonly string[],
  where: string,
  values?: readonly string[],
): SchemaProblem[] {
  // A title that draws nothing over a value that would: the person picks a blank and sends that value.
  const blank = values?.findIndex((value, i) => onScreen(labels[i] ?? '') === '' && onScreen(value) !== '') ?? -1;
  if (blank >= 0)
    return fail(
      name,
      `field "${name}" shows an option with no title a person can see in ${where}: ${show(labels[blank])}, which sends ${show(values?.[blank])}`,
      'Give every option a title a person can read.',
    ).problems;
  const pair = drawnAlike(labels);
  if (!pair) return [];
  return fail(
    name,
    `field "${name}" shows two options alike in ${where}: ${show(labels[pair[0]])} and ${show(labels[pair[1]])}`,
    'Give every option a title a person can tell apart from the others.',
  ).problems;
}

/** Letters of the scripts whose letters are drawn like one another's (Latin a, Cyrillic а, Greek α). */
const TWIN_SCRIPTS = /[\p{Script=Latin}\p{Script=Cyrillic}\p{Script=Greek}]/u;
const TWIN_LETTERS = /[\p{Script=Latin}\p{Script=Cyrillic}\p{Script=Greek}]/gu;

const mixesScripts = (text: string) =>
  Number(/\p{Script=Latin}/u.test(text)) +
    Number(/\p{Script=Cyrillic}/u.test(text)) +
    Number(/\p{Script=Greek}/u.test(text)) >
  1;

const scriptOf = (ch: string) =>
  /\p{Script=Latin}/u.test(ch) ? 'Latin' : /\p{Script=Cyrillic}/u.test(ch) ? 'Cyrillic' : 'Greek';

/**
 * The first two of `labels` a person cannot tell apart, as indexes, or nothing: equal on screen
 * (`onScreen`), or a word with some of its letters swapped for letters of another script: the two
 * share at least one Latin, Cyrillic or Greek letter in the same place and differ only where one
 * has a letter of one of these scripts and the other a letter of another (`Staging` and `Stаging`
 * with a Cyrillic а). No table of look-alike letters is used: any such swap counts, so `Stжging`
 * beside `Staging` is refused too, a list no person needs. Words wholly in another script (`Прод`
 * beside `Prod`, or an all-Cyrillic spelling of a Latin word) are not compared: telling those apart
 * takes Unicode's confusables table, which is not used here.
 */
export function drawnAlike(labels: readonly string[]): [number, number] | undefined {
  const seen = screen();
  for (const [i, label] of labels.entries()) {
    const first = seen(label);
    if (first !== undefined) return [first, i];
  }
  return undefined;
}

/**
 * A running `drawnAlike`: each call takes the next label and answers the index of an earlier one
 * drawn alike, or undefined (and then remembers it). Each label is normalized once.
 */
export function screen(): (label: string) => number | undefined {
  const exact = new Map<string, number>();
  // Labels with the same shape once every letter of those scripts is masked: only these can be twins.
  // Only a label mixing these scripts can be one of two twins (the letter they share is of one
  // script, the swapped one of another), so pairs where neither mixes are never compared.
  const shapes = new Map<string, { at: number; text: string[]; mixed: boolean }[]>();
  let at = 0;
  return (label) => {
    const i = at++;
    const key = onScreen(label);
    const first = exact.get(key);
    if (first !== undefined) return first;
    exact.set(key, i);
    if (!TWIN_SCRIPTS.test(key)) return undefined;
    const shape = key.replace(TWIN_LETTERS, '\u0000');
    const text = [...key];
    const mixed = mixesScripts(key);
    const group = shapes.get(shape) ?? [];
    for (const other of group) if ((mixed || other.mixed) && scriptTwins(other.text, text)) return other.at;
    group.push({ at: i, text, mixed });
    shapes.set(shape, group);
    return undefined;
  };
}

/** Same length and shape (checked by the caller); every difference a letter swapped for another script's. */
function scriptTwins(a: readonly string[], b: readonly string[]): boolean {
  let shared = false;
  for (let i = 0; i < a.length; i++) {
    const x = a[i] as string;
    const y = b[i] as string;
    if (x === y) shared ||= TWIN_SCRIPTS.test(x);
    else if (scriptOf(x) === scriptOf(y)) return false;
  }
  return shared;
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

/** What typed text names among the options: one option, several (ambiguous), or none. */
export type Match = { option: OptionModel } | { several: OptionModel[] } | undefined;

/**
 * The option typed text names, by its value or its title: as typed first, then ignoring case,
 * Unicode form, invisible characters and spacing. Text that names more than one option at the
 * first step that finds any (`prod`, where one option's value is `prod` and another's title is
 * `prod`) names none of them for sure, and is reported, never settled by the options' order.
 */
export function matchOption(options: readonly OptionModel[], text: string): Match {
  const exact = options.filter((o) => o.value === text || o.label === text);
  if (exact.length > 0) return exact.length === 1 && exact[0] ? { option: exact[0] } : { several: exact };
  const key = loose(text);
  const near = options.filter((o) => loose(o.value) === key || loose(o.label) === key);
  if (near.length === 0) return undefined;
  return near.length === 1 && near[0] ? { option: near[0] } : { several: near };
}

const loose = (text: string) => onScreen(text).toLowerCase();

/** The refusal for text that names several options. */
export function ambiguous(text: string, several: readonly OptionModel[]): string {
  return `"${text}" could mean any of ${listOptions(several)}: type one option's value exactly as listed.`;
}

/** The options as a person reads them in a message: `prod (Production), dev`. */
export function listOptions(options: readonly OptionModel[]): string {
  return options.map((o) => (o.label === o.value ? o.value : `${o.value} (${o.label})`)).join(', ');
}
