import {
  type BooleanFieldModel,
  type Coerced,
  type ContentValue,
  coerceValue,
  type FieldModel,
  type MultiSelectFieldModel,
  type SelectFieldModel,
} from '@elicitkit/form';
import { isoToLocal } from './date-time.js';
import { plain } from './text.js';

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

/**
 * Typed text, read with `coerceValue` like every other renderer. It starts from what its one-line
 * input can show, so what the person sees and keeps is what is sent: a default's control and
 * bidi characters removed (`\u202Eniam-erutaef` would read "feature-main"), its line breaks made
 * spaces (an input shows none), and a date-time no `datetime-local` input can show (a year
 * before 1) left empty for the person to fill.
 */
export const TYPED: DraftRule<FieldModel> = {
  toDraft: (field, value) => {
    if (value === undefined || Array.isArray(value)) return '';
    const text = String(value);
    if (field.kind === 'date-time') return isoToLocal(text) === '' ? '' : text;
    return plain(text.replace(/\r\n?|\n/g, ' '));
  },
  read: (field, draft) => coerceValue(field, typeof draft === 'string' ? draft : ''),
};

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
