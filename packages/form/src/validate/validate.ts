import { isObject, ownKeys, show } from '../json.js';
import { parseFormSchema } from '../schema/parse.js';
import type { FieldSchema, FormContent, FormSchema } from '../wire.js';
import { type AjvError, compiled } from './compile.js';
import { type Issue, issue, type Validation } from './issues.js';
import { labelOf } from './label.js';

export interface ValidateOptions {
  /** Longest string accepted in any field, whatever the schema says. Default 100,000. */
  maxStringLength?: number;
}

const DEFAULT_MAX_STRING = 100_000;
/** Formats have natural sizes; longer strings are refused before any regular expression runs. */
const FORMAT_CAP: Record<string, number> = { email: 254, uri: 8192, date: 10, 'date-time': 64 };
const TYPE_NAMES: Record<string, string> = {
  string: 'text',
  number: 'a number',
  integer: 'a whole number',
  boolean: 'true or false',
  array: 'a list of choices',
};

/** A validator bound to one form: the schema is parsed and compiled once. */
export type Validator = (content: unknown, options?: ValidateOptions) => Validation<FormContent>;

/**
 * Checks an answer's `content` against its form with ajv (formats included) plus the limits a
 * person-facing form implies. Never throws, whatever JSON it is given; on success `value` is a
 * clean copy holding only the form's own fields.
 *
 * @example
 * const result = validate(schema, { env: 'prod' });
 * if (!result.ok) return invalid(result.issues);
 */
export function validate(schema: FormSchema, content: unknown, options: ValidateOptions = {}): Validation<FormContent> {
  return validator(schema)(content, options);
}

/**
 * Parses and compiles a form once, for validating many answers to it (servers, renderers).
 *
 * @example
 * const check = validator(schema);
 * for (const answer of answers) console.log(check(answer).ok);
 */
export function validator(schema: FormSchema): Validator {
  const parsed = parseFormSchema(schema);
  if (parsed.problems.length > 0) {
    const issues = parsed.problems.map((p) => issue(p.field ? [p.field] : [], 'bad_schema', `${p.message}. ${p.fix}`));
    return () => ({ ok: false, issues });
  }
  const form = parsed.schema;
  let check: ReturnType<typeof compiled> | undefined;
  return (content, options = {}) => {
    if (!isObject(content)) {
      return {
        ok: false,
        issues: [issue([], 'not_object', `The answer must be an object of field values, not ${show(content)}.`)],
      };
    }
    // Values the cheap checks reject never reach ajv (no regular expression runs on a megabyte
    // string); the rest of the answer is still checked so that every issue is reported at once.
    const early = precheck(form, content, options.maxStringLength ?? DEFAULT_MAX_STRING);
    const flagged = new Set(early.map((i) => i.path[0]));
    const rest: Record<string, unknown> = {};
    for (const key of ownKeys(content)) if (!flagged.has(key)) rest[key] = content[key];

    check ??= compiled(form);
    const late = check(rest) ? [] : (check.errors ?? []).map((e) => toIssue(form, e));
    const issues = dedupe([...early, ...late.filter((i) => !(i.code === 'required' && flagged.has(i.path[0])))]);
    if (issues.length > 0) return { ok: false, issues };
    return { ok: true, value: rest as FormContent };
  };
}

/** Cheap checks that protect the validator: unknown keys, non-finite numbers, giant strings. */
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
      if (value.length > limit)
        issues.push(issue([key], 'too_long', `${label} is too long (${value.length} characters; at most ${limit}).`));
    } else if (Array.isArray(value) && value.length > 1000) {
      issues.push(issue([key], 'too_many', `${label} has ${value.length} selections, far more than it offers.`));
    }
  }
  return issues;
}

function toIssue(form: FormSchema, error: AjvError): Issue {
  const segments = error.instancePath.split('/').slice(1).map(unescapePointer);
  const name = error.keyword === 'required' ? String(error.params.missingProperty) : segments[0];
  if (name === undefined) return issue([], 'not_object', 'The answer must be an object of field values.');
  if (error.keyword === 'additionalProperties') {
    const extra = String(error.params.additionalProperty);
    return issue([extra], 'unknown_field', `${show(extra)} is not a field of this form.`);
  }
  const field = form.properties[name] as FieldSchema;
  const label = labelOf(name, field);
  const path: (string | number)[] = [name, ...segments.slice(1).map((s) => (/^\d+$/.test(s) ? Number(s) : s))];
  const p = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'required':
      return issue([name], 'required', `${label} is required.`);
    case 'type':
      if (p.type === 'integer') return issue(path, 'not_integer', `${label} must be a whole number.`);
      return issue(path, 'type', `${label} must be ${TYPE_NAMES[String(p.type)] ?? p.type}.`);
    case 'minLength':
      return issue(path, 'too_short', `${label} needs at least ${p.limit} character${p.limit === 1 ? '' : 's'}.`);
    case 'maxLength':
      return issue(path, 'too_long', `${label} allows at most ${p.limit} characters.`);
    case 'format':
      return issue(path, 'format', `${label} must be ${FORMAT_NAMES[String(p.format)] ?? `a valid ${p.format}`}.`);
    case 'minimum':
      return issue(path, 'too_small', `${label} must be at least ${p.limit}.`);
    case 'maximum':
      return issue(path, 'too_big', `${label} must be at most ${p.limit}.`);
    case 'enum':
      return issue(path, 'not_in_options', `${label} must be one of the offered options.`);
    case 'minItems':
      return issue(path, 'too_few', `${label} needs at least ${p.limit} selection${p.limit === 1 ? '' : 's'}.`);
    case 'maxItems':
      return issue(path, 'too_many', `${label} allows at most ${p.limit} selection${p.limit === 1 ? '' : 's'}.`);
    case 'uniqueItems':
      return issue(path, 'duplicate', `${label} lists the same choice twice.`);
    default:
      return issue(path, 'type', `${label} ${error.message ?? 'is not valid'}.`);
  }
}

const FORMAT_NAMES: Record<string, string> = {
  email: 'an email address',
  uri: 'a full URL (with https:// or similar)',
  date: 'a real calendar date (YYYY-MM-DD)',
  'date-time': 'a date and time with a time zone (e.g. 2026-03-01T09:30:00Z)',
};

function unescapePointer(segment: string): string {
  return segment.replace(/~1/g, '/').replace(/~0/g, '~');
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
