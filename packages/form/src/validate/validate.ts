import { isObject, ownKeys, show } from '../json.js';
import { codePoints } from '../kinds/text/index.js';
import type { FormContent, FormSchema } from '../wire.js';
import { type CompiledField, type CompiledForm, compileForm } from './compile.js';
import { type Issue, issue, MAX_LISTED, moreUnknownKeys, type Validation } from './issues.js';

export interface ValidateOptions {
  /** Longest string accepted in any field, in characters (code points), whatever the schema says. Default 100,000. */
  maxStringLength?: number;
  /** The most characters of JSON the whole answer may take. Default `MAX_ANSWER_LENGTH`. */
  maxAnswerLength?: number;
}

const DEFAULT_MAX_STRING = 100_000;

/**
 * The most characters of JSON one answer's content may take (`JSON.stringify(content).length`):
 * what a server built on the kit takes in a round (`MAX_ANSWERS_LENGTH` of `@elicitkit/server` is
 * larger), what the web app's answer route reads (its byte cap is three times it, UTF-8's most per
 * character), so that an answer a form takes is never refused on its way for its size. A person
 * typing into a form comes nowhere near it; a paste of a log may.
 */
export const MAX_ANSWER_LENGTH = 65_536;
/** No field offers more options than this (`MAX_OPTIONS`): a longer list is refused unread. */
const MAX_SELECTIONS = 1000;

/** A UTF-16 surrogate not paired with its other half (with `u`, a paired one is a single code point). */
const LONE_SURROGATE = /\p{Cs}/u;

/** A validator bound to one form: the schema is parsed and its checks built once. */
export type Validator = (content: unknown, options?: ValidateOptions) => Validation<FormContent>;

/**
 * Checks an answer's `content` against its form: types, bounds, formats, options, required fields
 * and unknown keys, plus the limits a person-facing form implies. Every issue is reported at once,
 * each with a code and a sentence naming the field; unknown keys and a field's wrong choices are
 * listed up to 20 each, then counted in one more issue. Never throws, whatever JSON it is given;
 * on success `value` is a clean copy holding only the form's own fields.
 *
 * @example
 * const result = validate(schema, { env: 'prod' });
 * if (!result.ok) return invalid(result.issues);
 */
export function validate(schema: FormSchema, content: unknown, options: ValidateOptions = {}): Validation<FormContent> {
  return validator(schema)(content, options);
}

/**
 * A validator for one form, for checking many answers to it (servers, renderers). The form is
 * compiled once, here; `validate` reuses that work across calls only for a frozen schema (a built
 * form's), and reads any other schema as it is at the call.
 *
 * @example
 * const check = validator(schema);
 * for (const answer of answers) console.log(check(answer).ok);
 */
export function validator(schema: FormSchema): Validator {
  const form = compileForm(schema);
  const { problems } = form.parsed;
  if (problems.length > 0) {
    const issues = problems.map((p) => issue(p.field ? [p.field] : [], 'bad_schema', `${p.message}. ${p.fix}`));
    return () => ({ ok: false, issues });
  }
  return (content, options = {}) =>
    check(form, content, options.maxStringLength ?? DEFAULT_MAX_STRING, options.maxAnswerLength ?? MAX_ANSWER_LENGTH);
}

