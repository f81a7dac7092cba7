import type { StandardSchemaV1 } from '@standard-schema/spec';
import { applyDefaults } from '../defaults.js';
import { FormSchemaError } from '../errors.js';
import { describeFields, type FieldModel } from '../fields.js';
import { frozenCopy, isObject, own, show } from '../json.js';
import { downgrade } from '../normalize.js';
import { needsDowngrade, type Revision } from '../revision.js';
import { defaultProblems } from '../schema/defaults-check.js';
import { parseFormSchema } from '../schema/parse.js';
import { problem, type SchemaProblem } from '../schema/problems.js';
import { type Issue, issue, type Validation } from '../validate/issues.js';
import { labelOf } from '../validate/label.js';
import { type ValidateOptions, type Validator, validator } from '../validate/validate.js';
import type { ContentValue, FieldSchema, FormContent, FormSchema } from '../wire.js';
import { type AnyFieldDef, isFieldDef } from './field.js';
import { isStandardSchema, type StandardFormOptions, standardSource } from './standard.js';

type Simplify<T> = { [K in keyof T]: T[K] } & {};
type ValueOf<F> = F extends { '~value'?: infer T } ? Exclude<T, undefined> : never;
type Present<F> = F extends { isOptional: false } ? true : F extends { '~default'?: true } ? true : false;

/**
 * The answer type of a form built from `S`: required and defaulted fields are always there,
 * optional fields without a default may be missing.
 */
export type AnswerOf<S extends Record<string, AnyFieldDef>> = string extends keyof S
  ? FormContent // fields assembled at run time: no static shape to infer
  : Simplify<
      { [K in keyof S as Present<S[K]> extends true ? K : never]: ValueOf<S[K]> } & {
        [K in keyof S as Present<S[K]> extends true ? never : K]?: ValueOf<S[K]>;
      }
    >;

/** What a Standard Schema form may output: answer values, optional ones possibly `undefined`. */
export type StandardAnswer = { [key: string]: ContentValue | undefined };

/** The answer type of a form built from a Standard Schema: its output, an optional value absent rather than `undefined`. */
export type OutputOf<S extends StandardSchemaV1<unknown, StandardAnswer>> = Simplify<{
  [K in keyof StandardSchemaV1.InferOutput<S>]: Exclude<StandardSchemaV1.InferOutput<S>[K], undefined>;
}>;

/** How `Form.parse` reads an answer: the validator's limits, and the revision the form was asked on. */
export interface ParseOptions extends ValidateOptions {
  /**
   * The protocol revision the question was asked on (a negotiated version reads as `revisionOf`
   * reads it). On 2025-06-18 the client was sent the form without its non-boolean defaults
   * (`downgrade`), so a field the person left empty there stays empty: it is not filled with a
   * default they were never shown. Without it every default is filled.
   */
  revision?: Revision | string;
}

/** A built form: its wire JSON and a typed way to read answers. Also a Standard Schema (v1). */
export interface Form<T extends FormContent = FormContent> {
  /** Exactly what travels as `requestedSchema`. Deeply frozen: changing it throws (build another form). */
  readonly schema: FormSchema;
  /** The field model renderers draw (`describeFields(schema)`, computed once). */
  readonly fields: readonly FieldModel[];
  /**
   * Fills defaults for fields the person left out, then validates. The handler-facing read of an
   * accepted answer: on success `value` is typed and complete. Give the `revision` the question
   * was asked on: only the defaults that revision showed the person are filled.
   *
   * @example
   * const read = deploy.parse(content, { revision: negotiatedVersion });
   */
  parse(content: unknown, options?: ParseOptions): Validation<T>;
  readonly '~standard': {
    readonly version: 1;
    readonly vendor: 'elicitkit';
    validate(value: unknown): { value: T } | { issues: { message: string; path: (string | number)[] }[] };
    readonly types?: { readonly input: unknown; readonly output: T };
  };
}

/** Any form, whatever its answer type. */
export type AnyForm = Form<FormContent>;

/** The answer type of a built form. */
export type Infer<F> = F extends Form<infer T> ? T : never;

/**
 * Builds a form from field builders, or from a schema of any Standard Schema library that can give
 * JSON Schema (zod 4, arktype, valibot through `toStandardJsonSchema`…). Fields are required
 * unless marked `.optional()` (or optional in the library's schema). Anything outside the
 * restricted schema, and any default that breaks its own field, throws a `FormSchemaError` naming
 * the field and saying what to do instead.
 *
 * A library's schema also reads every accepted answer after the subset's own check: its
 * refinements run, and the answer has its output type. It must validate synchronously (put async
 * checks in the ask's `check`).
 *
 * @example
 * const report = form({
 *   project: field.select(['order-service', 'search-service'], { title: 'Project' }),
 *   from: field.string({ title: 'From', format: 'date' }),
 *   to: field.string({ title: 'To', format: 'date' }),
 * });
 * type Report = Infer<typeof report>; // { project: 'order-service' | 'search-service'; from: string; to: string }
 *
 * @example
 * const deploy = form(z.object({
 *   env: z.enum(['staging', 'prod']).meta({ title: 'Environment' }),
 *   ticket: z.string().min(4).startsWith('REL-').meta({ title: 'Release ticket' }),
 * }));
 */
