import { ArgumentError } from './errors.js';
import { type PropertySchema, readInputSchema, type ToolSource } from './input-schema.js';

const TRUE = new Set(['true', 'yes', 'y', '1', 'on']);
const FALSE = new Set(['false', 'no', 'n', '0', 'off']);

/**
 * Builds tool arguments (for a CLI, a `/tool` chat command) from `k=v` words and a `--args` JSON object, each `v` coerced by the tool's
 * input schema: numbers, booleans, lists (comma-separated or JSON), objects (JSON). A key the
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
    const n = Number(raw);
    if (raw.trim() === '' || !Number.isFinite(n)) fail('expected a number');
    if (types.includes('integer') && !types.includes('number') && !Number.isInteger(n)) fail('expected a whole number');
    value = n;
  } else if (types.includes('boolean')) {
    const word = raw.toLowerCase();
    value = TRUE.has(word) ? true : FALSE.has(word) ? false : fail('expected true or false');
  } else if (types.includes('array')) {
    value = raw.trim().startsWith('[')
      ? parseJson(raw, fail)
      : raw
          .split(',')
          .map((s) => s.trim())
          .filter((s) => s !== '');
  } else if (types.includes('object')) {
    value = parseJson(raw, fail);
  }
  if (property.enum && !(property.enum as unknown[]).includes(value))
    fail(`expected one of ${property.enum.map(String).join(', ')}`);
  return value;
}

function parseJson(raw: string, fail: (what: string) => never): unknown {
  try {
    return JSON.parse(raw);
  } catch {
    return fail('expected JSON');
  }
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
