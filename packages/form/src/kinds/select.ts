/**
 * The single-select kind, in its three wire shapes: untitled `enum`, titled `oneOf` (SEP-1330) and
 * the 2025-06-18 `enum` + `enumNames`. Wire parse, field model, value check, coercion (value or
 * title, any case), downgrade (titles become `enumNames`), lint (EK07 options) and `field.select`.
 */
import {
  type Described,
  type FieldDef,
  type HasDefault,
  makeField,
  type Strict,
  withOptions,
} from '../builder/field.js';
import { isStringArray, own } from '../json.js';
import { untitledOptionsFinding } from '../lint/field-rules.js';
import { problem } from '../schema/problems.js';
import { type Issue, issue } from '../validate/issues.js';
import type { FieldSchema, SelectSchema } from '../wire.js';
import { dropDefault } from './legacy.js';
import {
  ambiguous,
  type ChoiceList,
  type ChoiceValue,
  listOptions,
  lookAlikes,
  matchOption,
  type OptionModel,
  parseEnum,
  parseOptions,
  titledChoices,
} from './options.js';
import type { FieldBase, FieldSpec } from './spec.js';
import { COMMON_KEYWORDS, common, defaultOf, finish } from './wire-parse.js';

export interface SelectFieldModel extends FieldBase {
  kind: 'select';
  options: OptionModel[];
  /** Whether the schema gave display titles (rule EK07 warns when not). */
  titled: boolean;
  default?: string;
}

const UNTITLED = [...COMMON_KEYWORDS, 'enum'];
const LEGACY = [...COMMON_KEYWORDS, 'enum', 'enumNames'];
const TITLED = [...COMMON_KEYWORDS, 'oneOf'];

export const SELECT: FieldSpec<SelectSchema, SelectFieldModel> = {
  claims: (raw) => own(raw, 'type') === 'string' && (own(raw, 'oneOf') !== undefined || own(raw, 'enum') !== undefined),

  parse(name, raw) {
    const dflt = defaultOf(name, raw, 'string');
    if (own(raw, 'oneOf') !== undefined) {
      const options = parseOptions(name, own(raw, 'oneOf'), 'oneOf');
      if (Array.isArray(own(raw, 'enum'))) {
        return {
          problems: [
            problem(
              name,
              'bad_options',
              `field "${name}" has both enum and oneOf`,
              'Keep one: `oneOf: [{const, title}]` for titled options.',
            ),
          ],
        };
      }
      const field = options.ok ? { type: 'string' as const, ...common(raw), oneOf: options.value } : undefined;
      return finish(name, raw, TITLED, field, dflt, options.problems);
    }
    const values = parseEnum(name, own(raw, 'enum'), 'enum');
    const names = own(raw, 'enumNames');
    if (names === undefined) {
      const field = values.ok ? { type: 'string' as const, ...common(raw), enum: values.value } : undefined;
      return finish(name, raw, UNTITLED, field, dflt, values.problems);
    }
    const problems = [...values.problems];
    if (!isStringArray(names) || (values.ok && names.length !== values.value.length)) {
      problems.push(
        problem(
          name,
          'bad_options',
          `field "${name}" has enumNames that do not pair with enum`,
          'Give one display name per enum value, in the same order, or use `oneOf: [{const, title}]`.',
        ),
      );
    }
    if (isStringArray(names) && problems.length === 0)
      problems.push(...lookAlikes(name, names, 'enumNames', values.ok ? values.value : undefined));
    const field =
      values.ok && problems.length === 0
        ? { type: 'string' as const, ...common(raw), enum: values.value, enumNames: names as string[] }
        : undefined;
    return finish(name, raw, LEGACY, field, dflt, problems);
  },

  describe(field, base) {
    let model: SelectFieldModel;
    if ('oneOf' in field) {
      const options = field.oneOf.map((o) => ({ value: o.const, label: o.title }));
      model = { ...base, kind: 'select', titled: true, options };
    } else {
      const names = 'enumNames' in field ? field.enumNames : undefined;
      const options = field.enum.map((value, i) => ({ value, label: names?.[i] ?? value }));
      model = { ...base, kind: 'select', titled: names !== undefined, options };
    }
    if (field.default !== undefined) model.default = field.default;
    return model;
  },

  check(model) {
    const values = new Set(model.options.map((o) => o.value));
    return (value, name, label) => {
      const issues: Issue[] = [];
      if (typeof value !== 'string') issues.push(issue([name], 'type', `${label} must be text.`));
      if (typeof value !== 'string' || !values.has(value))
        issues.push(issue([name], 'not_in_options', `${label} must be one of the offered options.`));
      return issues;
    };
  },

  maxString: () => undefined,

  coerce(model, _input, text) {
    const match = matchOption(model.options, text);
    if (match && 'several' in match) return { ok: false, message: ambiguous(text, match.several) };
    return match
      ? { ok: true, value: match.option.value }
      : { ok: false, message: `Choose one of: ${listOptions(model.options)} (got "${text}").` };
  },

  blank: () => undefined,

  downgrade: (name, field) => dropDefault(name, toLegacySelect(field)),

  lint: (model) =>
    untitledOptionsFinding(model, 'Use titled options: oneOf: [{const, title}] (field.select with {value, title}).'),
};

/** Titled `oneOf` → `enum` + `enumNames`, the only titled shape a 2025-06-18 client understands. */
export function toLegacySelect(field: FieldSchema): FieldSchema {
  if (field.type !== 'string' || !('oneOf' in field)) return field;
  const { oneOf, ...rest } = field;
  return { ...rest, enum: oneOf.map((o) => o.const), enumNames: oneOf.map((o) => o.title) };
}

/** Legacy `enum` + `enumNames` → titled `oneOf` (SEP-1330). */
export function toTitledSelect(field: FieldSchema): FieldSchema {
  if (field.type !== 'string' || !('enumNames' in field)) return field;
  const { enum: values, enumNames, ...rest } = field;
  return { ...rest, oneOf: values.map((value, i) => ({ const: value, title: enumNames[i] ?? value })) };
}

export interface SelectOptions<V extends string> extends Described {
  default?: NoInfer<V>;
  /** `legacy` emits `enum` + `enumNames` (the 2025-06-18 shape) instead of `oneOf`. */
  style?: 'titled' | 'legacy';
}

/**
 * A single choice. Plain strings give an untitled `enum`; `{value, title}` pairs give the titled
 * `oneOf` shape (or `enum` + `enumNames` with `style: 'legacy'`).
 *
 * @example
 * field.select(['dev', 'staging', 'prod'], { title: 'Environment' })
 * field.select([{ value: 'prod', title: 'Production' }, { value: 'dev', title: 'Development' }], { title: 'Environment' })
 */
export function select<
  const C extends ChoiceList,
  const O extends SelectOptions<ChoiceValue<C>> = Record<never, never>,
>(choices: C, options?: Strict<O, SelectOptions<ChoiceValue<C>>>): FieldDef<ChoiceValue<C>, false, HasDefault<O>> {
  const { style, ...rest } = (options ?? {}) as SelectOptions<string>;
  const list: ChoiceList = choices;
  if (!list.some((c) => typeof c === 'object'))
    return makeField(withOptions({ type: 'string', enum: [...list] }, rest));
  const pairs = titledChoices(list);
  if (style === 'legacy') {
    return makeField(
      withOptions({ type: 'string', enum: pairs.map((p) => p.value), enumNames: pairs.map((p) => p.title) }, rest),
    );
  }
  return makeField(
    withOptions({ type: 'string', oneOf: pairs.map((p) => ({ const: p.value, title: p.title })) }, rest),
  );
}
