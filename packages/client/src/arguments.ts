import { coerceValue, type NumberFieldModel } from '@elicitkit/form';
import { notAsTyped } from './arguments-json.js';
import { ArgumentError } from './errors.js';
import { type PropertySchema, readInputSchema, type ToolSource } from './input-schema.js';

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
      throw new ArgumentError(`--args is not valid JSON: ${error instanceof Error ? error.message : String(error)}`);
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
      throw new ArgumentError('--args must be a JSON object');
    const wrong = notAsTyped(json);
    if (wrong) throw new ArgumentError(`--args: ${wrong.path} ${wrong.why}`);
    for (const [k, v] of Object.entries(parsed)) define(args, k, v);
  }
  const properties = schema?.properties ?? {};
  const known = Object.keys(properties);
  for (const word of words) {
    const at = word.indexOf('=');
    if (at <= 0)
      throw new ArgumentError(
        `"${word}" is not an argument: write key=value (arguments: ${known.join(', ') || 'none'})`,
      );
    const key = word.slice(0, at);
    const raw = word.slice(at + 1);
    // A chat's command can carry one (JSON's \ud800); a terminal's cannot: either way not text to send.
    if (/\p{Cs}/u.test(word))
      throw new ArgumentError(
        `${key.replace(/\p{Cs}/gu, '\uFFFD')}: holds half of a character (a lone UTF-16 surrogate): no UTF-8 text can carry it`,
      );
    const property = Object.hasOwn(properties, key) ? properties[key] : undefined;
    if (!property) {
      if (schema?.properties !== undefined)
        throw new ArgumentError(`unknown argument "${key}" (arguments: ${known.join(', ') || 'none'})`);
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
  const fail = (what: string): never => {
    throw new ArgumentError(`${key}=${raw}: ${what}`);
  };
  let value: unknown = raw;
  if (types.includes('integer') || types.includes('number')) {
    value = number(raw, types.includes('number') ? 'number' : 'integer', types.includes('string'), fail);
  } else if (types.includes('boolean')) {
    const word = raw.toLowerCase();
    value = TRUE.has(word) ? true : FALSE.has(word) ? false : fail('expected true or false');
  } else if (types.includes('array')) {
    // A comma-separated list is text; each item is read as the list's items are typed (`ids=1,2`
    // for integers sends [1, 2], held to the same rules as one number). JSON is sent as written.
    const items = property.items;
    value = raw.trim().startsWith('[')
      ? parseJson(raw, fail)
      : raw
          .split(',')
          .map((s) => s.trim())
          .filter((s) => s !== '')
          .map((item, i) => (items ? coerce(`${key}[${i}]`, item, items) : item));
  } else if (types.includes('object')) {
    value = parseJson(raw, fail);
  }
  if (property.enum && !(property.enum as unknown[]).includes(value))
    fail(`expected one of ${property.enum.map(String).join(', ')}`);
  return value;
}

/**
 * `raw` as a number, if it arrives as that very value; else the string itself where the property
 * takes one, else a usage error. With a string allowed, only the number's own spelling counts:
 * `02134` stays the text it is.
 */
function number(
  raw: string,
  kind: NumberFieldModel['kind'],
  stringAllowed: boolean,
  fail: (what: string) => never,
): unknown {
  const read = readNumber(raw, kind);
  // JSON has no negative zero: -0 would arrive as 0.
  if (read.ok && Object.is(read.value, -0) && !stringAllowed)
    return fail(`${raw} cannot be sent exactly: JSON has no negative zero, it would arrive as 0`);
  if (read.ok && (stringAllowed ? String(read.value) === raw : read.exact)) return read.value;
  if (stringAllowed) return raw;
  if (!read.ok) return fail(read.message);
  return fail(`${raw} cannot be sent exactly: it would arrive as ${read.value}`);
}

type NumberRead = { ok: true; value: number; exact: boolean } | { ok: false; message: string };

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
  if (typeof value !== 'number') return { ok: false, message: 'expected a number' };
  if (kind === 'number') return { ok: true, value, exact: asNumber.ok };
  if (!Number.isInteger(value)) return { ok: false, message: 'expected a whole number' };
  const asWhole = coerceValue(field('integer'), raw);
  if (asWhole.ok && typeof asWhole.value === 'number') return { ok: true, value: asWhole.value, exact: true };
  return { ok: false, message: asWhole.ok ? 'expected a whole number' : asWhole.message };
}

function parseJson(raw: string, fail: (what: string) => never): unknown {
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    return fail('expected JSON');
  }
  const wrong = notAsTyped(raw);
  if (wrong) return fail(`${wrong.path} ${wrong.why}`);
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
