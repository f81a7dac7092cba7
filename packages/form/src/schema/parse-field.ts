import {
  isFiniteNumber,
  isNonNegativeInteger,
  isObject,
  isStringArray,
  type JsonObject,
  own,
  ownKeys,
  show,
} from '../json.js';
import type { EnumOption, FieldSchema, StringFormat } from '../wire.js';
import { FIX, problem, type SchemaProblem } from './problems.js';

export const STRING_FORMATS: readonly StringFormat[] = ['email', 'uri', 'date', 'date-time'];

/** Caps that keep a hostile schema from becoming a denial of service. */
export const MAX_OPTIONS = 1000;

const COMMON = ['type', 'title', 'description', 'default'];
const ALLOWED: Record<string, readonly string[]> = {
  string: [...COMMON, 'minLength', 'maxLength', 'format'],
  number: [...COMMON, 'minimum', 'maximum'],
  boolean: COMMON,
  select: [...COMMON, 'enum'],
  legacy: [...COMMON, 'enum', 'enumNames'],
  titled: [...COMMON, 'oneOf'],
  multi: [...COMMON, 'items', 'minItems', 'maxItems'],
};
const COMPOSITION = new Set(['allOf', 'anyOf', 'oneOf', 'not', 'if', 'then', 'else']);
const NESTING = new Set(['properties', 'additionalProperties', 'patternProperties', 'prefixItems']);

interface Parsed {
  field?: FieldSchema;
  problems: SchemaProblem[];
}

/**
 * Checks one property against the restricted subset and returns a clean copy holding only the
 * keywords the protocol defines, or the problems that keep it out.
 */
export function parseField(name: string, raw: unknown): Parsed {
  if (!isObject(raw)) {
    return fail(
      name,
      'not_object',
      `field "${name}" is ${show(raw)}, not a schema object`,
      'Describe it as {type, title, ...}.',
    );
  }
  const type = own(raw, 'type');
  if (Array.isArray(type)) {
    return fail(
      name,
      'bad_type',
      `field "${name}" has several types ${show(type)}`,
      'Give each field exactly one type; leave it out of `required` to make it optional.',
    );
  }
  if (type === 'object' || own(raw, 'properties') !== undefined) {
    return fail(name, 'nested_object', `field "${name}" is a nested object`, FIX.nested);
  }
  if (own(raw, '$ref') !== undefined) {
    return fail(name, 'ref', `field "${name}" uses $ref`, FIX.ref);
  }
  switch (type) {
    case 'string':
      return parseStringLike(name, raw);
    case 'number':
    case 'integer':
      return parseNumber(name, raw, type);
    case 'boolean':
      return finish(name, raw, 'boolean', { type: 'boolean', ...common(raw) }, defaultOf(name, raw, 'boolean'));
    case 'array':
      return parseMulti(name, raw);
    default:
      return fail(
        name,
        'bad_type',
        `field "${name}" has type ${show(type)}`,
        'Use string, number, integer, boolean, or array (multi-select only).',
      );
  }
}

