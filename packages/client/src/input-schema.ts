import { ToolSchemaError } from './errors.js';

/**
 * What was found where a schema was expected, as data (each reader words it its own way): `null`,
 * a list, an object, text (its first 40 characters), a number or a boolean.
 */
export type SchemaFound =
  | { is: 'null' }
  | { is: 'list' }
  | { is: 'object' }
  | { is: 'text'; text: string }
  | { is: 'number' | 'boolean' | 'other'; value: string };

/**
 * What is wrong in a server's input schema, as data (`ToolSchemaError.problem`), so that a reader
 * in another language says it in its own words; `path` is the schema's own
 * (`inputSchema.properties["a"].enum`), in any language.
 */
export type SchemaProblem =
  /** `found` where an object (`inputSchema`, `properties`) was expected. */
  | { path: string; is: 'not-an-object'; found: SchemaFound }
  /** `found` where a property's schema was expected. */
  | { path: string; is: 'not-a-schema'; found: SchemaFound }
  | { path: string; is: 'not-a-type'; found: SchemaFound }
  | { path: string; is: 'not-a-list'; found: SchemaFound }
  | { path: string; is: 'not-text'; found: SchemaFound }
  /** An `enum` value other than a string, number, boolean or null. */
  | { path: string; is: 'not-a-scalar'; found: SchemaFound }
  | { path: string; is: 'not-names' }
  /** More `properties` or `enum` values than are read (`count` of at most `max`). */
  | { path: string; is: 'too-many'; count: number; max: number }
  | { path: string; is: 'too-deep'; max: number };

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
  const fail = (problem: SchemaProblem): never => {
    throw new ToolSchemaError(source, schemaProblemText(problem), problem);
  };
  if (raw === undefined || raw === null) return {};
  if (!isRecord(raw)) return fail({ path: 'inputSchema', is: 'not-an-object', found: found(raw) });
  const out: InputSchema = {};
  if (raw.properties !== undefined) {
    if (!isRecord(raw.properties))
      return fail({ path: 'inputSchema.properties', is: 'not-an-object', found: found(raw.properties) });
    const names = Object.keys(raw.properties);
    if (names.length > MAX_PROPERTIES)
      fail({ path: 'inputSchema.properties', is: 'too-many', count: names.length, max: MAX_PROPERTIES });
    // A null prototype keeps a `__proto__` argument an ordinary entry.
    const properties: Record<string, PropertySchema> = Object.create(null);
    for (const name of names) {
      properties[name] = readProperty(raw.properties[name], `inputSchema.properties[${JSON.stringify(name)}]`, fail, 0);
    }
    out.properties = properties;
  }
  if (raw.required !== undefined) {
    if (!Array.isArray(raw.required) || raw.required.some((r) => typeof r !== 'string'))
      fail({ path: 'inputSchema.required', is: 'not-names' });
    out.required = [...(raw.required as string[])];
  }
  if (raw.additionalProperties !== undefined) out.additionalProperties = raw.additionalProperties;
  return out;
}

function readProperty(
  raw: unknown,
  path: string,
  fail: (problem: SchemaProblem) => never,
  depth: number,
): PropertySchema {
  if (depth > MAX_DEPTH) return fail({ path, is: 'too-deep', max: MAX_DEPTH });
  // `true` is a valid JSON Schema ("anything"); read it as an untyped argument.
  if (raw === true) return {};
  if (!isRecord(raw)) return fail({ path, is: 'not-a-schema', found: found(raw) });
  const p: PropertySchema = {};
  if (raw.type !== undefined) {
    const ok =
      typeof raw.type === 'string' || (Array.isArray(raw.type) && raw.type.every((t) => typeof t === 'string'));
    if (!ok) fail({ path: `${path}.type`, is: 'not-a-type', found: found(raw.type) });
    p.type = Array.isArray(raw.type) ? [...(raw.type as string[])] : (raw.type as string);
  }
  if (raw.enum !== undefined) {
    if (!Array.isArray(raw.enum)) return fail({ path: `${path}.enum`, is: 'not-a-list', found: found(raw.enum) });
    if (raw.enum.length > MAX_ENUM)
      fail({ path: `${path}.enum`, is: 'too-many', count: raw.enum.length, max: MAX_ENUM });
    const bad = raw.enum.findIndex((v) => v !== null && !['string', 'number', 'boolean'].includes(typeof v));
    if (bad !== -1) fail({ path: `${path}.enum[${bad}]`, is: 'not-a-scalar', found: found(raw.enum[bad]) });
    p.enum = [...(raw.enum as PropertySchema['enum'] & unknown[])];
  }
  if (raw.items !== undefined) p.items = readProperty(raw.items, `${path}.items`, fail, depth + 1);
  if (raw.description !== undefined) {
    if (typeof raw.description !== 'string')
      fail({ path: `${path}.description`, is: 'not-text', found: found(raw.description) });
    p.description = raw.description as string;
  }
  return p;
}

function found(v: unknown): SchemaFound {
  if (v === null) return { is: 'null' };
  if (Array.isArray(v)) return { is: 'list' };
  if (typeof v === 'object') return { is: 'object' };
  if (typeof v === 'string') return { is: 'text', text: v.length > 40 ? `${v.slice(0, 40)}…` : v };
  if (typeof v === 'number' || typeof v === 'boolean')
    return { is: typeof v as 'number' | 'boolean', value: String(v) };
  return { is: 'other', value: `${typeof v} ${String(v)}` };
}

/** What was found, in English: `null`, `a list`, `the text "prod"`, `number 3`. */
function foundText(f: SchemaFound): string {
  switch (f.is) {
    case 'null':
      return 'null';
    case 'list':
      return 'a list';
    case 'object':
      return 'an object';
    case 'text':
      return `the text ${JSON.stringify(f.text)}`;
    case 'other':
      return f.value;
    default:
      return `${f.is} ${f.value}`;
  }
}

/**
 * A schema problem in English, as `ToolSchemaError`'s message ends:
 * `inputSchema.properties["a"] is null, not a schema object`.
 *
 * @example
 * schemaProblemText({ path: 'inputSchema.required', is: 'not-names' }); // 'inputSchema.required is not a list of names'
 */
export function schemaProblemText(p: SchemaProblem): string {
  const what = ((): string => {
    switch (p.is) {
      case 'not-an-object':
        return `is ${foundText(p.found)}, not an object`;
      case 'not-a-schema':
        return `is ${foundText(p.found)}, not a schema object`;
      case 'not-a-type':
        return `is ${foundText(p.found)}, not a type name or a list of them`;
      case 'not-a-list':
        return `is ${foundText(p.found)}, not a list`;
      case 'not-text':
        return `is ${foundText(p.found)}, not text`;
      case 'not-a-scalar':
        return `is ${foundText(p.found)}; only strings, numbers, booleans and null`;
      case 'not-names':
        return 'is not a list of names';
      case 'too-many':
        return p.path.endsWith('.enum')
          ? `has ${p.count} values; at most ${p.max} are read`
          : `has ${p.count} entries; at most ${p.max} are read`;
      case 'too-deep':
        return `nests deeper than ${p.max} levels`;
    }
  })();
  return `${p.path} ${what}`;
}
