/**
 * The text kinds: a one-line string, plain or in one of the protocol's formats (email, uri, date,
 * date-time). Everything about them is here or in `formats.ts`: wire parse, field model, value
 * check, coercion, downgrade, lint and the `field.string` builder.
 */
import {
  type Described,
  type FieldDef,
  type HasDefault,
  makeField,
  type Strict,
  withOptions,
} from '../../builder/field.js';
import { type JsonObject, own, show } from '../../json.js';
import { secretFinding } from '../../lint/field-rules.js';
import { problem, type SchemaProblem } from '../../schema/problems.js';
import { type Issue, issue } from '../../validate/issues.js';
import type { StringFieldSchema } from '../../wire.js';
import { dropDefault } from '../legacy.js';
import type { FieldBase, FieldSpec } from '../spec.js';
import { boundsProblem, COMMON_KEYWORDS, common, defaultOf, finish, readCount } from '../wire-parse.js';
import { FORMATS, isStringFormat, type StringFormat } from './formats.js';

export { FORMATS, type FormatSpec, isStringFormat, type StringFormat } from './formats.js';

/** A text field's kind: `text`, or the format it must be in. */
export type TextKind = 'text' | StringFormat;

export interface TextFieldModel extends FieldBase {
  kind: TextKind;
  default?: string;
  minLength?: number;
  maxLength?: number;
}

const ALLOWED = [...COMMON_KEYWORDS, 'minLength', 'maxLength', 'format'];

export const TEXT: FieldSpec<StringFieldSchema, TextFieldModel> = {
  claims: (raw) => own(raw, 'type') === 'string' && own(raw, 'oneOf') === undefined && own(raw, 'enum') === undefined,

  parse(name, raw: JsonObject) {
    const problems: SchemaProblem[] = [];
    const out: StringFieldSchema = { type: 'string', ...common(raw) };
    readCount(name, raw, 'minLength', out, problems);
    readCount(name, raw, 'maxLength', out, problems);
    problems.push(...boundsProblem(name, ['minLength', out.minLength], ['maxLength', out.maxLength]));
    const format = own(raw, 'format');
    if (format !== undefined) {
      if (isStringFormat(format)) out.format = format;
      else
        problems.push(
          problem(
            name,
            'bad_format',
            `field "${name}" has format ${show(format)}`,
            `Use one of ${Object.keys(FORMATS).join(', ')}, or drop format and validate on the server after accept.`,
          ),
        );
    }
    return finish(name, raw, ALLOWED, out, defaultOf(name, raw, 'string'), problems);
  },

  describe(field, base) {
    const text: TextFieldModel = { ...base, kind: field.format ?? 'text' };
    if (field.minLength !== undefined) text.minLength = field.minLength;
    if (field.maxLength !== undefined) text.maxLength = field.maxLength;
    if (field.default !== undefined) text.default = field.default;
    return text;
  },

  check(model) {
    const format = model.kind === 'text' ? undefined : FORMATS[model.kind];
    const { minLength, maxLength } = model;
    return (value, name, label) => {
      if (typeof value !== 'string') return [issue([name], 'type', `${label} must be text.`)];
      const issues: Issue[] = [];
      // Lengths count characters (code points), so an emoji or a CJK character is one.
      const length = minLength === undefined && maxLength === undefined ? 0 : codePoints(value);
      if (maxLength !== undefined && length > maxLength)
        issues.push(issue([name], 'too_long', `${label} allows at most ${maxLength} characters.`));
      if (minLength !== undefined && length < minLength)
        issues.push(
          issue([name], 'too_short', `${label} needs at least ${minLength} character${minLength === 1 ? '' : 's'}.`),
        );
      if (format && !format.test(value)) issues.push(issue([name], 'format', `${label} must be ${format.means}.`));
      return issues;
    };
  },

  maxString: (model) => (model.kind === 'text' ? undefined : FORMATS[model.kind].maxLength),

  // Plain text keeps what was typed, spaces included; a formatted value never means its spaces.
  coerce: (model, input, text) => ({ ok: true, value: model.kind === 'text' ? input : text }),

  blank: () => undefined,

  downgrade: dropDefault,

  lint: (model, field) => secretFinding(model, field.title),
};

/** Characters (code points) in `text`, as JSON Schema counts a string's length: an emoji or a CJK character is one. */
export function codePoints(text: string): number {
  let count = 0;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    // A high surrogate followed by a low one is a single character.
    if (unit >= 0xd800 && unit <= 0xdbff && i + 1 < text.length && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00) i++;
    count++;
  }
  return count;
}

export interface StringOptions extends Described {
  minLength?: number;
  maxLength?: number;
  format?: StringFormat;
  default?: string;
}

/**
 * A one-line text field; `format` makes it an email, URL, date or date-time.
 *
 * @example
 * field.string({ title: 'Release ticket', minLength: 4 })
 * field.string({ title: 'Start date', format: 'date' }).optional()
 */
export function string<const O extends StringOptions = Record<never, never>>(
  options?: Strict<O, StringOptions>,
): FieldDef<string, false, HasDefault<O>> {
  return makeField(withOptions({ type: 'string' }, options));
}