function parseStringLike(name: string, raw: JsonObject): Parsed {
  if (own(raw, 'oneOf') !== undefined) {
    const options = parseOptions(name, own(raw, 'oneOf'), 'oneOf');
    if (Array.isArray(own(raw, 'enum'))) {
      return fail(
        name,
        'bad_options',
        `field "${name}" has both enum and oneOf`,
        'Keep one: `oneOf: [{const, title}]` for titled options.',
      );
    }
    return finish(
      name,
      raw,
      'titled',
      options.ok ? { type: 'string', ...common(raw), oneOf: options.value } : undefined,
      defaultOf(name, raw, 'string'),
      options.problems,
    );
  }
  if (own(raw, 'enum') !== undefined) {
    const values = parseEnum(name, own(raw, 'enum'), 'enum');
    const namesRaw = own(raw, 'enumNames');
    if (namesRaw === undefined) {
      return finish(
        name,
        raw,
        'select',
        values.ok ? { type: 'string', ...common(raw), enum: values.value } : undefined,
        defaultOf(name, raw, 'string'),
        values.problems,
      );
    }
    const problems = [...values.problems];
    if (!isStringArray(namesRaw) || (values.ok && namesRaw.length !== values.value.length)) {
      problems.push(
        problem(
          name,
          'bad_options',
          `field "${name}" has enumNames that do not pair with enum`,
          'Give one display name per enum value, in the same order, or use `oneOf: [{const, title}]`.',
        ),
      );
    }
    const field =
      values.ok && problems.length === 0
        ? { type: 'string' as const, ...common(raw), enum: values.value, enumNames: namesRaw as string[] }
        : undefined;
    return finish(name, raw, 'legacy', field, defaultOf(name, raw, 'string'), problems);
  }
  const problems: SchemaProblem[] = [];
  const out: FieldSchema = { type: 'string', ...common(raw) };
  const minLength = own(raw, 'minLength');
  const maxLength = own(raw, 'maxLength');
  const format = own(raw, 'format');
  if (minLength !== undefined) {
    if (isNonNegativeInteger(minLength)) out.minLength = minLength;
    else problems.push(badConstraint(name, 'minLength', minLength, 'a non-negative integer'));
  }
  if (maxLength !== undefined) {
    if (isNonNegativeInteger(maxLength)) out.maxLength = maxLength;
    else problems.push(badConstraint(name, 'maxLength', maxLength, 'a non-negative integer'));
  }
  if (out.minLength !== undefined && out.maxLength !== undefined && out.minLength > out.maxLength) {
    problems.push(
      problem(
        name,
        'bad_constraint',
        `field "${name}" has minLength ${out.minLength} above maxLength ${out.maxLength}`,
        'Make minLength less than or equal to maxLength.',
      ),
    );
  }
  if (format !== undefined) {
    if (STRING_FORMATS.includes(format as StringFormat)) out.format = format as StringFormat;
    else
      problems.push(
        problem(
          name,
          'bad_format',
          `field "${name}" has format ${show(format)}`,
          `Use one of ${STRING_FORMATS.join(', ')}, or drop format and validate on the server after accept.`,
        ),
      );
  }
  return finish(name, raw, 'string', out, defaultOf(name, raw, 'string'), problems);
}

function parseNumber(name: string, raw: JsonObject, type: 'number' | 'integer'): Parsed {
  const problems: SchemaProblem[] = [];
  const out: FieldSchema = { type, ...common(raw) };
  for (const key of ['minimum', 'maximum'] as const) {
    const value = own(raw, key);
    if (value === undefined) continue;
    if (isFiniteNumber(value)) out[key] = value;
    else problems.push(badConstraint(name, key, value, 'a finite number'));
  }
  if (out.minimum !== undefined && out.maximum !== undefined && out.minimum > out.maximum) {
    problems.push(
      problem(
        name,
        'bad_constraint',
        `field "${name}" has minimum ${out.minimum} above maximum ${out.maximum}`,
        'Make minimum less than or equal to maximum.',
      ),
    );
  }
  return finish(name, raw, 'number', out, defaultOf(name, raw, 'number'), problems);
}

