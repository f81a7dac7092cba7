import { isObject, own, ownKeys, RESERVED_NAMES, show } from '../json.js';
import { MAX_OPTIONS } from '../kinds/options.js';
import type { FieldSchema, FormSchema } from '../wire.js';
import { fieldLookAlikes } from './labels.js';
import { formSize, MAX_DESCRIPTION_LENGTH, MAX_FORM_OPTIONS, MAX_FORM_TEXT, MAX_TITLE_LENGTH } from './limits.js';
import { parseField } from './parse-field.js';
import { FIX, problem, type SchemaProblem } from './problems.js';

/** How many names `required` lists that are no field are named one by one; the rest are counted. */
const MAX_NAMED_UNKNOWN = 5;
const NOT_A_FIELD = 'Only list fields that are in properties.';

/** A form has a person at the other end: past this many fields it is a different tool. */
export const MAX_FIELDS = 100;

/**
 * The caps a form is held to (past one, `parseFormSchema` refuses it with a problem naming the
 * field): fields, options per field and in all, a title's (or name's, or option's) length, a
 * description's, and the text of the whole form; lengths in UTF-16 units, as `String.length`.
 */
export const FORM_LIMITS = Object.freeze({
  fields: MAX_FIELDS,
  optionsPerField: MAX_OPTIONS,
  options: MAX_FORM_OPTIONS,
  titleLength: MAX_TITLE_LENGTH,
  descriptionLength: MAX_DESCRIPTION_LENGTH,
  text: MAX_FORM_TEXT,
});

/** Root keywords that may appear (zod's `toJSONSchema` emits them) and are dropped harmlessly. */
const IGNORED_ROOT = new Set(['$schema', 'additionalProperties', 'title', 'description']);

export interface ParsedForm {
  /** The fields that passed, cleaned of everything outside the subset. */
  schema: FormSchema;
  /** Empty when the whole input is a valid restricted schema. */
  problems: SchemaProblem[];
}

/**
 * Reads any JSON value as a restricted form schema. Never throws: problems are data, each with
 * the fix. The returned schema keeps the fields that are valid, so callers can still lint them.
 *
 * @example
 * const { schema, problems } = parseFormSchema(JSON.parse(text));
 * if (problems.length) console.error(problems.map((p) => `${p.message}. ${p.fix}`).join('\n'));
 */
export function parseFormSchema(raw: unknown): ParsedForm {
  const empty: FormSchema = { type: 'object', properties: {} };
  if (!isObject(raw)) {
    return {
      schema: empty,
      problems: [
        problem(
          undefined,
          'not_object',
          `the form schema is ${show(raw)}, not an object`,
          'Send {type: "object", properties: {...}}.',
        ),
      ],
    };
  }
  const problems: SchemaProblem[] = [];
  if (own(raw, 'type') !== 'object') {
    problems.push(
      problem(
        undefined,
        'not_object',
        `the form schema has type ${show(own(raw, 'type'))}`,
        'The root must be {type: "object", properties: {...}}.',
      ),
    );
  }
  if (own(raw, 'additionalProperties') !== undefined && own(raw, 'additionalProperties') !== false) {
    problems.push(
      problem(
        undefined,
        'nested_object',
        'the form schema allows additionalProperties',
        'Declare every field in properties; forms are closed.',
      ),
    );
  }
  for (const key of ownKeys(raw)) {
    if (key === 'type' || key === 'properties' || key === 'required' || IGNORED_ROOT.has(key)) continue;
    if (key === '$ref' || key === '$defs' || key === 'definitions')
      problems.push(problem(undefined, 'ref', `the form schema uses ${key}`, FIX.ref));
    else if (['allOf', 'anyOf', 'oneOf', 'not', 'if', 'then', 'else'].includes(key))
      problems.push(
        problem(
          undefined,
          'composition',
          `the form schema uses ${key}`,
          'A form is one flat object: split alternatives into separate elicitations or separate fields.',
        ),
      );
    else
      problems.push(
        problem(
          undefined,
          'unknown_keyword',
          `the form schema uses ${key}`,
          `Remove ${key}: the root holds only type, properties and required.`,
        ),
      );
  }
  const rawProps = own(raw, 'properties');
  const properties: Record<string, FieldSchema> = {};
  if (!isObject(rawProps)) {
    problems.push(
      problem(
        undefined,
        'no_properties',
        `the form schema has properties ${show(rawProps)}`,
        'Give properties as an object of fields.',
      ),
    );
  } else {
    const names = ownKeys(rawProps);
    if (names.length > MAX_FIELDS) {
      problems.push(
        problem(
          undefined,
          'too_many_fields',
          `the form has ${names.length} fields`,
          `Keep a form to at most ${MAX_FIELDS} fields; take bulk data as tool arguments.`,
        ),
      );
    } else {
      // The cheap bounds first: lengths only, so a hostile form costs one pass before it is refused.
      const size = formSize(rawProps, names);
      problems.push(...size.problems);
      for (const name of size.whole ? [] : names) {
        if (size.refused.has(name)) continue;
        if (name.length === 0 || RESERVED_NAMES.has(name)) {
          problems.push(
            problem(
              name,
              'reserved_name',
              `field name ${show(name)} cannot be used`,
              'Rename the field: empty names and __proto__/constructor/prototype are refused.',
            ),
          );
          continue;
        }
        const parsed = parseField(name, own(rawProps, name));
        problems.push(...parsed.problems);
        if (parsed.field) properties[name] = parsed.field;
      }
      // Two boxes drawn alike, or one with no label: the person cannot tell what each sends.
      for (const alike of fieldLookAlikes(properties)) {
        problems.push(alike);
        if (alike.field !== undefined) delete properties[alike.field];
      }
    }
  }
  const schema: FormSchema = { type: 'object', properties };
  const required = own(raw, 'required');
  if (required !== undefined) {
    if (!Array.isArray(required) || !required.every((r) => typeof r === 'string')) {
      problems.push(
        problem(undefined, 'bad_required', `required is ${show(required)}`, 'List required field names as strings.'),
      );
    } else {
      const known = isObject(rawProps) ? rawProps : {};
      const unique = [...new Set(required)];
      // Each quoted short, the first few named: a list of 100,000 made-up names is one problem.
      const unknown = unique.filter((name) => !Object.hasOwn(known, name));
      for (const name of unknown.slice(0, MAX_NAMED_UNKNOWN))
        problems.push(problem(name, 'bad_required', `required names ${show(name)}, which is not a field`, NOT_A_FIELD));
      if (unknown.length > MAX_NAMED_UNKNOWN)
        problems.push(
          problem(
            undefined,
            'bad_required',
            `required names ${unknown.length - MAX_NAMED_UNKNOWN} more that are not fields`,
            NOT_A_FIELD,
          ),
        );
      if (unique.length !== required.length)
        problems.push(
          problem(undefined, 'bad_required', 'required lists a field twice', 'List each required field once.'),
        );
      const kept = unique.filter((name) => Object.hasOwn(properties, name));
      if (kept.length > 0) schema.required = kept;
    }
  }
  return { schema, problems };
}
