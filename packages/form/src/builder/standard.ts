/**
 * Forms from any Standard Schema library (zod 4, valibot, arktype…): the library gives the JSON
 * Schema of what the person types (the Standard JSON Schema interface, or a converter the caller
 * passes), that JSON Schema must fit the restricted elicitation subset like any other, and every
 * accepted answer is then read by the library's own schema, so its refinements and transforms run
 * and the handler gets the library's output type.
 */
import type { StandardJSONSchemaV1, StandardSchemaV1 } from '@standard-schema/spec';
import { ElicitkitError } from '../errors.js';
import { isObject, type JsonObject, own, ownKeys, show } from '../json.js';
import { problem, type SchemaProblem } from '../schema/problems.js';
import type { Issue, Validation } from '../validate/issues.js';
import type { FormContent, FormSchema } from '../wire.js';

/** How to get JSON Schema from a Standard Schema whose library does not give it itself. */
export interface StandardFormOptions {
  /**
   * The schema's JSON Schema, or a function that makes it (valibot's `toJsonSchema`, effect's
   * `JSONSchema.make`…). Needed only when the library does not implement Standard JSON Schema
   * (`~standard.jsonSchema`); when given, it wins.
   */
  jsonSchema?: object | ((schema: StandardSchemaV1) => object);
}

/** A Standard Schema (v1): the `~standard` property with a version and a `validate` function. */
export function isStandardSchema(value: unknown): value is StandardSchemaV1 {
  if ((typeof value !== 'object' && typeof value !== 'function') || value === null) return false;
  const props = (value as { '~standard'?: unknown })['~standard'];
  return (
    typeof props === 'object' &&
    props !== null &&
    (props as { version?: unknown }).version === 1 &&
    typeof (props as { validate?: unknown }).validate === 'function'
  );
}

export interface StandardSource {
  /** The JSON Schema to check against the subset, adapted to its spelling. */
  raw: unknown;
  /** Problems found before the subset check (no JSON Schema at all, a field with none). */
  early: SchemaProblem[];
  /** Reads an answer the subset has already accepted with the library's own schema. */
  refine: (value: FormContent, schema: FormSchema) => Validation<FormContent>;
}

/** Reads a Standard Schema as a form source: its JSON Schema, and its validation for answers. */
export function standardSource(schema: StandardSchemaV1, options: StandardFormOptions = {}): StandardSource {
  const props = schema['~standard'];
  const vendor = typeof props.vendor === 'string' && props.vendor !== '' ? props.vendor : 'Standard Schema';
  const early: SchemaProblem[] = [];
  let raw: unknown;
  try {
    raw = jsonSchemaOf(schema, vendor, options);
  } catch (error) {
    early.push(
      problem(
        undefined,
        'no_json_schema',
        `the ${vendor} schema cannot be given as JSON Schema (${error instanceof Error ? error.message : show(error)})`,
        'Keep to what a form carries: strings (with email, uri, date or date-time formats), numbers, booleans, enums and arrays of enums.',
      ),
    );
    raw = { type: 'object', properties: {} };
  }
  if (raw === undefined) {
    early.push(
      problem(
        undefined,
        'no_json_schema',
        `the ${vendor} schema gives no JSON Schema (it does not implement ~standard.jsonSchema)`,
        'Pass one: form(schema, { jsonSchema: toJsonSchema }) with your library’s converter.',
      ),
    );
    raw = { type: 'object', properties: {} };
  }
  const adapted = adapt(raw, early, vendor);
  return { raw: adapted, early, refine: (value, wire) => validateWith(props, vendor, value, wire) };
}

function jsonSchemaOf(schema: StandardSchemaV1, vendor: string, options: StandardFormOptions): unknown {
  const given = options.jsonSchema;
  if (typeof given === 'function') return given(schema);
  if (given !== undefined) return given;
  const converter = (schema['~standard'] as Partial<StandardJSONSchemaV1.Props>).jsonSchema;
  if (typeof converter?.input !== 'function') return undefined;
  // What the person types is the schema's input. zod is asked to mark what it cannot express
  // (a Date, a bigint) as an empty schema instead of throwing, so the problem names the field.
  const libraryOptions = vendor === 'zod' ? { unrepresentable: 'any' } : undefined;
  return converter.input({ target: 'draft-2020-12', ...(libraryOptions ? { libraryOptions } : {}) });
}

/**
 * Rewrites the ways libraries spell what the subset has, without changing what is allowed:
 * an `enum` with no `type`, options as `anyOf` of `const`s, the `pattern` a library adds beside a
 * format the subset carries, and zod's safe-integer bounds. Everything else is left for the
 * subset check to accept or refuse.
 */
function adapt(raw: unknown, early: SchemaProblem[], vendor: string): unknown {
  if (!isObject(raw)) return raw;
  const properties = own(raw, 'properties');
  if (!isObject(properties)) return raw;
  const out: JsonObject = {};
  const dropped = new Set<string>();
  for (const name of ownKeys(properties)) {
    const field = own(properties, name);
    const refusal = isObject(field) ? refusalOf(name, field, vendor) : undefined;
    if (refusal) {
      // Said here, in the library's terms; the field is left out so nothing else repeats it.
      early.push(refusal);
      dropped.add(name);
      continue;
    }
    out[name] = isObject(field) ? adaptField(field) : field;
  }
  const required = own(raw, 'required');
  const kept = Array.isArray(required) ? required.filter((r) => !dropped.has(r as string)) : required;
  return { ...raw, properties: out, ...(required === undefined ? {} : { required: kept }) };
}