function parseMulti(name: string, raw: JsonObject): Parsed {
  const items = own(raw, 'items');
  if (!isObject(items)) {
    return fail(name, 'array_of_non_enum', `field "${name}" is an array without enum items`, FIX.arrayOfNonEnum);
  }
  const problems: SchemaProblem[] = [];
  let field: FieldSchema | undefined;
  const anyOf = own(items, 'anyOf');
  if (anyOf !== undefined) {
    const options = parseOptions(name, anyOf, 'items.anyOf');
    problems.push(...options.problems, ...extraKeys(name, items, ['anyOf', 'type'], 'items'));
    if (own(items, 'type') !== undefined && own(items, 'type') !== 'string') {
      problems.push(
        problem(
          name,
          'array_of_non_enum',
          `field "${name}" has items of type ${show(own(items, 'type'))}`,
          FIX.arrayOfNonEnum,
        ),
      );
    }
    if (options.ok) field = { type: 'array', ...common(raw), items: { anyOf: options.value } };
  } else {
    if (own(items, 'type') !== 'string' || own(items, 'enum') === undefined) {
      return fail(
        name,
        'array_of_non_enum',
        `field "${name}" is an array of ${show(own(items, 'type') ?? 'anything')}, not of enum strings`,
        FIX.arrayOfNonEnum,
      );
    }
    const values = parseEnum(name, own(items, 'enum'), 'items.enum');
    problems.push(...values.problems, ...extraKeys(name, items, ['type', 'enum'], 'items'));
    if (values.ok) field = { type: 'array', ...common(raw), items: { type: 'string', enum: values.value } };
  }
  const count = field === undefined ? 0 : optionValues(field).length;
  for (const key of ['minItems', 'maxItems'] as const) {
    const value = own(raw, key);
    if (value === undefined) continue;
    if (!isNonNegativeInteger(value)) problems.push(badConstraint(name, key, value, 'a non-negative integer'));
    else if (field?.type === 'array') field[key] = value;
  }
  const min = own(raw, 'minItems');
  const max = own(raw, 'maxItems');
  if (isNonNegativeInteger(min) && isNonNegativeInteger(max) && min > max) {
    problems.push(
      problem(
        name,
        'bad_constraint',
        `field "${name}" has minItems ${min} above maxItems ${max}`,
        'Make minItems less than or equal to maxItems.',
      ),
    );
  }
  if (field !== undefined && isNonNegativeInteger(min) && min > count) {
    problems.push(
      problem(
        name,
        'bad_constraint',
        `field "${name}" needs ${min} selections but offers ${count} options`,
        'Lower minItems or offer more options.',
      ),
    );
  }
  return finish(name, raw, 'multi', problems.length === 0 ? field : undefined, defaultOf(name, raw, 'array'), problems);
}

type Result<T> = { ok: true; value: T; problems: SchemaProblem[] } | { ok: false; problems: SchemaProblem[] };

function parseEnum(name: string, raw: unknown, where: string): Result<string[]> {
  if (!isStringArray(raw) || raw.length === 0) {
    return {
      ok: false,
      problems: [
        problem(
          name,
          'bad_options',
          `field "${name}" has ${where} ${show(raw)}, not a non-empty list of strings`,
          'List the allowed values as strings.',
        ),
      ],
    };
  }
  return checkOptions(name, raw, where, raw);
}

function parseOptions(name: string, raw: unknown, where: string): Result<EnumOption[]> {
  if (!Array.isArray(raw) || raw.length === 0) {
    return {
      ok: false,
      problems: [
        problem(
          name,
          'bad_options',
          `field "${name}" has ${where} ${show(raw)}, not a non-empty list`,
          'List the options as [{const, title}].',
        ),
      ],
    };
  }
  const options: EnumOption[] = [];
  for (const item of raw) {
    const value = isObject(item) ? own(item, 'const') : undefined;
    const title = isObject(item) ? own(item, 'title') : undefined;
    if (
      typeof value !== 'string' ||
      typeof title !== 'string' ||
      !isObject(item) ||
      ownKeys(item).some((k) => k !== 'const' && k !== 'title')
    ) {
      return {
        ok: false,
        problems: [
          problem(
            name,
            'bad_options',
            `field "${name}" has an option ${show(item)} in ${where}`,
            'Each option is exactly {const: string, title: string}.',
          ),
        ],
      };
    }
    options.push({ const: value, title });
  }
  return checkOptions(
    name,
    options.map((o) => o.const),
    where,
    options,
  );
}

function checkOptions<T>(name: string, values: string[], where: string, value: T): Result<T> {
  if (values.length > MAX_OPTIONS) {
    return {
      ok: false,
      problems: [
        problem(
          name,
          'bad_options',
          `field "${name}" offers ${values.length} options in ${where}`,
          `Offer at most ${MAX_OPTIONS}; for open-ended input use a string field.`,
        ),
      ],
    };
  }
  const seen = new Set<string>();
  for (const v of values) {
    if (seen.has(v)) {
      return {
        ok: false,
        problems: [
          problem(
            name,
            'bad_options',
            `field "${name}" lists ${show(v)} twice in ${where}`,
            'Make every option value unique.',
          ),
        ],
      };
    }
    seen.add(v);
  }
  return { ok: true, value, problems: [] };
}

