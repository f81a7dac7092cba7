import { type NotAsTypedReason, notAsTyped, numberNotAsTyped } from '@elicitkit/client/typed-json';
import type { ToolProperty } from '../lib/wire';
import type { SchemaRule } from './schema-check';

/**
 * The tools panel's fields, read exactly for the type each argument declares: what is sent is what
 * was typed, as the declared type, or the field is marked and nothing is sent. The page used to
 * turn the text into a value by `type` alone and without a word: an object typed as `{"a":1}` went
 * as the string "{\"a\":1}", `yes` in a boolean field as false, `abc` in a number field as null,
 * and a union, `null`, an untyped argument or an `enum` of numbers were sent as strings. The words
 * for each problem are the page's (`PageTexts.fieldProblem`).
 */

/** The JSON types a property may declare. */
export type JsonType = 'string' | 'number' | 'integer' | 'boolean' | 'object' | 'array' | 'null';
const JSON_TYPES: readonly JsonType[] = ['string', 'number', 'integer', 'boolean', 'object', 'array', 'null'];

/**
 * How a field is drawn and read: `text` (a string, sent as typed), `number` (a JSON number, sent as
 * typed), `choice` (one of `enum`, or true/false: a select whose values are JSON), `json` (anything
 * else — an object, a list, null, a union, an untyped argument — typed as JSON).
 */
export type FieldKind =
  | { kind: 'text' }
  | { kind: 'number'; whole: boolean }
  | { kind: 'choice'; options: { json: string; label: string }[] }
  | { kind: 'json'; types: JsonType[] | undefined };

/** Why a field's text cannot be sent, as data: each locale says it its own way. */
export type FieldProblem =
  | { is: 'not-a-number' }
  | { is: 'not-whole' }
  | { is: 'not-json'; detail: string }
  /** JSON (or a number) that would not arrive as typed; `path` inside the field's value (`$`: all of it). */
  | { is: 'not-as-typed'; path: string; reason: NotAsTypedReason }
  /** A value of another type than declared (`types`: the declared ones). */
  | { is: 'wrong-type'; types: JsonType[] }
  /** A value the select holds that is none of its choices (a refused call's, filled back). */
  | { is: 'not-a-choice'; choices: string[] }
  /** Left empty, and the schema requires it (`choose`: a select). */
  | { is: 'required'; choose: boolean }
  /** What the tool's whole input schema refuses in it (`schema-check.ts`): each rule, where. */
  | { is: 'schema'; rules: SchemaRule[] };

/** The declared JSON types of `prop`, or undefined for any JSON (no `type`, or none this page knows). */
export function declaredTypes(prop: ToolProperty): JsonType[] | undefined {
  const raw = prop.type === undefined ? [] : Array.isArray(prop.type) ? prop.type : [prop.type];
  const known = JSON_TYPES.filter((t) => raw.includes(t));
  return known.length > 0 ? known : undefined;
}

/**
 * How `prop` is drawn and read.
 *
 * @example
 * fieldKind({ type: ['string', 'null'] }); // { kind: 'json', types: ['string', 'null'] }
 * fieldKind({ type: 'boolean' }); // { kind: 'choice', options: [true, false] as JSON }
 */
export function fieldKind(prop: ToolProperty): FieldKind {
  if (prop.enum)
    return {
      kind: 'choice',
      options: prop.enum.map((v) => ({ json: JSON.stringify(v), label: choiceLabel(v) })),
    };
  const types = declaredTypes(prop);
  if (types?.length === 1 && types[0] === 'string') return { kind: 'text' };
  if (types?.length === 1 && types[0] === 'boolean')
    return {
      kind: 'choice',
      options: [
        { json: 'true', label: 'true' },
        { json: 'false', label: 'false' },
      ],
    };
  if (types?.every((t) => t === 'number' || t === 'integer'))
    return { kind: 'number', whole: !types.includes('number') };
  return { kind: 'json', types };
}

