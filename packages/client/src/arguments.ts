import { coerceValue, type NumberFieldModel } from '@elicitkit/form';
import { cut, type NotAsTypedReason, notAsTyped, notAsTypedWhy, valueNotAsTyped } from './arguments-json.js';
import { ArgumentError } from './errors.js';
import { type PropertySchema, readInputSchema, type ToolSource } from './input-schema.js';

/**
 * What is wrong with a tool's arguments, as data (`ArgumentError.problem`), so that a chat can say
 * it in its own words and language; the error's message is the CLI's English.
 */
export type ArgumentProblem =
  /** `--args` is not JSON (`detail`: the parser's words). */
  | { kind: 'args-not-json'; detail: string }
  | { kind: 'args-not-object' }
  /** JSON typed (the `--args` object, or the value of `key`, typed `raw`) that would not be sent as typed. */
  | {
      kind: 'not-as-typed';
      in: { args: true } | { key: string; raw: string };
      path: string;
      reason: NotAsTypedReason;
    }
  /** A word without `key=`; `known`: the tool's arguments. */
  | { kind: 'not-an-argument'; word: string; known: string[] }
  /** A `k=v` word holding a lone surrogate (`key` with it shown as U+FFFD). */
  | { kind: 'half-character'; key: string }
  | { kind: 'unknown-argument'; key: string; known: string[] }
  /** An argument given twice (`k=1 k=2`, or in `--args` and as `k=v`): one would be dropped. */
  | { kind: 'given-twice'; key: string }
  /** A value `raw` of `key` (`ids[1]` for a list's item) the property cannot take. */
  | { kind: 'bad-value'; key: string; raw: string; expected: ValueProblem };

/** Why a `k=v` value cannot be taken. */
export type ValueProblem =
  | { is: 'number' }
  | { is: 'whole-number' }
  | { is: 'boolean' }
  | { is: 'json' }
  | { is: 'one-of'; choices: string[] }
  /** A number that would not be sent as typed: the same reasons as in JSON (`numberNotAsTyped`). */
  | { is: 'not-as-typed'; reason: NotAsTypedReason };

/** `problem` as the CLI says it. */
function argumentMessage(problem: ArgumentProblem): string {
  switch (problem.kind) {
    case 'args-not-json':
      return `--args is not valid JSON: ${problem.detail}`;
    case 'args-not-object':
      return '--args must be a JSON object';
    case 'not-as-typed':
      return `${'args' in problem.in ? '--args:' : `${problem.in.key}=${shownRaw(problem.in.raw)}:`} ${problem.path} ${notAsTypedWhy(problem.reason)}`;
    case 'not-an-argument':
      return `"${problem.word}" is not an argument: write key=value (arguments: ${some(problem.known) || 'none'})`;
    case 'half-character':
      return `${problem.key}: holds half of a character (a lone UTF-16 surrogate): no UTF-8 text can carry it`;
    case 'unknown-argument':
      return `unknown argument "${problem.key}" (arguments: ${some(problem.known) || 'none'})`;
    case 'given-twice':
      return `${problem.key}: given twice; give it once`;
    case 'bad-value':
      return `${problem.key}=${shownRaw(problem.raw)}: ${valueMessage(problem.expected)}`;
  }
}

/** A server's names listed in a message: the first 20, each its first 200 characters, then how many more. */
function some(names: readonly string[]): string {
  const shown = names.slice(0, 20).map(shownRaw).join(', ');
  return names.length > 20 ? `${shown} and ${names.length - 20} more` : shown;
}

/** A typed value quoted in a message: its first 200 characters (whole ones), then `…`. */
function shownRaw(raw: string): string {
  if (raw.length <= 200) return raw;
  const points = Array.from(raw);
  return points.length > 200 ? `${points.slice(0, 200).join('')}…` : raw;
}

function valueMessage(problem: ValueProblem): string {
  switch (problem.is) {
    case 'number':
      return 'expected a number';
    case 'whole-number':
      return 'expected a whole number';
    case 'boolean':
      return 'expected true or false';
    case 'json':
      return 'expected JSON';
    case 'one-of':
      return `expected one of ${some(problem.choices)}`;
    case 'not-as-typed':
      return notAsTypedWhy(problem.reason);
  }
}

