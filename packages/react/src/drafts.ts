import {
  type BooleanFieldModel,
  type Coerced,
  type ContentValue,
  coerceValue,
  type FieldModel,
  type MultiSelectFieldModel,
  type NumberFieldModel,
  type SelectFieldModel,
} from '@elicitkit/form';

/**
 * What a field's control holds: the typed text (text-like and number kinds; an ISO string for
 * date-time), a checkbox state, the chosen option, or the chosen options.
 */
export type Draft = string | boolean | string[] | undefined;

/** How one kind of control holds its value: the draft it starts from, and how a draft is read back. */
export interface DraftRule<M extends FieldModel> {
  /** The draft a control starts from, for the previous answer or the default. */
  toDraft(field: M, value: ContentValue | undefined): Draft;
  /** The draft as the field's value (`undefined`: left empty), or why it cannot be read. */
  read(field: M, draft: Draft): Coerced;
}

/** Typed text, read with `coerceValue` like every other renderer. */
export const TYPED: DraftRule<FieldModel> = {
  toDraft: (_field, value) => (value === undefined || Array.isArray(value) ? '' : String(value)),
  read: (field, draft) => coerceValue(field, typeof draft === 'string' ? draft : ''),
};

/**
 * Typed digits, read as `TYPED` reads them, and refused when the number they name is not the one
 * that would be sent: past about 17 significant digits, or below the smallest double, a number is
 * rounded (0.10000000000000000001 arrives as 0.1, 1e-400 as 0), and the person should know.
 */
export const NUMERIC: DraftRule<NumberFieldModel> = {
  toDraft: TYPED.toDraft,
  read: (field, draft) => {
    const read = TYPED.read(field, draft);
    if (!read.ok || typeof read.value !== 'number') return read;
    const text = typeof draft === 'string' ? draft.trim() : '';
    if (decimalKey(text) === decimalKey(String(read.value))) return read;
    return { ok: false, message: `${text} cannot be sent exactly: it would arrive as ${read.value}.` };
  },
};

/** A decimal numeral as its significant digits and power of ten, so that `2.50` and `25e-1` compare equal. */
function decimalKey(text: string): string | undefined {
  const parts = /^([+-]?)(\d*)(?:\.(\d*))?(?:e([+-]?\d+))?$/i.exec(text);
  if (!parts) return undefined;
  const [, sign, whole = '', fraction = '', exponent = '0'] = parts;
  const digits = `${whole}${fraction}`.replace(/^0+/, '');
  const significant = digits.replace(/0+$/, '');
  if (significant === '') return '0';
  const power = Number(exponent) - fraction.length + (digits.length - significant.length);
  return `${sign === '-' ? '-' : ''}${significant}e${power}`;
}

export const CHECKBOX: DraftRule<BooleanFieldModel> = {
  toDraft: (_field, value) => (typeof value === 'boolean' ? value : undefined),
  // An untouched checkbox of a required field reads as "no": the person saw it unchecked.
  read: (field, draft) => ({
    ok: true,
    value: typeof draft === 'boolean' ? draft : field.required ? false : undefined,
  }),
};

export const CHOICE: DraftRule<SelectFieldModel> = {
  toDraft: (_field, value) => (typeof value === 'string' ? value : undefined),
  // `undefined` is no answer; `''` is an answer when an option has that value (the validator judges it).
  read: (_field, draft) => ({ ok: true, value: typeof draft === 'string' ? draft : undefined }),
};

export const CHOICES: DraftRule<MultiSelectFieldModel> = {
  toDraft: (_field, value) => (Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : []),
  read: (field, draft) => {
    const chosen = Array.isArray(draft) ? draft : [];
    const ordered = field.options.map((o) => o.value).filter((v) => chosen.includes(v));
    // Choosing nothing for an optional field leaves it out, rather than sending [].
    return { ok: true, value: ordered.length === 0 && !field.required ? undefined : ordered };
  },
};
