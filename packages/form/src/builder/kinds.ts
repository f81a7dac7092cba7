import type { FieldSchema } from '../wire.js';
import {
  type BooleanOptions,
  type ChoiceList,
  type ChoiceValue,
  type FieldDef,
  type HasDefault,
  type MultiSelectOptions,
  makeField,
  type NumberOptions,
  type SelectOptions,
  type Strict,
  type StringOptions,
} from './field.js';

// Options are copied verbatim, unknown keys included, so that `form()` can name anything a
// JavaScript caller slipped in (`pattern`, nested `properties`) and say what to do instead.
function withOptions(base: Record<string, unknown>, options: object | undefined): FieldSchema {
  return { ...(options ?? {}), ...base } as unknown as FieldSchema;
}

/**
 * A one-line text field; `format` makes it an email, URL, date or date-time.
 *
 * @example
 * field.string({ title: 'Release ticket', minLength: 4 })
 * field.string({ title: 'Start date', format: 'date' }).optional()
 */
function string<const O extends StringOptions = Record<never, never>>(
  options?: Strict<O, StringOptions>,
): FieldDef<string, false, HasDefault<O>> {
  return makeField(withOptions({ type: 'string' }, options));
}

/**
 * A number field, any real number within the bounds.
 *
 * @example
 * field.number({ title: 'Budget (USD)', minimum: 0 })
 */
function number<const O extends NumberOptions = Record<never, never>>(
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
function integer<const O extends NumberOptions = Record<never, never>>(
  options?: Strict<O, NumberOptions>,
): FieldDef<number, false, HasDefault<O>> {
  return makeField(withOptions({ type: 'integer' }, options));
}

/**
 * A yes/no field. A confirmation must default to `false` (rule EK06).
 *
 * @example
 * field.boolean({ title: 'I have reviewed the change', default: false })
 */
function boolean<const O extends BooleanOptions = Record<never, never>>(
  options?: Strict<O, BooleanOptions>,
): FieldDef<boolean, false, HasDefault<O>> {
  return makeField(withOptions({ type: 'boolean' }, options));
}

/**
 * A single choice. Plain strings give an untitled `enum`; `{value, title}` pairs give the titled
 * `oneOf` shape (or `enum` + `enumNames` with `style: 'legacy'`).
 *
 * @example
 * field.select(['dev', 'staging', 'prod'], { title: 'Environment' })
 * field.select([{ value: 'prod', title: 'Production' }, { value: 'dev', title: 'Development' }], { title: 'Environment' })
 */
function select<const C extends ChoiceList, const O extends SelectOptions<ChoiceValue<C>> = Record<never, never>>(
  choices: C,
  options?: Strict<O, SelectOptions<ChoiceValue<C>>>,
): FieldDef<ChoiceValue<C>, false, HasDefault<O>> {
  const { style, ...rest } = (options ?? {}) as SelectOptions<string>;
  const list: ChoiceList = choices;
  const titled = list.some((c) => typeof c === 'object');
  if (!titled) return makeField(withOptions({ type: 'string', enum: [...list] }, rest));
  const pairs = list.map((c) => (typeof c === 'object' && c !== null ? c : { value: c, title: c }));
  if (style === 'legacy') {
    return makeField(
      withOptions({ type: 'string', enum: pairs.map((p) => p.value), enumNames: pairs.map((p) => p.title) }, rest),
    );
  }
  return makeField(
    withOptions({ type: 'string', oneOf: pairs.map((p) => ({ const: p.value, title: p.title })) }, rest),
  );
}

/**
 * Several choices from a list; the answer is an array of the chosen values.
 *
 * @example
 * field.multiSelect([{ value: 'email', title: 'Email' }, { value: 'sms', title: 'SMS' }], { title: 'Notify by', minItems: 1 })
 */
function multiSelect<
  const C extends ChoiceList,
  const O extends MultiSelectOptions<ChoiceValue<C>> = Record<never, never>,
>(
  choices: C,
  options?: Strict<O, MultiSelectOptions<ChoiceValue<C>>>,
): FieldDef<ChoiceValue<C>[], false, HasDefault<O>> {
  const list: ChoiceList = choices;
  const titled = list.some((c) => typeof c === 'object');
  const items = titled
    ? {
        anyOf: list.map((c) =>
          typeof c === 'object' && c !== null ? { const: c.value, title: c.title } : { const: c, title: c },
        ),
      }
    : { type: 'string', enum: [...list] };
  return makeField(withOptions({ type: 'array', items }, options));
}

/**
 * Field builders for every shape of the restricted schema.
 *
 * @example
 * const deploy = form({
 *   env: field.select([{ value: 'dev', title: 'Development' }, { value: 'prod', title: 'Production' }], { title: 'Environment' }),
 *   confirmed: field.boolean({ title: 'I take responsibility for this release', default: false }),
 * });
 */
export const field = { string, number, integer, boolean, select, multiSelect } as const;
