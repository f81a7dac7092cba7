/**
 * The oracle for the differential tests: the validator `@elicitkit/form` shipped before it had
 * its own, i.e. ajv (draft-07, `allErrors`, `strict`, `strictNumbers`) with ajv-formats' full
 * formats, behind the same size prechecks and the same mapping of ajv errors to issues. Test-only:
 * ajv is a root devDependency and never reaches the package.
 *
 * Deliberate changes from the shipped wrapper: a whole-number field's bounds are at most the exact
 * range, ±(2^53 − 1) (JSON has already rounded a larger number). And the answer reaches ajv as an
 * object without a prototype: the old wrapper passed a plain `{}`, so ajv read `toString`,
 * `valueOf`… from `Object.prototype` and judged a form with a field of that name as answered with
 * a function.
 */
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import formatsPlugin from 'ajv-formats';
import { isObject, ownKeys, show } from '../src/json.js';
import { optionValues } from '../src/kinds/options.js';
import { parseFormSchema } from '../src/schema/parse.js';
import { type Issue, issue, type Validation } from '../src/validate/issues.js';
import { labelOf } from '../src/validate/label.js';
import type { FieldSchema, FormContent, FormSchema } from '../src/wire.js';

const addFormats = formatsPlugin.default;
const ajv = new Ajv({ allErrors: true, strict: true, strictNumbers: true });
addFormats(ajv, ['email', 'uri', 'date', 'date-time']);

/** The formats ajv-formats checks in full mode, for comparing one format at a time. */
export function ajvFormat(format: 'email' | 'uri' | 'date' | 'date-time'): (value: string) => boolean {
  const check = ajv.compile({ type: 'string', format });
  return (value) => check(value) === true;
}

function toValidationSchema(schema: FormSchema): Record<string, unknown> {
  const properties: Record<string, unknown> = {};
  for (const [name, field] of Object.entries(schema.properties)) properties[name] = fieldRule(field);
  return { type: 'object', properties, required: schema.required ?? [], additionalProperties: false };
}

function fieldRule(field: FieldSchema): Record<string, unknown> {
  switch (field.type) {
    case 'string':
      if ('enum' in field || 'oneOf' in field) return { type: 'string', enum: optionValues(field) };
      return pick({ type: 'string' }, field, ['minLength', 'maxLength', 'format']);
    case 'number':
      return pick({ type: field.type }, field, ['minimum', 'maximum']);
    case 'integer':
      // Ours: a whole number is exact within ±(2^53 − 1) only, so those are its outer bounds.
      return {
        type: 'integer',
        minimum: Math.max(field.minimum ?? -MAX_EXACT, -MAX_EXACT),
        maximum: Math.min(field.maximum ?? MAX_EXACT, MAX_EXACT),
      };
    case 'boolean':
      return { type: 'boolean' };
    case 'array':
      return pick({ type: 'array', items: { type: 'string', enum: optionValues(field) }, uniqueItems: true }, field, [
        'minItems',
        'maxItems',
      ]);
  }
}

function pick(base: Record<string, unknown>, from: object, keys: string[]): Record<string, unknown> {
  for (const key of keys) {
    const value = (from as Record<string, unknown>)[key];
    if (value !== undefined) base[key] = value;
  }
  return base;
}

const MAX_EXACT = Number.MAX_SAFE_INTEGER;
const FORMAT_CAP: Record<string, number> = { email: 254, uri: 8192, date: 10, 'date-time': 64 };
const TYPE_NAMES: Record<string, string> = {
  string: 'text',
  number: 'a number',
  integer: 'a whole number',
  boolean: 'true or false',
  array: 'a list of choices',
};
const FORMAT_NAMES: Record<string, string> = {
  email: 'an email address',
  uri: 'a full URL (with https:// or similar)',
  date: 'a real calendar date (YYYY-MM-DD)',
  'date-time': 'a date and time with a time zone (e.g. 2026-03-01T09:30:00Z)',
};

const cache = new Map<string, ValidateFunction>();

function compiled(form: FormSchema): ValidateFunction {
  const rules = toValidationSchema(form);
  const key = JSON.stringify(rules);
  let check = cache.get(key);
  if (!check) {
    check = ajv.compile(rules);
    cache.set(key, check);
  }
  return check;
}

/** Validates like the ajv-based validator did: same prechecks, same issues, same order. */
export function oracleValidate(schema: unknown, content: unknown, maxString = 100_000): Validation<FormContent> {
  const parsed = parseFormSchema(schema);
  if (parsed.problems.length > 0) {
    const issues = parsed.problems.map((p) => issue(p.field ? [p.field] : [], 'bad_schema', `${p.message}. ${p.fix}`));
    return { ok: false, issues };
  }
  const form = parsed.schema;
  if (!isObject(content)) {
    return {
      ok: false,
      issues: [issue([], 'not_object', `The answer must be an object of field values, not ${show(content)}.`)],
    };
  }
  const early = precheck(form, content, maxString);
  const flagged = new Set(early.map((i) => i.path[0]));
  const rest: Record<string, unknown> = Object.create(null);
  for (const key of ownKeys(content)) if (!flagged.has(key)) rest[key] = content[key];
  const check = compiled(form);
  const late = check(rest) ? [] : (check.errors ?? []).map((e) => toIssue(form, e));
  const issues = dedupe([...early, ...late.filter((i) => !(i.code === 'required' && flagged.has(i.path[0])))]);
  if (issues.length > 0) return { ok: false, issues };
  return { ok: true, value: { ...rest } as FormContent };
}

