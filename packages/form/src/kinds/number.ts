/**
 * The number kinds: any real number, or a whole number (`integer`), within optional bounds. Wire
 * parse, field model, value check, coercion, downgrade, lint and the `field.number` /
 * `field.integer` builders.
 */
import {
  type Described,
  type FieldDef,
  type HasDefault,
  makeField,
  type Strict,
  withOptions,
} from '../builder/field.js';
import { isFiniteNumber, own } from '../json.js';
import { secretFinding } from '../lint/field-rules.js';
import { problem, type SchemaProblem } from '../schema/problems.js';
import { type Issue, issue } from '../validate/issues.js';
import type { NumberFieldSchema } from '../wire.js';
import { dropDefault } from './legacy.js';
import type { FieldBase, FieldSpec } from './spec.js';
import { badConstraint, boundsProblem, COMMON_KEYWORDS, common, defaultOf, finish } from './wire-parse.js';

export interface NumberFieldModel extends FieldBase {
  kind: 'number' | 'integer';
  default?: number;
  minimum?: number;
  maximum?: number;
}

const ALLOWED = [...COMMON_KEYWORDS, 'minimum', 'maximum'];
const DECIMAL = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;
const WHOLE = /^[+-]?\d+$/;
const MAX_EXACT = Number.MAX_SAFE_INTEGER;

/**
 * A whole-number field whose range holds no whole number that can be sent exactly (between 1.2
 * and 1.8, or from 1e20 up, past ±(2^53 − 1) where JSON rounds): required, nobody can fill it;
 * optional, it can only be left out. Refused like bounds the wrong way round.
 */
function noWholeNumber(name: string, field: NumberFieldSchema): SchemaProblem[] {
  const lowest = Math.max(Math.ceil(field.minimum ?? -MAX_EXACT), -MAX_EXACT);
  const highest = Math.min(Math.floor(field.maximum ?? MAX_EXACT), MAX_EXACT);
  if (lowest <= highest) return [];
  const range = [
    field.minimum === undefined ? undefined : `minimum ${field.minimum}`,
    field.maximum === undefined ? undefined : `maximum ${field.maximum}`,
  ].filter((part) => part !== undefined);
  return [
    problem(
      name,
      'bad_constraint',
      `field "${name}" is a whole number with ${range.join(' and ')}, and no whole number that can be sent exactly lies there`,
      `Give a range that holds a whole number between ${-MAX_EXACT} and ${MAX_EXACT}.`,
    ),
  ];
}