function check(form: CompiledForm, content: unknown, maxString: number, maxAnswer: number): Validation<FormContent> {
  if (!isObject(content)) {
    return {
      ok: false,
      issues: [issue([], 'not_object', `The answer must be an object of field values, not ${show(content)}.`)],
    };
  }
  // The cheap checks run first, per key in the answer's order; a value they refuse is not looked
  // at again (no expression runs on a megabyte string), but every other field still is.
  const issues: Issue[] = [];
  const flagged = new Set<string>();
  const rest: Record<string, unknown> = {};
  let unknown = 0;
  for (const key of ownKeys(content)) {
    const field = form.byName.get(key);
    if (!field) {
      if (unknown++ < MAX_LISTED)
        issues.push(issue([key], 'unknown_field', `${show(key)} is not a field of this form.`));
      continue;
    }
    // Read once, and a list copied before it is checked: a getter or a proxy could otherwise hand
    // the checks one value and the caller, reading the result, another.
    const value = content[key];
    const early = precheck(field, value, maxString);
    if (early) {
      issues.push(early);
      flagged.add(key);
    } else rest[key] = Array.isArray(value) ? Array.from(value) : value;
  }
  if (unknown > MAX_LISTED) issues.push(moreUnknownKeys(unknown - MAX_LISTED));
  const present = (name: string) => (Object.hasOwn(rest, name) ? rest[name] : undefined);
  for (const name of form.required) {
    if (!flagged.has(name) && present(name) === undefined)
      issues.push(issue([name], 'required', `${form.byName.get(name)?.label} is required.`));
  }
  for (const field of form.fields) {
    const value = present(field.name);
    if (value !== undefined) issues.push(...field.check(value, field.name, field.label));
  }
  if (issues.length > 0) return { ok: false, issues: dedupe(issues) };
  const tooLarge = answerTooLarge(form, rest, maxAnswer);
  if (tooLarge) return { ok: false, issues: [tooLarge] };
  return { ok: true, value: rest as FormContent };
}

/**
 * The answer past `maxAnswer` characters of JSON, said at the field that takes the most of it;
 * undefined when it fits. Measured exactly only when a bound read from the strings' lengths (each
 * character escaped, at most 6) could pass the limit: a usual answer costs one walk of its keys.
 */
function answerTooLarge(form: CompiledForm, content: Record<string, unknown>, maxAnswer: number): Issue | undefined {
  let bound = 2;
  for (const key of Object.keys(content)) {
    const value = content[key];
    bound += 6 * key.length + 4;
    if (typeof value === 'string') bound += 6 * value.length + 2;
    else if (Array.isArray(value)) for (const item of value) bound += 6 * String(item).length + 3;
    else bound += 24; // a number or a boolean
  }
  if (bound <= maxAnswer) return undefined;
  const length = JSON.stringify(content).length;
  if (length <= maxAnswer) return undefined;
  let largest = '';
  let most = -1;
  for (const key of Object.keys(content)) {
    const size = JSON.stringify(content[key]).length;
    if (size > most) [largest, most] = [key, size];
  }
  const label = form.byName.get(largest)?.label ?? show(largest);
  return issue(
    [largest],
    'too_long',
    `${label} is too long for one answer: an answer holds at most ${maxAnswer} characters in all, and this one ${length}. Shorten it.`,
  );
}

/** Cheap checks that protect the rest: non-finite numbers, giant strings, giant lists. */
function precheck(field: CompiledField, value: unknown, maxString: number): Issue | undefined {
  const { name, label } = field;
  if (typeof value === 'number' && !Number.isFinite(value)) {
    return issue([name], 'type', `${label} must be a finite number.`);
  }
  if (typeof value === 'string') {
    const limit = Math.min(maxString, field.maxString ?? maxString);
    // Characters (code points), as maxLength counts them: UTF-16 units would refuse 60,000 emoji
    // under a cap of 100,000. A string of more than twice the cap in units has more than the cap
    // in characters whatever it holds, so only one up to twice the cap is ever counted.
    if (value.length > limit && (value.length > 2 * limit || codePoints(value) > limit))
      return issue([name], 'too_long', `${label} is too long (more than ${limit} characters).`);
    // Half of a character: nobody types one, and UTF-8 (a database, a log) stores it as U+FFFD, so
    // the value kept would not be the value checked.
    if (LONE_SURROGATE.test(value)) return issue([name], 'type', `${label} must be text, not half of a character.`);
  } else if (Array.isArray(value) && value.length > MAX_SELECTIONS) {
    return issue([name], 'too_many', `${label} has ${value.length} selections, far more than it offers.`);
  }
  return undefined;
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