function refuse(problem: ArgumentProblem): never {
  throw new ArgumentError(argumentMessage(problem), problem);
}

const TRUE = new Set(['true', 'yes', 'y', '1', 'on']);
const FALSE = new Set(['false', 'no', 'n', '0', 'off']);

/**
 * Builds tool arguments (for a CLI, a `/tool` chat command) from `k=v` words and a `--args` JSON object, each `v` coerced by the tool's
 * input schema: numbers, booleans, lists (comma-separated or JSON), objects (JSON). A number is
 * read as a form's number field reads it (decimal digits only; a whole number within the exact
 * range) and must arrive as the value typed: what would not is refused, or, where the property
 * also takes a string, sent as the string typed (`zip=02134`). A key the
 * schema does not know, or a value it cannot take, is an `ArgumentError` that names the choices;
 * a schema the server got wrong is a `ToolSchemaError` naming `source` (server and tool).
 *
 * @example
 * toolArguments(schema, ['service=order-service', 'replicas=3'], '{"env":"prod"}')
 * // → { env: 'prod', service: 'order-service', replicas: 3 }
 */
export function toolArguments(
  rawSchema: unknown,
  words: readonly string[],
  json: string | undefined,
  source?: ToolSource,
): Record<string, unknown> {
  const schema = rawSchema === undefined ? undefined : readInputSchema(rawSchema, source);
  const args: Record<string, unknown> = {};
  if (json !== undefined) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(json);
    } catch (error) {
      refuse({ kind: 'args-not-json', detail: error instanceof Error ? error.message : String(error) });
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) refuse({ kind: 'args-not-object' });
    const wrong = notAsTyped(json);
    if (wrong) refuse({ kind: 'not-as-typed', in: { args: true }, path: wrong.path, reason: wrong.reason });
    for (const [k, v] of Object.entries(parsed)) define(args, k, v);
  }
  const properties = schema?.properties ?? {};
  const known = Object.keys(properties);
  for (const word of words) {
    const at = word.indexOf('=');
    if (at <= 0) refuse({ kind: 'not-an-argument', word, known });
    const key = word.slice(0, at);
    const raw = word.slice(at + 1);
    // A chat's command can carry one (JSON's \ud800); a terminal's cannot: either way not text to send.
    if (/\p{Cs}/u.test(word)) refuse({ kind: 'half-character', key: key.replace(/\p{Cs}/gu, '\uFFFD') });
    // As a key given twice in JSON: one of the two values would be dropped without a word.
    if (Object.hasOwn(args, key)) refuse({ kind: 'given-twice', key });
    const property = Object.hasOwn(properties, key) ? properties[key] : undefined;
    if (!property) {
      if (schema?.properties !== undefined) refuse({ kind: 'unknown-argument', key, known });
      define(args, key, raw);
      continue;
    }
    define(args, key, coerce(key, raw, property));
  }
  return args;
}

