/**
 * The boolean kind: a yes/no answer, often a confirmation. Wire parse, field model, value check,
 * coercion (yes/no in English and Chinese), downgrade (the one default 2025-06-18 keeps), lint
 * (EK06: a confirmation must not default to yes) and the `field.boolean` builder.
 */
import {
  type Described,
  type FieldDef,
  type HasDefault,
  makeField,
  type Strict,
  withOptions,
} from '../builder/field.js';
import { own } from '../json.js';
import { finding } from '../lint/rules.js';
import { CONFIRMATION, findTerm } from '../lint/words.js';
import { issue } from '../validate/issues.js';
import type { BooleanFieldSchema } from '../wire.js';
import type { FieldBase, FieldSpec } from './spec.js';
import { COMMON_KEYWORDS, common, defaultOf, finish } from './wire-parse.js';

export interface BooleanFieldModel extends FieldBase {
  kind: 'boolean';
  default?: boolean;
  /**
   * The box stands for "I agree / I confirm" (its name, title or description says so, the words
   * of rules EK06 and EK10): renderers mark it and check it before sending, since a server that
   * asks for a confirmation refuses to act on an unticked one.
   */
  confirmation?: true;
}

const YES = new Set(['y', 'yes', 'true', 't', '1', 'on', '是', '对', '确认']);
const NO = new Set(['n', 'no', 'false', 'f', '0', 'off', '否', '不', '不是']);

export const BOOLEAN: FieldSpec<BooleanFieldSchema, BooleanFieldModel> = {
  claims: (raw) => own(raw, 'type') === 'boolean',

  parse: (name, raw) =>
    finish(name, raw, COMMON_KEYWORDS, { type: 'boolean', ...common(raw) }, defaultOf(name, raw, 'boolean')),

  describe(field, base) {
    const model: BooleanFieldModel = { ...base, kind: 'boolean' };
    if (field.default !== undefined) model.default = field.default;
    if (confirms(model)) model.confirmation = true;
    return model;
  },

  check: () => (value, name, label) =>
    typeof value === 'boolean' ? [] : [issue([name], 'type', `${label} must be true or false.`)],

  maxString: () => undefined,

  coerce(_model, _input, text) {
    const word = text.toLowerCase();
    if (YES.has(word)) return { ok: true, value: true };
    if (NO.has(word)) return { ok: true, value: false };
    return { ok: false, message: `Answer yes or no (got "${text}").` };
  },

  blank: () => undefined,

  // The one kind whose default 2025-06-18 keeps.
  downgrade: (_name, field) => ({ field, losses: [] }),

  lint: confirmationDefault,
};

/** Whether a yes/no field stands for "I agree" (by its name, title or description). */
function confirms(f: Pick<BooleanFieldModel, 'name' | 'label' | 'help'>): boolean {
  return (
    (findTerm(f.name, CONFIRMATION) ??
      findTerm(f.label, CONFIRMATION) ??
      (f.help ? findTerm(f.help, CONFIRMATION) : undefined)) !== undefined
  );
}

/** EK06: a confirmation checkbox that is already ticked, so pressing Enter agrees without reading. */
function confirmationDefault(f: BooleanFieldModel) {
  if (f.default !== true || !confirms(f)) return [];
  return [
    finding(
      'EK06',
      `confirmation "${f.name}" defaults to true, so pressing Enter agrees without reading`,
      'Set default: false (or leave it out) so that agreeing takes a deliberate act.',
      f.name,
    ),
  ];
}

export interface BooleanOptions extends Described {
  default?: boolean;
}

/**
 * A yes/no field. A confirmation must default to `false` (rule EK06).
 *
 * @example
 * field.boolean({ title: 'I have reviewed the change', default: false })
 */
export function boolean<const O extends BooleanOptions = Record<never, never>>(
  options?: Strict<O, BooleanOptions>,
): FieldDef<boolean, false, HasDefault<O>> {
  return makeField(withOptions({ type: 'boolean' }, options));
}