function precheck(form: FormSchema, content: Record<string, unknown>, maxString: number): Issue[] {
  const issues: Issue[] = [];
  for (const key of ownKeys(content)) {
    const field = Object.hasOwn(form.properties, key) ? form.properties[key] : undefined;
    if (!field) {
      issues.push(issue([key], 'unknown_field', `${show(key)} is not a field of this form.`));
      continue;
    }
    const value = content[key];
    const label = labelOf(key, field);
    if (typeof value === 'number' && !Number.isFinite(value)) {
      issues.push(issue([key], 'type', `${label} must be a finite number.`));
    } else if (typeof value === 'string') {
      const cap = field.type === 'string' && 'format' in field && field.format ? FORMAT_CAP[field.format] : undefined;
      const limit = Math.min(maxString, cap ?? maxString);
      if ([...value].length > limit)
        issues.push(issue([key], 'too_long', `${label} is too long (more than ${limit} characters).`));
      else if (!value.split('').every((_, i) => isPaired(value, i)))
        issues.push(issue([key], 'type', `${label} must be text, not half of a character.`));
    } else if (Array.isArray(value) && value.length > 1000) {
      issues.push(issue([key], 'too_many', `${label} has ${value.length} selections, far more than it offers.`));
    }
  }
  return issues;
}

/** Whether the UTF-16 unit at `i` is not a surrogate, or one half of a pair (written out, not as the validator's expression). */
function isPaired(text: string, i: number): boolean {
  const unit = text.charCodeAt(i);
  const high = (u: number) => u >= 0xd800 && u <= 0xdbff;
  const low = (u: number) => u >= 0xdc00 && u <= 0xdfff;
  if (high(unit)) return low(text.charCodeAt(i + 1));
  if (low(unit)) return high(text.charCodeAt(i - 1));
  return true;
}

function toIssue(form: FormSchema, error: ErrorObject): Issue {
  const segments = error.instancePath
    .split('/')
    .slice(1)
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
  const name = error.keyword === 'required' ? String(error.params.missingProperty) : segments[0];
  if (name === undefined) return issue([], 'not_object', 'The answer must be an object of field values.');
  if (error.keyword === 'additionalProperties') {
    const extra = String(error.params.additionalProperty);
    return issue([extra], 'unknown_field', `${show(extra)} is not a field of this form.`);
  }
  const label = labelOf(name, form.properties[name]);
  const path: (string | number)[] = [name, ...segments.slice(1).map((s) => (/^\d+$/.test(s) ? Number(s) : s))];
  const p = error.params as Record<string, unknown>;
  const plural = p.limit === 1 ? '' : 's';
  switch (error.keyword) {
    case 'required':
      return issue([name], 'required', `${label} is required.`);
    case 'type':
      if (p.type === 'integer') return issue(path, 'not_integer', `${label} must be a whole number.`);
      return issue(path, 'type', `${label} must be ${TYPE_NAMES[String(p.type)] ?? p.type}.`);
    case 'minLength':
      return issue(path, 'too_short', `${label} needs at least ${p.limit} character${plural}.`);
    case 'maxLength':
      return issue(path, 'too_long', `${label} allows at most ${p.limit} characters.`);
    case 'format':
      return issue(path, 'format', `${label} must be ${FORMAT_NAMES[String(p.format)] ?? `a valid ${p.format}`}.`);
    case 'minimum':
      return issue(
        path,
        'too_small',
        `${label} must be at least ${p.limit}${exactNote(form, name, 'minimum', p.limit)}.`,
      );
    case 'maximum':
      return issue(path, 'too_big', `${label} must be at most ${p.limit}${exactNote(form, name, 'maximum', p.limit)}.`);
    case 'enum':
      return issue(path, 'not_in_options', `${label} must be one of the offered options.`);
    case 'minItems':
      return issue(path, 'too_few', `${label} needs at least ${p.limit} selection${plural}.`);
    case 'maxItems':
      return issue(path, 'too_many', `${label} allows at most ${p.limit} selection${plural}.`);
    case 'uniqueItems':
      return issue(path, 'duplicate', `${label} lists the same choice twice.`);
    default:
      return issue(path, 'type', `${label} ${error.message ?? 'is not valid'}.`);
  }
}

/** Why a bound the schema did not set applies: the exact range of whole numbers. */
function exactNote(form: FormSchema, name: string, key: 'minimum' | 'maximum', limit: unknown): string {
  const field = form.properties[name];
  const own = field && (field.type === 'integer' || field.type === 'number') ? field[key] : undefined;
  if (limit === own || field?.type !== 'integer') return '';
  return ` (${key === 'maximum' ? 'larger' : 'smaller'} whole numbers cannot be exact)`;
}

function dedupe(issues: Issue[]): Issue[] {
  const seen = new Set<string>();
  return issues.filter((i) => {
    const key = `${JSON.stringify(i.path)}|${i.code}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
