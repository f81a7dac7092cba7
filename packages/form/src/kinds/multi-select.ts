/**
 * The multi-select kind: several choices from a list, `items.enum` (untitled) or `items.anyOf`
 * (titled). Wire parse, field model, value check, coercion (comma-separated values or titles),
 * downgrade (2025-06-18 cannot show it at all), lint (EK07 options) and `field.multiSelect`.
 */
import {
  type Described,
  type FieldDef,
  type HasDefault,
  makeField,
  type Strict,
  withOptions,
} from '../builder/field.js';
import { isNonNegativeInteger, isObject, own, show } from '../json.js';
import { untitledOptionsFinding } from '../lint/field-rules.js';
import { FIX, problem, type SchemaProblem } from '../schema/problems.js';
import { type Issue, issue, MAX_LISTED } from '../validate/issues.js';
import type { MultiSelectSchema } from '../wire.js';
import {
  ambiguous,
  type ChoiceList,
  type ChoiceValue,
  listOptions,
  matchOption,
  type OptionModel,
  optionValues,
  parseEnum,
  parseOptions,
  titledChoices,
} from './options.js';
import type { FieldBase, FieldSpec } from './spec.js';
import { boundsProblem, COMMON_KEYWORDS, common, defaultOf, extraKeys, finish, readCount } from './wire-parse.js';

export interface MultiSelectFieldModel extends FieldBase {
  kind: 'multiselect';
  options: OptionModel[];
  /** Whether the schema gave display titles (rule EK07 warns when not). */
  titled: boolean;
  default?: string[];
  minItems?: number;
  maxItems?: number;
}

const ALLOWED = [...COMMON_KEYWORDS, 'items', 'minItems', 'maxItems'];
/** Commas (ASCII and CJK) and the ideographic enumeration comma separate typed entries. */
const LIST_SEPARATOR = /[,，、]/;

export const MULTI_SELECT: FieldSpec<MultiSelectSchema, MultiSelectFieldModel> = {
  claims: (raw) => own(raw, 'type') === 'array',

  parse(name, raw) {
    const items = own(raw, 'items');
    if (!isObject(items)) return fail(name, `field "${name}" is an array without enum items`);
    const problems: SchemaProblem[] = [];
    let field: MultiSelectSchema | undefined;
    const anyOf = own(items, 'anyOf');
    if (anyOf !== undefined) {
      const options = parseOptions(name, anyOf, 'items.anyOf');
      problems.push(...options.problems, ...extraKeys(name, items, ['anyOf', 'type'], 'items'));
      const type = own(items, 'type');
      if (type !== undefined && type !== 'string')
        problems.push(
          problem(name, 'array_of_non_enum', `field "${name}" has items of type ${show(type)}`, FIX.arrayOfNonEnum),
        );
      if (options.ok) field = { type: 'array', ...common(raw), items: { anyOf: options.value } };
    } else {
      if (own(items, 'type') !== 'string' || own(items, 'enum') === undefined) {
        const of = show(own(items, 'type') ?? 'anything');
        return fail(name, `field "${name}" is an array of ${of}, not of enum strings`);
      }
      const values = parseEnum(name, own(items, 'enum'), 'items.enum');
      problems.push(...values.problems, ...extraKeys(name, items, ['type', 'enum'], 'items'));
      if (values.ok) field = { type: 'array', ...common(raw), items: { type: 'string', enum: values.value } };
    }
    const bounds: { minItems?: number; maxItems?: number } = {};
    readCount(name, raw, 'minItems', bounds, problems);
    readCount(name, raw, 'maxItems', bounds, problems);
    if (field) Object.assign(field, bounds);
    problems.push(...boundsProblem(name, ['minItems', bounds.minItems], ['maxItems', bounds.maxItems]));
    const count = field === undefined ? 0 : optionValues(field).length;
    const min = own(raw, 'minItems');
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
    const clean = problems.length === 0 ? field : undefined;
    return finish(name, raw, ALLOWED, clean, defaultOf(name, raw, 'array'), problems);
  },

  describe(field, base) {
    const titled = 'anyOf' in field.items;
    const options =
      'anyOf' in field.items
        ? field.items.anyOf.map((o) => ({ value: o.const, label: o.title }))
        : field.items.enum.map((v) => ({ value: v, label: v }));
    const multi: MultiSelectFieldModel = { ...base, kind: 'multiselect', titled, options };
    if (field.minItems !== undefined) multi.minItems = field.minItems;
    if (field.maxItems !== undefined) multi.maxItems = field.maxItems;
    if (field.default !== undefined) multi.default = [...field.default];
    return multi;
  },

  check(model) {
    const values = new Set(model.options.map((o) => o.value));
    const { minItems, maxItems } = model;
    return (value, name, label) => {
      if (!Array.isArray(value)) return [issue([name], 'type', `${label} must be a list of choices.`)];
      const issues: Issue[] = [];
      if (maxItems !== undefined && value.length > maxItems)
        issues.push(issue([name], 'too_many', `${label} allows at most ${maxItems} selection${plural(maxItems)}.`));
      if (minItems !== undefined && value.length < minItems)
        issues.push(issue([name], 'too_few', `${label} needs at least ${minItems} selection${plural(minItems)}.`));
      const seen = new Set<string>();
      let duplicate = false;
      let wrong = 0;
      // An index loop, not forEach: a hole in a sparse array is a missing choice, not a skipped one.
      for (let i = 0; i < value.length; i++) {
        const item: unknown = value[i];
        if ((typeof item !== 'string' || !values.has(item)) && wrong++ < MAX_LISTED) {
          if (typeof item !== 'string') issues.push(issue([name, i], 'type', `${label} must be text.`));
          issues.push(issue([name, i], 'not_in_options', `${label} must be one of the offered options.`));
        }
        if (typeof item === 'string') {
          duplicate ||= seen.has(item);
          seen.add(item);
        }
      }
      if (duplicate) issues.push(issue([name], 'duplicate', `${label} lists the same choice twice.`));
      if (wrong > MAX_LISTED)
        issues.push(
          issue([name], 'not_in_options', `And ${wrong - MAX_LISTED} more choices of ${label} that are not offered.`),
        );
      return issues;
    };
  },

  maxString: () => undefined,

  coerce(model, _input, text) {
    // An option may hold a comma itself ("Paris, France"): text that reads both as that one
    // option and as a list of others means neither for sure.
    const whole = matchOption(model.options, text);
    const parts = readList(model.options, text);
    if (whole && 'several' in whole) return { ok: false, message: ambiguous(text, whole.several) };
    if (whole && (!parts.ok || !sameChoices(parts.value, [whole.option.value])))
      return parts.ok
        ? { ok: false, message: ambiguous(text, [whole.option, ...chosenOptions(model.options, parts.value)]) }
        : { ok: true, value: [whole.option.value] };
    return parts.ok ? { ok: true, value: parts.value } : { ok: false, message: parts.message };
  },

  // A required multi-select left blank is an empty choice, which its own rules then judge.
  blank: (model) => (model.required ? [] : undefined),

  downgrade: (name) => ({
    losses: [
      {
        field: name,
        code: 'multi_select',
        fatal: true,
        message: `"${name}" is a multi-select, which 2025-06-18 clients cannot show.`,
      },
    ],
  }),

  lint: (model) => untitledOptionsFinding(model, 'Use titled options: items.anyOf: [{const, title}].'),
};

