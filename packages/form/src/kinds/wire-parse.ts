/** Helpers every kind's wire parse shares: common keywords, typed defaults, keywords outside the subset. */
import { isFiniteNumber, isNonNegativeInteger, isStringArray, type JsonObject, own, ownKeys, show } from '../json.js';
import { FIX, problem, type SchemaProblem } from '../schema/problems.js';
import type { FieldSchema } from '../wire.js';
import type { Parsed } from './spec.js';

/** Keywords every field may carry. */
export const COMMON_KEYWORDS: readonly string[] = ['type', 'title', 'description', 'default'];

const COMPOSITION = new Set(['allOf', 'anyOf', 'oneOf', 'not', 'if', 'then', 'else']);
const NESTING = new Set(['properties', 'additionalProperties', 'patternProperties', 'prefixItems']);

/** The `title` and `description` of a raw property, when they are strings. */
export function common(raw: JsonObject): { title?: string; description?: string } {
  const out: { title?: string; description?: string } = {};
  const title = own(raw, 'title');
  const description = own(raw, 'description');
  if (typeof title === 'string') out.title = title;
  if (typeof description === 'string') out.description = description;
  return out;
}

/** The JSON type a kind's default must have. */
export type DefaultType = 'string' | 'number' | 'boolean' | 'array';

/** A raw default read for its JSON type only; whether it fits the field is rule EK15's business. */
export interface DefaultCheck {
  value?: unknown;
  problems: SchemaProblem[];
}

export function defaultOf(name: string, raw: JsonObject, type: DefaultType): DefaultCheck {
  const value = own(raw, 'default');
  if (value === undefined) return { problems: [] };
  const ok =
    type === 'array' ? isStringArray(value) : type === 'number' ? isFiniteNumber(value) : typeof value === type;
  return ok
    ? { value, problems: [] }
    : {
        problems: [
          problem(
            name,
            'bad_default',
            `field "${name}" has default ${show(value)}, which is not a ${type === 'array' ? 'list of strings' : type}`,
            "Give a default of the field's own type, or none.",
          ),
        ],
      };
}

/**
 * The last step of every kind's parse: adds the default's problems and those of keywords outside
 * `allowed`, checks title and description, and returns the clean field only when nothing is wrong.
 */
export function finish<S extends FieldSchema>(
  name: string,
  raw: JsonObject,
  allowed: readonly string[],
  field: S | undefined,
  dflt: DefaultCheck,
  earlier: SchemaProblem[] = [],
): Parsed<S> {
  const problems = [...earlier, ...dflt.problems, ...extraKeys(name, raw, allowed)];
  for (const key of ['title', 'description'] as const) {
    const value = own(raw, key);
    if (value !== undefined && typeof value !== 'string') problems.push(badConstraint(name, key, value, 'a string'));
  }
  if (field === undefined || problems.length > 0) return { problems };
  if (dflt.value !== undefined) (field as { default?: unknown }).default = dflt.value;
  return { field, problems };
}

/** A problem for every keyword outside `allowed`, naming the JSON Schema feature it reaches for. */
export function extraKeys(name: string, raw: JsonObject, allowed: readonly string[], where?: string): SchemaProblem[] {
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

export function badConstraint(name: string, key: string, value: unknown, expected: string): SchemaProblem {
  return problem(name, 'bad_constraint', `field "${name}" has ${key} ${show(value)}`, `Make ${key} ${expected}.`);
}

/** Reads a non-negative integer bound (`minLength`, `minItems`…) into `out`, or reports it. */
export function readCount<K extends string>(
  name: string,
  raw: JsonObject,
  key: K,
  out: { [P in K]?: number },
  problems: SchemaProblem[],
): void {
  const value = own(raw, key);
  if (value === undefined) return;
  if (isNonNegativeInteger(value)) out[key] = value;
  else problems.push(badConstraint(name, key, value, 'a non-negative integer'));
}

/** A problem when a lower bound is above the upper one. */
export function boundsProblem(
  name: string,
  low: [string, number | undefined],
  high: [string, number | undefined],
): SchemaProblem[] {
  const [lowKey, min] = low;
  const [highKey, max] = high;
  if (min === undefined || max === undefined || min <= max) return [];
  return [
    problem(
      name,
      'bad_constraint',
      `field "${name}" has ${lowKey} ${min} above ${highKey} ${max}`,
      `Make ${lowKey} less than or equal to ${highKey}.`,
    ),
  ];
}
