import { schemaEngine } from '@elicitkit/client/schema-validator';
import type { ErrorObject, ValidateFunction } from 'ajv';

/**
 * The tools panel's check of a whole call against the tool's declared input schema, before it is
 * sent: the items of a list, an object's own properties, `required`, enums, bounds, lengths,
 * patterns, formats, `$ref`s — what the server's own validator checks. Ajv, as the MCP SDK's
 * `AjvJsonSchemaValidator` is built (the engine for the schema's declared dialect, `ajv-formats`,
 * not strict; `schemaEngine`, whose patterns run in linear time, so a server's `pattern` cannot
 * freeze the tab), but reading only the call's own properties: the same verdict the server's SDK
 * gives, found here rather than after a round trip, and said where it is, in the page's language
 * (`PageTexts.fieldProblem`), from Ajv's error objects (its keyword and params, its public output).
 * Ajv never reads a `__proto__` property's schema: such an argument is checked for its declared
 * type by the field alone (`readField`).
 */

/** One thing the schema refuses, at `path` inside a field's value (`$`: the value itself). */
export interface SchemaRule {
  path: string;
  /** The schema keyword that refused it (`maximum`, `pattern`, `required`…). */
  keyword: string;
  /** That keyword's params, as Ajv reports them (`{ limit: 8, comparison: '<=' }`). */
  params: Record<string, unknown>;
}

/** What the check found: by field (the argument's name), and for the call as a whole. */
export interface SchemaVerdict {
  /** A field left empty that the schema requires. */
  missing: string[];
  fields: Map<string, SchemaRule[]>;
  /** Rules no single field breaks (`anyOf` over the arguments, `minProperties`…), or a required argument with no field. */
  call: SchemaRule[];
}

const compiled = new WeakMap<object, ValidateFunction | null>();

/**
 * The compiled check of `schema`, once per schema object (an engine of its own each, so two
 * servers' schemas with one `$id` never meet); null when it cannot be compiled here (a dialect
 * the SDK does not read either, a pattern this browser's RegExp refuses, a `$ref` to elsewhere):
 * the call is then sent unchecked beyond each field's type, and the server judges it.
 */
function validatorOf(schema: object): ValidateFunction | null {
  if (compiled.has(schema)) return compiled.get(schema) ?? null;
  let validate: ValidateFunction | null = null;
  try {
    // `ownProperties`: an argument named `toString` or `constructor` is the call's only when given
    // (without it Ajv read `{}.toString`, Object's own, as an argument given, of the wrong type).
    validate = schemaEngine(schema, { ownProperties: true })?.compile(schema) ?? null;
  } catch {
    validate = null;
  }
  compiled.set(schema, validate);
  return validate;
}

/** A JSON Pointer's segments, unescaped. */
function segments(pointer: string): string[] {
  return pointer === ''
    ? []
    : pointer
        .slice(1)
        .split('/')
        .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
}

/** `$`, `$.cpu`, `$[1]`, as the panel's other marks name a place in a value. */
function pathOf(parts: string[]): string {
  return `$${parts.map((p) => (/^(?:0|[1-9]\d*)$/.test(p) ? `[${p}]` : `.${p}`)).join('')}`;
}

/**
 * Checks `args` (the call's arguments, as they would be sent) against `schema`, the tool's whole
 * input schema. `fields` are the argument names the form has; `skip` those already marked (a
 * field that did not read is not also said to be missing). Undefined when nothing is wrong, or
 * the schema cannot be checked here.
 *
 * @example
 * checkCall({ properties: { n: { maximum: 8 } } }, { n: 64 }, ['n'], new Set())?.fields.get('n');
 * // [{ path: '$', keyword: 'maximum', params: { comparison: '<=', limit: 8 } }]
 */
export function checkCall(
  schema: object,
  args: Record<string, unknown>,
  fields: readonly string[],
  skip: ReadonlySet<string>,
): SchemaVerdict | undefined {
  const validate = validatorOf(schema);
  if (!validate || validate(args)) return undefined;
  const errors = validate.errors ?? [];
  // An error inside a combinator that failed as a whole (anyOf, oneOf, not, propertyNames…) is one
  // of its branches': the combinator's own says it. `if` is said by its `then`/`else`.
  const kept = errors.filter(
    (e) =>
      e.keyword !== 'if' &&
      !errors.some((outer) => outer !== e && e.schemaPath.startsWith(`${outer.schemaPath}/`) && outer.keyword !== 'if'),
  );
  const verdict: SchemaVerdict = { missing: [], fields: new Map(), call: [] };
  const named = new Set(fields);
  for (const e of kept) {
    const at = segments(e.instancePath);
    const params = e.params as Record<string, unknown>;
    if (at.length === 0) {
      const missing = e.keyword === 'required' ? String(params.missingProperty) : undefined;
      const dependent = e.keyword === 'dependentRequired' ? String(params.missingProperty) : undefined;
      if (missing !== undefined && named.has(missing)) {
        if (!skip.has(missing) && !verdict.missing.includes(missing)) verdict.missing.push(missing);
        continue;
      }
      if (dependent !== undefined && named.has(dependent)) {
        if (!skip.has(dependent)) add(verdict.fields, dependent, rule('$', e));
        continue;
      }
      verdict.call.push(rule('$', e));
      continue;
    }
    const [name, ...inside] = at as [string, ...string[]];
    if (skip.has(name)) continue;
    if (!named.has(name)) {
      verdict.call.push(rule(pathOf(at), e));
      continue;
    }
    add(verdict.fields, name, rule(pathOf(inside), e));
  }
  return verdict.missing.length + verdict.fields.size + verdict.call.length > 0 ? verdict : undefined;
}

function rule(path: string, e: ErrorObject): SchemaRule {
  return { path, keyword: e.keyword, params: e.params as Record<string, unknown> };
}

function add(map: Map<string, SchemaRule[]>, name: string, r: SchemaRule): void {
  const list = map.get(name);
  if (list) list.push(r);
  else map.set(name, [r]);
}