/**
 * `text` as the JSON the field sends, or why it cannot be sent; undefined for an empty field (the
 * argument is left out). `prop` is checked too: a value of another type, or none of its `enum`.
 *
 * @example
 * readField({ type: 'object' }, fieldKind({ type: 'object' }), '{"a":1}'); // { json: '{"a":1}' }
 * readField({ type: 'integer' }, fieldKind({ type: 'integer' }), '2.5'); // { problem: { is: 'not-whole' } }
 */
export function readField(
  prop: ToolProperty,
  kind: FieldKind,
  text: string,
): { json: string } | { problem: FieldProblem } | undefined {
  if (text === '') return undefined;
  switch (kind.kind) {
    case 'text':
      // JSON.stringify writes a lone surrogate as `\ud800`, which the chat refuses: say it here.
      if (/\p{Cs}/u.test(text))
        return { problem: { is: 'not-as-typed', path: '$', reason: { kind: 'half-character' } } };
      return { json: JSON.stringify(text) };
    case 'number': {
      const typed = text.trim();
      if (!/^-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?$/.test(typed)) return { problem: { is: 'not-a-number' } };
      const reason = numberNotAsTyped(typed);
      if (reason) return { problem: { is: 'not-as-typed', path: '$', reason } };
      // Exact now: the double is the value typed.
      if (kind.whole && !Number.isInteger(Number(typed))) return { problem: { is: 'not-whole' } };
      return { json: typed };
    }
    case 'choice':
      // Each option's value is its JSON: `3` stays a number, `"3"` a string.
      if (!kind.options.some((o) => o.json === text))
        return { problem: { is: 'not-a-choice', choices: kind.options.map((o) => o.label) } };
      return { json: text };
    case 'json':
      return readJson(prop, text);
  }
}

/** `text` read as JSON the chat sends as typed, of a type `prop` takes. */
export function readJson(prop: ToolProperty, text: string): { json: string } | { problem: FieldProblem } {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { problem: { is: 'not-json', detail: error instanceof Error ? error.message : String(error) } };
  }
  // The same reading as the chat's `{json}` (`toolArguments`): -0, 1e400, a key given twice, \ud800.
  const wrong = notAsTyped(text);
  if (wrong) return { problem: { is: 'not-as-typed', path: wrong.path, reason: wrong.reason } };
  if (prop.enum) {
    if (!prop.enum.some((v) => v === value))
      return { problem: { is: 'not-a-choice', choices: prop.enum.map(choiceLabel) } };
  } else {
    const types = declaredTypes(prop);
    if (types && !types.some((t) => isOfType(value, t))) return { problem: { is: 'wrong-type', types } };
  }
  // Valid JSON holds a raw tab or line break only between tokens: the command stays one line.
  return { json: text.trim().replace(/[\t\n\r]/g, ' ') };
}

/** An `enum` value as its option reads: a string as it is, anything else as JSON (`3`, `null`). */
function choiceLabel(value: string | number | boolean | null): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}

function isOfType(value: unknown, type: JsonType): boolean {
  switch (type) {
    case 'null':
      return value === null;
    case 'array':
      return Array.isArray(value);
    case 'object':
      return typeof value === 'object' && value !== null && !Array.isArray(value);
    case 'integer':
      return Number.isInteger(value);
    default:
      return typeof value === type;
  }
}

/**
 * What a field shows for `value`, an argument of a refused call, so that sending it again sends
 * that value: the text, and whether it must be read as JSON (a text field given `""`, a number or
 * null, which its text would send as another string). Undefined for an argument not given.
 *
 * @example
 * fillField(fieldKind({ type: 'object' }), { a: 1 }); // { text: '{"a":1}', asJson: false }
 * fillField(fieldKind({ type: 'string' }), null); // { text: 'null', asJson: true }
 */
export function fillField(kind: FieldKind, value: unknown): { text: string; asJson: boolean } | undefined {
  if (value === undefined) return undefined;
  const json = JSON.stringify(value);
  switch (kind.kind) {
    case 'text':
      return typeof value === 'string' && value !== '' ? { text: value, asJson: false } : { text: json, asJson: true };
    case 'number':
    case 'choice':
    case 'json':
      // A number as JSON writes it (read back as the same double); a choice by its JSON (one that is
      // none of the choices is shown as it is, and marked when sent).
      return { text: json, asJson: false };
  }
}