/** What a library writes for a field that no form can hold, said in its own terms. */
function refusalOf(name: string, field: JsonObject, vendor: string): SchemaProblem | undefined {
  if (ownKeys(field).length === 0)
    return problem(
      name,
      'no_json_schema',
      `field "${name}" has no JSON Schema: ${vendor} cannot express its type (a Date, a bigint, a transform's input?)`,
      'Ask for it as a string (a date field for dates) or a number, and convert it after the answer.',
    );
  const fixed = own(field, 'const');
  if (fixed !== undefined && own(field, 'enum') === undefined)
    return problem(
      name,
      'bad_options',
      `field "${name}" is one fixed value (${show(fixed)}): there is nothing for the person to choose`,
      'Leave it out of the form, or offer choices (an enum of two or more options).',
    );
  return undefined;
}

const CARRIED_FORMATS = new Set(['email', 'uri', 'date', 'date-time']);

function adaptField(field: JsonObject): JsonObject {
  let out: JsonObject = { ...field };
  const options = constOptions(own(out, 'anyOf')) ?? constOptions(own(out, 'oneOf'));
  if (options && (own(out, 'type') === undefined || own(out, 'type') === 'string')) {
    const { anyOf: _a, oneOf: _o, ...rest } = out;
    out = { ...rest, type: 'string', ...options.asSelect };
  }
  if (own(out, 'type') === undefined && isEnumOfStrings(own(out, 'enum'))) out = { type: 'string', ...out };
  const items = own(out, 'items');
  if (own(out, 'type') === 'array' && isObject(items)) {
    const choices = constOptions(own(items, 'anyOf')) ?? constOptions(own(items, 'oneOf'));
    if (choices) out = { ...out, items: choices.asItems };
    else if (own(items, 'type') === undefined && isEnumOfStrings(own(items, 'enum')))
      out = { ...out, items: { type: 'string', ...items } };
  }
  const format = own(out, 'format');
  if (typeof format === 'string' && CARRIED_FORMATS.has(format) && own(out, 'pattern') !== undefined) {
    // The library's own regex for the format: the format says it to the client, and the
    // library checks the value again on the server.
    const { pattern: _p, ...rest } = out;
    out = rest;
  }
  if (own(out, 'type') === 'integer') {
    if (own(out, 'minimum') === Number.MIN_SAFE_INTEGER) delete out.minimum;
    if (own(out, 'maximum') === Number.MAX_SAFE_INTEGER) delete out.maximum;
  }
  return out;
}

function isEnumOfStrings(value: unknown): boolean {
  return Array.isArray(value) && value.length > 0 && value.every((v) => typeof v === 'string');
}

/** `[{const: 'a', title: 'A'}, …]` (with or without `type: "string"`) as a titled or plain option list. */
function constOptions(value: unknown): { asSelect: JsonObject; asItems: JsonObject } | undefined {
  if (!Array.isArray(value) || value.length === 0) return undefined;
  const options: { const: string; title?: string }[] = [];
  for (const member of value) {
    if (!isObject(member) || typeof own(member, 'const') !== 'string') return undefined;
    const extra = ownKeys(member).filter((k) => k !== 'const' && k !== 'title' && k !== 'type');
    if (extra.length > 0 || (own(member, 'type') !== undefined && own(member, 'type') !== 'string')) return undefined;
    const title = own(member, 'title');
    if (title !== undefined && typeof title !== 'string') return undefined;
    options.push(
      title === undefined
        ? { const: own(member, 'const') as string }
        : { const: own(member, 'const') as string, title },
    );
  }
  if (options.every((o) => o.title === undefined)) {
    const values = options.map((o) => o.const);
    return { asSelect: { enum: values }, asItems: { type: 'string', enum: values } };
  }
  const titled = options.map((o) => ({ const: o.const, title: o.title ?? o.const }));
  return { asSelect: { oneOf: titled }, asItems: { anyOf: titled } };
}

function validateWith(
  props: StandardSchemaV1.Props,
  vendor: string,
  value: FormContent,
  schema: FormSchema,
): Validation<FormContent> {
  const result = props.validate(value);
  if (isThenable(result)) {
    result.then(undefined, () => {}); // settled by nobody: keep it from becoming an unhandled rejection
    throw new ElicitkitError(
      'ASYNC_SCHEMA',
      `The ${vendor} schema of this form validates asynchronously; a form's schema must answer at once. Move the async check into the ask's check option.`,
    );
  }
  if (!result.issues) return { ok: true, value: result.value as FormContent };
  return { ok: false, issues: result.issues.map((i) => toIssue(i, schema)) };
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return typeof (value as { then?: unknown } | null)?.then === 'function';
}

function toIssue(found: StandardSchemaV1.Issue, schema: FormSchema): Issue {
  const path = (found.path ?? []).map((segment) => {
    const key = typeof segment === 'object' && segment !== null ? segment.key : segment;
    return typeof key === 'number' ? key : String(key);
  });
  const name = typeof path[0] === 'string' ? path[0] : undefined;
  const field = name !== undefined && Object.hasOwn(schema.properties, name) ? schema.properties[name] : undefined;
  const label = field?.title ?? name;
  return { path, code: 'custom', message: label === undefined ? found.message : `"${label}": ${found.message}` };
}
