import { YES_NO } from '../clients/adapt.js';
import { describeFields, type FieldModel } from '../fields.js';
import { CONFIRMATION, findTerm, TYPED_CONFIRMATION } from './words.js';

/**
 * A field that stands for "I agree": a checkbox named or titled like a confirmation, or a text
 * field the person types to confirm (the table name, "DELETE").
 */
export interface Confirmation {
  field: string;
  kind: 'checkbox' | 'typed';
  /** The word that gave it away. */
  term: string;
}

/** A boolean whose name or title is a confirmation word (rules EK06 and EK10 use the same test). */
export function confirmingCheckbox(f: FieldModel): string | undefined {
  if (f.kind !== 'boolean') return undefined;
  return findTerm(f.name, CONFIRMATION) ?? findTerm(f.label, CONFIRMATION);
}

/**
 * A Yes/No choice named or titled like a confirmation: the checkbox as a client that cannot show
 * booleans is asked it (`booleanAsChoice`), so it confirms just the same.
 */
function confirmingChoice(f: FieldModel): string | undefined {
  if (f.kind !== 'select') return undefined;
  const values = f.options.map((o) => o.value).sort();
  if (values.length !== 2 || values[0] !== YES_NO.no || values[1] !== YES_NO.yes) return undefined;
  return findTerm(f.name, CONFIRMATION) ?? findTerm(f.label, CONFIRMATION);
}

function typedConfirmation(f: FieldModel): string | undefined {
  if (f.kind !== 'text') return undefined;
  for (const text of [f.name, f.label]) {
    const term = findTerm(text, TYPED_CONFIRMATION) ?? findTerm(text, CONFIRMATION);
    if (term) return term;
  }
  return undefined;
}

/**
 * The confirmations a form asks for, read from its field names and titles with the same word
 * lists as lint. Accepts any JSON; fields outside the restricted subset are ignored.
 *
 * @example
 * confirmationsOf({ type: 'object', properties: { confirmed: { type: 'boolean', title: 'I confirm' } } })
 * // → [{ field: 'confirmed', kind: 'checkbox', term: 'confirmed' }]
 */
export function confirmationsOf(schema: unknown): Confirmation[] {
  const out: Confirmation[] = [];
  for (const f of describeFields(schema)) {
    const checkbox = confirmingCheckbox(f) ?? confirmingChoice(f);
    if (checkbox) out.push({ field: f.name, kind: 'checkbox', term: checkbox });
    const typed = typedConfirmation(f);
    if (typed) out.push({ field: f.name, kind: 'typed', term: typed });
  }
  return out;
}