export const NUMBER: FieldSpec<NumberFieldSchema, NumberFieldModel> = {
  claims: (raw) => own(raw, 'type') === 'number' || own(raw, 'type') === 'integer',

  parse(name, raw) {
    const type = own(raw, 'type') === 'integer' ? 'integer' : 'number';
    const problems: SchemaProblem[] = [];
    const out: NumberFieldSchema = { type, ...common(raw) };
    for (const key of ['minimum', 'maximum'] as const) {
      const value = own(raw, key);
      if (value === undefined) continue;
      if (isFiniteNumber(value)) out[key] = value;
      else problems.push(badConstraint(name, key, value, 'a finite number'));
    }
    const ordered = boundsProblem(name, ['minimum', out.minimum], ['maximum', out.maximum]);
    problems.push(...ordered);
    if (type === 'integer' && ordered.length === 0) problems.push(...noWholeNumber(name, out));
    return finish(name, raw, ALLOWED, out, defaultOf(name, raw, 'number'), problems);
  },

  describe(field, base) {
    const num: NumberFieldModel = { ...base, kind: field.type };
    if (field.minimum !== undefined) num.minimum = field.minimum;
    if (field.maximum !== undefined) num.maximum = field.maximum;
    if (field.default !== undefined) num.default = field.default;
    return num;
  },

  check(model) {
    const { kind } = model;
    // A whole number past ±(2^53 − 1) was already rounded by JSON (…993 arrives as …992): the
    // number checked is not the one sent. Such numbers are out of range, as typed ones are (coerce).
    const maximum = kind === 'integer' ? Math.min(model.maximum ?? MAX_EXACT, MAX_EXACT) : model.maximum;
    const minimum = kind === 'integer' ? Math.max(model.minimum ?? -MAX_EXACT, -MAX_EXACT) : model.minimum;
    const exact = (bound: number, own: number | undefined, larger: string) =>
      bound === own ? '' : ` (${larger} whole numbers cannot be exact)`;
    return (value, name, label) => {
      const issues: Issue[] = [];
      // A whole-number field reports any other value, a string included, as "not a whole number".
      if (kind === 'integer' && !Number.isInteger(value))
        issues.push(issue([name], 'not_integer', `${label} must be a whole number.`));
      if (typeof value !== 'number') {
        if (kind === 'number') issues.push(issue([name], 'type', `${label} must be a number.`));
        return issues;
      }
      if (maximum !== undefined && value > maximum)
        issues.push(
          issue([name], 'too_big', `${label} must be at most ${maximum}${exact(maximum, model.maximum, 'larger')}.`),
        );
      if (minimum !== undefined && value < minimum)
        issues.push(
          issue(
            [name],
            'too_small',
            `${label} must be at least ${minimum}${exact(minimum, model.minimum, 'smaller')}.`,
          ),
        );
      return issues;
    };
  },

  maxString: () => undefined,

  coerce(model, _input, text) {
    const value = Number(text);
    if (!(model.kind === 'integer' ? WHOLE : DECIMAL).test(text) || !Number.isFinite(value)) {
      return {
        ok: false,
        message:
          model.kind === 'integer'
            ? `Type a whole number, like 3 (got "${text}").`
            : `Type a number, like 2.5 (got "${text}").`,
      };
    }
    if (model.kind === 'integer' && !Number.isSafeInteger(value))
      return { ok: false, message: `${text} is too large to be exact.`, arrivesAs: value };
    // A double holds about 17 significant digits and nothing below 5e-324: past them a number is
    // rounded on its way, and what arrives is not what the person typed. JSON has no negative
    // zero either: any spelling of it is sent as 0 (as the CLI's and the chat's typed JSON say).
    // Said, never done quietly.
    if (Object.is(value, -0) || decimalKey(text) !== decimalKey(String(value)))
      return { ok: false, message: `${text} cannot be sent exactly: it would arrive as ${value}.`, arrivesAs: value };
    return { ok: true, value };
  },

  blank: () => undefined,

  downgrade: dropDefault,

  lint: (model, field) => secretFinding(model, field.title),
};

export interface NumberOptions extends Described {
  minimum?: number;
  maximum?: number;
  default?: number;
}

/**
 * A number field, any real number within the bounds.
 *
 * @example
 * field.number({ title: 'Budget (USD)', minimum: 0 })
 */
export function number<const O extends NumberOptions = Record<never, never>>(
  options?: Strict<O, NumberOptions>,
): FieldDef<number, false, HasDefault<O>> {
  return makeField(withOptions({ type: 'number' }, options));
}

/**
 * A whole-number field.
 *
 * @example
 * field.integer({ title: 'Replicas', minimum: 1, maximum: 10, default: 2 })
 */
export function integer<const O extends NumberOptions = Record<never, never>>(
  options?: Strict<O, NumberOptions>,
): FieldDef<number, false, HasDefault<O>> {
  return makeField(withOptions({ type: 'integer' }, options));
}

/**
 * A decimal numeral as its significant digits and power of ten, without the zeros that change
 * nothing, so that `2.50`, `25e-1` and `2.5` compare equal (and `-0` with `0`: JSON sends both as 0).
 */
function decimalKey(text: string): string | undefined {
  const parts = /^([+-]?)(\d*)(?:\.(\d*))?(?:e([+-]?\d+))?$/i.exec(text);
  if (!parts) return undefined;
  const [, sign, whole = '', fraction = '', exponent = '0'] = parts;
  const digits = `${whole}${fraction}`.replace(/^0+/, '');
  // Counted from the end: /0+$/ tries every run of zeros to its end, time squared in the digits.
  let end = digits.length;
  while (end > 0 && digits.charCodeAt(end - 1) === 0x30) end--;
  const significant = digits.slice(0, end);
  if (significant === '') return '0';
  const power = Number(exponent) - fraction.length + (digits.length - significant.length);
  return `${sign === '-' ? '-' : ''}${significant}e${power}`;
}