/** The option values of a select or multi-select field, in order. */
export function optionValues(field: FieldSchema): string[] {
  if ('enum' in field) return field.enum;
  if ('oneOf' in field) return field.oneOf.map((o) => o.const);
  if (field.type === 'array') return 'enum' in field.items ? field.items.enum : field.items.anyOf.map((o) => o.const);
  return [];
}

function common(raw: JsonObject): { title?: string; description?: string } {
  const out: { title?: string; description?: string } = {};
  const title = own(raw, 'title');
  const description = own(raw, 'description');
  if (typeof title === 'string') out.title = title;
  if (typeof description === 'string') out.description = description;
  return out;
}

type DefaultKind = 'string' | 'number' | 'boolean' | 'array';
type DefaultCheck = { value?: unknown; problems: SchemaProblem[] };

function defaultOf(name: string, raw: JsonObject, kind: DefaultKind): DefaultCheck {
  const value = own(raw, 'default');
  if (value === undefined) return { problems: [] };
  const ok =
    kind === 'array' ? isStringArray(value) : kind === 'number' ? isFiniteNumber(value) : typeof value === kind;
  return ok
    ? { value, problems: [] }
    : {
        problems: [
          problem(
            name,
            'bad_default',
            `field "${name}" has default ${show(value)}, which is not a ${kind === 'array' ? 'list of strings' : kind}`,
            "Give a default of the field's own type, or none.",
          ),
        ],
      };
}

function finish(
  name: string,
  raw: JsonObject,
  shape: keyof typeof ALLOWED,
  field: FieldSchema | undefined,
  dflt: DefaultCheck,
  earlier: SchemaProblem[] = [],
): Parsed {
  const problems = [...earlier, ...dflt.problems, ...extraKeys(name, raw, ALLOWED[shape] ?? COMMON)];
  for (const key of ['title', 'description'] as const) {
    const value = own(raw, key);
    if (value !== undefined && typeof value !== 'string') problems.push(badConstraint(name, key, value, 'a string'));
  }
  if (field === undefined || problems.length > 0) return { problems };
  if (dflt.value !== undefined) (field as { default?: unknown }).default = dflt.value;
  return { field, problems };
}

function extraKeys(name: string, raw: JsonObject, allowed: readonly string[], where?: string): SchemaProblem[] {
  const problems: SchemaProblem[] = [];
  for (const key of ownKeys(raw)) {
    if (allowed.includes(key)) continue;
    const at = where ? `${where}.${key}` : key;
    if (key === 'pattern') problems.push(problem(name, 'pattern', `field "${name}" uses pattern`, FIX.pattern));
    else if (key === '$ref' || key === '$defs' || key === 'definitions')
      problems.push(problem(name, 'ref', `field "${name}" uses ${at}`, FIX.ref));
    else if (COMPOSITION.has(key))
      problems.push(problem(name, 'composition', `field "${name}" uses ${at}`, FIX.composition));
    else if (NESTING.has(key)) problems.push(problem(name, 'nested_object', `field "${name}" uses ${at}`, FIX.nested));
    else
      problems.push(
        problem(
          name,
          'unknown_keyword',
          `field "${name}" uses ${at}, which the restricted schema does not have`,
          `Remove ${at}: clients drop keywords outside the subset, so it would not be enforced.`,
        ),
      );
  }
  return problems;
}

function badConstraint(name: string, key: string, value: unknown, expected: string): SchemaProblem {
  return problem(name, 'bad_constraint', `field "${name}" has ${key} ${show(value)}`, `Make ${key} ${expected}.`);
}

function fail(name: string, code: SchemaProblem['code'], message: string, fix: string): Parsed {
  return { problems: [problem(name, code, message, fix)] };
}