export function form<S extends StandardSchemaV1<unknown, StandardAnswer>>(
  schema: S,
  options?: StandardFormOptions,
): Form<OutputOf<S>>;
export function form<S extends Record<string, AnyFieldDef>>(fields: S): Form<AnswerOf<S>>;
export function form(fields: object, options?: StandardFormOptions): AnyForm {
  if (isStandardSchema(fields)) {
    if (isBuiltForm(fields)) return fields;
    const source = standardSource(fields, options);
    return fromJsonSchemaInternal(source.raw, source.early, source.refine);
  }
  const properties: Record<string, FieldSchema> = {};
  const required: string[] = [];
  const early: SchemaProblem[] = [];
  for (const [name, def] of Object.entries(fields as Record<string, unknown>)) {
    if (!isFieldDef(def)) {
      early.push(
        problem(
          name,
          'nested_object',
          `field "${name}" is ${show(def)}, not a field builder`,
          'Build each field with field.string(), field.select() and the like; nested objects are not allowed.',
        ),
      );
      continue;
    }
    properties[name] = def.schema;
    if (!def.isOptional) required.push(name);
  }
  const wire: FormSchema = { type: 'object', properties, ...(required.length > 0 ? { required } : {}) };
  return fromJsonSchemaInternal(wire, early);
}

/** A form this package built (it is a Standard Schema too): given to `form()` again, it is kept. */
function isBuiltForm(value: StandardSchemaV1): value is AnyForm {
  return value['~standard'].vendor === 'elicitkit' && MADE.has(value as object);
}

const MADE = new WeakSet<object>();

/**
 * Wraps a raw `requestedSchema` (from JSON, another library, or the wire) as a `Form`, or throws a
 * `FormSchemaError` listing what is outside the subset. Use `parseFormSchema` for a non-throwing read.
 *
 * @example
 * const f = fromJsonSchema({ type: 'object', properties: { name: { type: 'string', title: 'Name' } } });
 */
export function fromJsonSchema(raw: unknown): AnyForm {
  return fromJsonSchemaInternal(raw, []);
}

type Refine = (value: FormContent, schema: FormSchema) => Validation<FormContent>;

function fromJsonSchemaInternal(raw: unknown, early: SchemaProblem[], refine?: Refine): AnyForm {
  const { schema, problems } = parseFormSchema(raw);
  const all = [...early, ...problems];
  if (all.length === 0 && Object.keys(schema.properties).length === 0) {
    all.push(
      problem(
        undefined,
        'no_properties',
        'the form has no fields',
        'Ask for at least one value, or do not elicit at all.',
      ),
    );
  }
  if (all.length === 0) all.push(...defaultProblems(schema));
  if (all.length > 0) throw new FormSchemaError(all);
  return makeForm(schema, refine);
}

function makeForm(parsed: FormSchema, refine?: Refine): AnyForm {
  // Immutable: the validator below, the field model and the server's per-form caches are built
  // from it once; a schema changed afterwards would be sent one way and checked another.
  const schema = frozenCopy(parsed);
  // Both made on first use: a server builds its forms at start, and reads an answer or draws a
  // form only later (or never, for a form its calls never reach).
  let check: Validator | undefined;
  let fields: readonly FieldModel[] | undefined;
  const parse = (content: unknown, options?: ParseOptions): Validation<FormContent> => {
    check ??= validator(schema);
    // The form as it was sent: a 2025-06-18 client showed boolean defaults only, and asked the
    // fields whose default it lost as required.
    const sent =
      options?.revision !== undefined && needsDowngrade(options.revision)
        ? downgrade(schema, '2025-06-18').schema
        : schema;
    const filled = applyDefaults(sent, content);
    const checked = check(filled, options);
    const unseen = sent === schema ? [] : missingDefaults(schema, sent, filled);
    if (unseen.length > 0) return { ok: false, issues: [...unseen, ...(checked.ok ? [] : checked.issues)] };
    return refine && checked.ok ? refine(checked.value, schema) : checked;
  };
  const built: AnyForm = {
    schema,
    get fields() {
      fields ??= Object.freeze(describeFields(schema));
      return fields;
    },
    parse,
    '~standard': {
      version: 1,
      vendor: 'elicitkit',
      validate(value: unknown) {
        const result = parse(value);
        return result.ok ? { value: result.value } : { issues: result.issues.map(toStandard) };
      },
    },
  };
  MADE.add(built);
  return built;
}

/**
 * A field the form leaves optional with a default that `sent` (its 2025-06-18 shape) asked as
 * required, left out of the answer: the default was never shown, so it cannot stand in.
 */
function missingDefaults(schema: FormSchema, sent: FormSchema, filled: unknown): Issue[] {
  if (!isObject(filled)) return [];
  return (sent.required ?? [])
    .filter((name) => !schema.required?.includes(name) && own(filled, name) === undefined)
    .map((name) => issue([name], 'required', `${labelOf(name, schema.properties[name])} is required.`));
}

function toStandard(issue: Issue): { message: string; path: (string | number)[] } {
  return { message: issue.message, path: issue.path };
}
