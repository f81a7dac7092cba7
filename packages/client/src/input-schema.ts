import { ToolSchemaError } from './errors.js';

/** One argument of a tool, as far as `toolArguments` and `describeArguments` read it. */
export type PropertySchema = {
  type?: string | string[];
  enum?: (string | number | boolean | null)[];
  items?: PropertySchema;
  description?: string;
};

/** A tool's `inputSchema`, checked: only the parts Elicitkit reads, in shapes it can rely on. */
export type InputSchema = {
  properties?: Record<string, PropertySchema>;
  required?: string[];
  additionalProperties?: unknown;
};

/** Which server and tool a schema came from, for the error message. */
export interface ToolSource {
  server?: string | undefined;
  tool?: string | undefined;
}

// A server is not trusted to send a sane schema: bound what we are willing to walk.
const MAX_PROPERTIES = 500;
const MAX_ENUM = 1000;
const MAX_DEPTH = 8;

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Checks a server-sent `inputSchema` before anything reads it: `properties` must be an object of
 * objects, `enum` an array of scalars, `type` a string or strings, `required` strings. Whatever a
 * hostile or buggy server sends (a string `enum`, `__proto__` keys, thousands of properties),
 * the answer is the schema as plain data or a `ToolSchemaError` naming the server and the tool.
 *
 * @example
 * try { readInputSchema(tool.inputSchema, { server: 'opsdesk', tool: tool.name }); }
 * catch (e) { if (e instanceof ToolSchemaError) console.warn(e.message); }
 */
export function readInputSchema(raw: unknown, source: ToolSource = {}): InputSchema {
  const fail = (path: string, what: string): never => {
    throw new ToolSchemaError(source, `${path} ${what}`);
  };
  if (raw === undefined || raw === null) return {};
  if (!isRecord(raw)) return fail('inputSchema', `is ${kind(raw)}, not an object`);
  const out: InputSchema = {};
  if (raw.properties !== undefined) {
    if (!isRecord(raw.properties)) return fail('inputSchema.properties', `is ${kind(raw.properties)}, not an object`);
    const names = Object.keys(raw.properties);
    if (names.length > MAX_PROPERTIES)
      fail('inputSchema.properties', `has ${names.length} entries; at most ${MAX_PROPERTIES} are read`);
    // A null prototype keeps a `__proto__` argument an ordinary entry.
    const properties: Record<string, PropertySchema> = Object.create(null);
    for (const name of names) {
      properties[name] = readProperty(raw.properties[name], `inputSchema.properties[${JSON.stringify(name)}]`, fail, 0);
    }
    out.properties = properties;
  }
  if (raw.required !== undefined) {
    if (!Array.isArray(raw.required) || raw.required.some((r) => typeof r !== 'string'))
      fail('inputSchema.required', 'is not a list of names');
    out.required = [...(raw.required as string[])];
  }
  if (raw.additionalProperties !== undefined) out.additionalProperties = raw.additionalProperties;
  return out;
}

function readProperty(
  raw: unknown,
  path: string,
  fail: (path: string, what: string) => never,
  depth: number,
): PropertySchema {
  if (depth > MAX_DEPTH) return fail(path, `nests deeper than ${MAX_DEPTH} levels`);
  // `true` is a valid JSON Schema ("anything"); read it as an untyped argument.
  if (raw === true) return {};
  if (!isRecord(raw)) return fail(path, `is ${kind(raw)}, not a schema object`);
  const p: PropertySchema = {};
  if (raw.type !== undefined) {
    const ok =
      typeof raw.type === 'string' || (Array.isArray(raw.type) && raw.type.every((t) => typeof t === 'string'));
    if (!ok) fail(`${path}.type`, `is ${kind(raw.type)}, not a type name or a list of them`);
    p.type = Array.isArray(raw.type) ? [...(raw.type as string[])] : (raw.type as string);
  }
  if (raw.enum !== undefined) {
    if (!Array.isArray(raw.enum)) return fail(`${path}.enum`, `is ${kind(raw.enum)}, not a list`);
    if (raw.enum.length > MAX_ENUM) fail(`${path}.enum`, `has ${raw.enum.length} values; at most ${MAX_ENUM} are read`);
    const bad = raw.enum.findIndex((v) => v !== null && !['string', 'number', 'boolean'].includes(typeof v));
    if (bad !== -1) fail(`${path}.enum[${bad}]`, `is ${kind(raw.enum[bad])}; only strings, numbers, booleans and null`);
    p.enum = [...(raw.enum as PropertySchema['enum'] & unknown[])];
  }
  if (raw.items !== undefined) p.items = readProperty(raw.items, `${path}.items`, fail, depth + 1);
  if (raw.description !== undefined) {
    if (typeof raw.description !== 'string') fail(`${path}.description`, `is ${kind(raw.description)}, not text`);
    p.description = raw.description as string;
  }
  return p;
}

function kind(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'a list';
  if (typeof v === 'object') return 'an object';
  if (typeof v === 'string') return `the text ${JSON.stringify(v.length > 40 ? `${v.slice(0, 40)}…` : v)}`;
  return `${typeof v} ${String(v)}`;
}
