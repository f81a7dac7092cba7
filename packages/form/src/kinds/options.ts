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
  // The cheap bound first: a list past the cap is refused unread.
  if (Array.isArray(raw) && raw.length > MAX_OPTIONS) return tooMany(name, raw.length, where);
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
  if (raw.length > MAX_OPTIONS) return tooMany(name, raw.length, where);
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

function tooMany(name: string, count: number, where: string): { ok: false; problems: SchemaProblem[] } {
  return fail(
    name,
    `field "${name}" offers ${count} options in ${where}`,
    `Offer at most ${MAX_OPTIONS}; for open-ended input use a string field.`,
  );
}

function checkOptions<T>(name: string, values: string[], where: string, value: T): Result<T> {
  if (values.length > MAX_OPTIONS) return tooMany(name, values.length, where);
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
 * invisible characters (zero-width, bidi controls, soft hyphen…) and its runs of spaces. What is
 * drawn, as the person sees it; two labels are compared by `drawnKey`.
 */
export function onScreen(text: string): string {
  return text.normalize('NFC').replace(UNSEEN, '').replace(/\s+/gu, ' ').trim();
}

/**
 * The one key two labels (options, or fields) are compared by: `onScreen`, with compatibility
 * characters folded (NFKC: fullwidth `Ｐｒｏｄ`, ligatures `ﬃ`, mathematical `𝐏`, superscript `²`
 * and spaces of other widths read as the plain ones) and case ignored (`Confirm` and `confirm`,
 * and through upper case a dotless `ı` or a long `ſ` as `i` and `s`). Letters swapped for another
 * script's are compared on this key too (`screen`).
 */
export function drawnKey(text: string): string {
  return onScreen(text.normalize('NFKC')).toUpperCase().toLowerCase();
}

/** A line break: a title holding one draws as two lines, its second read as the next option or field. */
const LINE_BREAK = /[\n\v\f\r\u0085\u2028\u2029]/u;

/** Whether a title (one line of a label) breaks the line. */
export function breaksLine(text: string): boolean {
  return LINE_BREAK.test(text);
}

/**
 * Two options a person cannot tell apart (`labels` as they are drawn: titles, or the values of an
 * untitled list), an option whose label breaks the line, or a title that draws nothing over a
 * value that does (`values`, for titled lists): the problem, or nothing. Picking one of them would
 * send a value the person could not know, so such a list is refused as a duplicate value is.
 */
export function lookAlikes(
  name: string,
  labels: readonly string[],
  where: string,
  values?: readonly string[],
): SchemaProblem[] {
  const broken = labels.findIndex(breaksLine);
  if (broken >= 0)
    return fail(
      name,
      `field "${name}" shows an option whose title breaks the line in ${where}: ${show(labels[broken])}`,
      'Give every option a title of one line.',
    ).problems;
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
const SCRIPT_OF = /(\p{Script=Latin})|(\p{Script=Cyrillic})|(\p{Script=Greek})/u;

/** 0 Latin, 1 Cyrillic, 2 Greek, -1 none of them. */
function scriptOf(ch: string): number {
  if (ch < '\u0080') return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ? 0 : -1;
  const m = SCRIPT_OF.exec(ch);
  return m === null ? -1 : m[1] !== undefined ? 0 : m[2] !== undefined ? 1 : 2;
}

/**
 * The first two of `labels` a person cannot tell apart, as indexes, or nothing: equal on the one
 * key (`drawnKey`: Unicode form, compatibility characters, invisible characters, spacing, case), or
 * a word with some of its letters swapped for letters of another script: the two share at least
 * one Latin, Cyrillic or Greek letter in the same place and differ only where one has a letter of
 * one of these scripts and the other a letter of another (`Staging` and `Stаging` with a Cyrillic
 * а). No table of look-alike letters is used: any such swap counts, so `Stжging` beside `Staging`
 * is refused too, a list no person needs. Words wholly in another script (`Прод` beside `Prod`, or
 * an all-Cyrillic spelling of a Latin word, `сору` beside `copy`) are not compared: telling those
 * apart takes Unicode's confusables table, which is not used here.
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
 * drawn alike, or undefined (and then remembers it). Each label is keyed once, and compared with
 * all earlier ones of its shape at once (`Twins`), so n labels cost time growing with their total
 * length, never with the number of pairs.
 */
export function screen(): (label: string) => number | undefined {
  const exact = new Map<string, number>();
  // Labels with the same shape once every letter of those scripts is masked: only these can be twins.
  const shapes = new Map<string, Twins | { at: number; key: string }>();
  let at = 0;
  return (label) => {
    const i = at++;
    const key = drawnKey(label);
    const first = exact.get(key);
    if (first !== undefined) return first;
    exact.set(key, i);
    if (!TWIN_SCRIPTS.test(key)) return undefined;
    const shape = key.replace(TWIN_LETTERS, '\u0000');
    const group = shapes.get(shape);
    if (group === undefined) {
      // Most shapes hold one label: it is read letter by letter only once a second one comes.
      shapes.set(shape, { at: i, key });
      return undefined;
    }
    if (group instanceof Twins) return group.check(i, key);
    const twins = new Twins();
    twins.check(group.at, group.key);
    shapes.set(shape, twins);
    return twins.check(i, key);
  };
}

/** Bits per word of a set: small integers, cheap to hold in a plain array. */
const BITS = 30;

/**
 * Labels of one shape, kept as bit sets (one bit per label) of which labels have each letter, and a
 * letter of each script, at each place. A new label is a twin of an earlier one when, at every
 * letter's place, the two have the same letter or letters of different scripts; they share at
 * least one letter; and one of them mixes scripts (the shared letter is of one script, the swapped
 * one of another). Each place narrows the candidates with a few word operations per 30 labels.
 */
class Twins {
  private readonly at: number[] = [];
  private readonly letters: Map<string, number[]>[] = [];
  private readonly scripts: [number[], number[], number[]][] = [];
  private readonly mixed: number[] = [];

  check(index: number, key: string): number | undefined {
    const places: [number, string, number][] = [];
    const used = new Set<number>();
    let place = 0;
    for (const ch of key) {
      const script = scriptOf(ch);
      if (script >= 0) {
        places.push([place, ch, script]);
        used.add(script);
      }
      place++;
    }
    const mixes = used.size > 1;
    const count = this.at.length;
    const words = Math.ceil(count / BITS);
    // Earlier labels that may be twins: all of them if this one mixes scripts, else those that do.
    const candidates: number[] = [];
    for (let w = 0; w < words; w++)
      candidates.push(
        mixes ? (w < words - 1 || count % BITS === 0 ? 2 ** BITS - 1 : 2 ** (count % BITS) - 1) : (this.mixed[w] ?? 0),
      );
    const shared: number[] = new Array(words).fill(0);
    for (const [place, ch, script] of places) {
      const same = this.letters[place]?.get(ch);
      const sameScript = this.scripts[place]?.[script];
      let left = 0;
      for (let w = 0; w < words; w++) {
        const s = same?.[w] ?? 0;
        const c = (candidates[w] as number) & (s | ~(sameScript?.[w] ?? 0));
        candidates[w] = c;
        shared[w] = (shared[w] as number) | s;
        left |= c;
      }
      if (left === 0) break;
    }
    for (let w = 0; w < words; w++) {
      const c = (candidates[w] as number) & (shared[w] as number);
      if (c !== 0) return this.at[w * BITS + 31 - Math.clz32(c & -c)];
    }
    const word = Math.floor(count / BITS);
    const mask = 1 << (count % BITS);
    this.at.push(index);
    if (mixes) set(this.mixed, word, mask);
    for (const [place, ch, script] of places) {
      const letters = this.letters[place] ?? new Map<string, number[]>();
      this.letters[place] = letters;
      const same = letters.get(ch) ?? [];
      letters.set(ch, same);
      set(same, word, mask);
      const scripts = this.scripts[place] ?? [[], [], []];
      this.scripts[place] = scripts;
      set(scripts[script] as number[], word, mask);
    }
    return undefined;
  }
}

/** Sets `mask` in word `word` of a set, filling the words before it. */
function set(words: number[], word: number, mask: number): void {
  while (words.length <= word) words.push(0);
  words[word] = (words[word] as number) | mask;
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

const loose = drawnKey;

/** The refusal for text that names several options. */
export function ambiguous(text: string, several: readonly OptionModel[]): string {
  return `"${text}" could mean any of ${listOptions(several)}: type one option's value exactly as listed.`;
}

/** The options as a person reads them in a message: `prod (Production), dev`. */
export function listOptions(options: readonly OptionModel[]): string {
  return options.map((o) => (o.label === o.value ? o.value : `${o.value} (${o.label})`)).join(', ');
}