/** Plain keys only: a `__proto__` argument stays an argument. */
function define(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

function coerce(key: string, raw: string, property: PropertySchema): unknown {
  const types = Array.isArray(property.type) ? property.type : [property.type ?? 'string'];
  const fail = (expected: ValueProblem): never => refuse({ kind: 'bad-value', key, raw, expected });
  let value: unknown = raw;
  if (types.includes('integer') || types.includes('number')) {
    value = number(raw, types.includes('number') ? 'number' : 'integer', types.includes('string'), fail);
  } else if (types.includes('boolean')) {
    const word = raw.toLowerCase();
    value = TRUE.has(word) ? true : FALSE.has(word) ? false : fail({ is: 'boolean' });
  } else if (types.includes('array')) {
    // A comma-separated list is text; each item is read as the list's items are typed (`ids=1,2`
    // for integers sends [1, 2], held to the same rules as one number). JSON is sent as written.
    const items = property.items;
    value = raw.trim().startsWith('[')
      ? parseJson(key, raw)
      : raw
          .split(',')
          .map((s) => s.trim())
          .filter((s) => s !== '')
          .map((item, i) => (items ? coerce(`${key}[${i}]`, item, items) : item));
  } else if (types.includes('object')) {
    value = parseJson(key, raw);
  }
  if (property.enum && !(property.enum as unknown[]).includes(value))
    fail({ is: 'one-of', choices: property.enum.map(String) });
  return value;
}

/**
 * `raw` as a number, if it arrives as that very value (`numberNotAsTyped`, the rule for a number
 * typed as JSON too); else the string itself where the property takes one, else a usage error.
 * With a string allowed, only the number's own spelling counts: `02134` stays the text it is.
 */
function number(
  raw: string,
  kind: NumberFieldModel['kind'],
  stringAllowed: boolean,
  fail: (expected: ValueProblem) => never,
): unknown {
  const read = readNumber(raw, kind);
  if (read.ok && stringAllowed) return String(read.value) === raw ? read.value : raw;
  if (!read.ok) return stringAllowed ? raw : fail(read.problem);
  // What a number typed as JSON is refused for (`numberNotAsTyped`), said the same way; the form's
  // spellings (`+5`, `.5`) are read by the form's rules, so the value is compared, not the text.
  const reason = read.exact || Object.is(read.value, -0) ? valueNotAsTyped(raw, read.value) : inexact(raw, read.value);
  if (reason) return fail({ is: 'not-as-typed', reason });
  return read.value;
}

type NumberRead = { ok: true; value: number; exact: boolean } | { ok: false; problem: ValueProblem };

/**
 * `raw` read as a form's number field reads it (`coerceValue`: decimal digits only, no `0x10`),
 * then, for a whole number, as an integer field does (within the exact range). `exact`: it
 * arrives as typed (`2.50` does, as 2.5; `0.10000000000000000001` arrives as 0.1).
 */
function readNumber(raw: string, kind: NumberFieldModel['kind']): NumberRead {
  const field = (of: NumberFieldModel['kind']): NumberFieldModel => ({
    kind: of,
    name: 'v',
    label: 'v',
    required: true,
  });
  const asNumber = coerceValue(field('number'), raw);
  const value = asNumber.ok ? asNumber.value : asNumber.arrivesAs;
  if (typeof value !== 'number') return { ok: false, problem: { is: 'number' } };
  if (kind === 'number') return { ok: true, value, exact: asNumber.ok };
  if (!Number.isInteger(value)) return { ok: false, problem: { is: 'whole-number' } };
  const asWhole = coerceValue(field('integer'), raw);
  if (asWhole.ok && typeof asWhole.value === 'number') return { ok: true, value: asWhole.value, exact: true };
  // A whole number past ±2^53-1 (the form's "too large to be exact"), or -0: said as a typed JSON
  // number is.
  if (!Number.isSafeInteger(value) || Object.is(value, -0)) {
    const reason = asNumber.ok || Object.is(value, -0) ? valueNotAsTyped(raw, value) : inexact(raw, value);
    if (reason) return { ok: false, problem: { is: 'not-as-typed', reason } };
  }
  return { ok: false, problem: { is: 'whole-number' } };
}

/** `raw` read as `value`, another number (the nearest double). */
function inexact(raw: string, value: number): NotAsTypedReason {
  return { kind: 'inexact', written: cut(raw), arrivesAs: JSON.stringify(value) };
}

function parseJson(key: string, raw: string): unknown {
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    return refuse({ kind: 'bad-value', key, raw, expected: { is: 'json' } });
  }
  const wrong = notAsTyped(raw);
  if (wrong) return refuse({ kind: 'not-as-typed', in: { key, raw }, path: wrong.path, reason: wrong.reason });
  return value;
}

/**
 * One line per argument, for `elicitkit tools`; a schema the server got wrong is a
 * `ToolSchemaError` naming `source`.
 *
 * @example
 * describeArguments(tool.inputSchema, { server: 'opsdesk', tool: tool.name }) // → ['service: string — Service name', 'env?: dev|prod']
 */
export function describeArguments(rawSchema: unknown, source?: ToolSource): string[] {
  const schema = readInputSchema(rawSchema, source);
  const required = new Set(schema.required ?? []);
  return Object.entries(schema.properties ?? {}).map(([name, p]) => {
    const type = p.enum ? p.enum.map(String).join('|') : Array.isArray(p.type) ? p.type.join('|') : (p.type ?? 'any');
    return `${name}${required.has(name) ? '' : '?'}: ${type}${p.description ? ` — ${p.description}` : ''}`;
  });
}