const plural = (n: number) => (n === 1 ? '' : 's');

/** Typed text as a list of options, split at commas: the values chosen, in order and once each. */
function readList(
  options: readonly OptionModel[],
  text: string,
): { ok: true; value: string[] } | { ok: false; message: string } {
  const chosen: string[] = [];
  for (const part of text
    .split(LIST_SEPARATOR)
    .map((p) => p.trim())
    .filter((p) => p !== '')) {
    const match = matchOption(options, part);
    if (match && 'several' in match) return { ok: false, message: ambiguous(part, match.several) };
    if (!match) return { ok: false, message: `"${part}" is not an option. Choose from: ${listOptions(options)}.` };
    if (!chosen.includes(match.option.value)) chosen.push(match.option.value);
  }
  return { ok: true, value: chosen };
}

const sameChoices = (a: readonly string[], b: readonly string[]) =>
  a.length === b.length && a.every((v, i) => v === b[i]);

const chosenOptions = (options: readonly OptionModel[], values: readonly string[]) =>
  options.filter((o) => values.includes(o.value));

function fail(name: string, message: string): { problems: SchemaProblem[] } {
  return { problems: [problem(name, 'array_of_non_enum', message, FIX.arrayOfNonEnum)] };
}

export interface MultiSelectOptions<V extends string> extends Described {
  minItems?: number;
  maxItems?: number;
  default?: NoInfer<V>[];
}

/**
 * Several choices from a list; the answer is an array of the chosen values.
 *
 * @example
 * field.multiSelect([{ value: 'email', title: 'Email' }, { value: 'sms', title: 'SMS' }], { title: 'Notify by', minItems: 1 })
 */
export function multiSelect<
  const C extends ChoiceList,
  const O extends MultiSelectOptions<ChoiceValue<C>> = Record<never, never>,
>(
  choices: C,
  options?: Strict<O, MultiSelectOptions<ChoiceValue<C>>>,
): FieldDef<ChoiceValue<C>[], false, HasDefault<O>> {
  const list: ChoiceList = choices;
  const items = list.some((c) => typeof c === 'object')
    ? { anyOf: titledChoices(list).map((c) => ({ const: c.value, title: c.title })) }
    : { type: 'string', enum: [...list] };
  return makeField(withOptions({ type: 'array', items }, options));
}
