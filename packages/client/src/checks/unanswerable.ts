import type { FormSchema } from '@elicitkit/form';

/**
 * Why a form question cannot be answered as the server sent it. `half-character`: a field's name
 * or a choice holds half of a character (a lone UTF-16
 * surrogate), which no answer can carry — UTF-8 has no way to write it, and `validate` refuses it
 * in an answer — so the person could fill it in and never send it.
 */
export type UnanswerableReason = 'half-character';

/**
 * One thing that makes a question unanswerable as sent: its reason, the field (its name as sent)
 * and where in it (its `name`, or a `choice`). A default holding one is no question at all:
 * `checkFormRequest` refuses a default that breaks its own field (EK15), and a type or format
 * holding one is outside the subset.
 *
 * @example
 * { reason: 'half-character', field: 'env', where: 'choice' }
 */
export interface Unanswerable {
  reason: UnanswerableReason;
  field: string;
  where: 'name' | 'choice';
}

/** Half of a character: a surrogate not paired with its other half. */
const HALF = /\p{Cs}/u;

/** Keys whose text is only read (a title, a help text): U+FFFD there changes no answer. */
const READ_ONLY = new Set(['title', 'description', 'enumNames']);

/**
 * What keeps `schema`'s question from being answered as sent, field by field (empty when nothing
 * does). A renderer shows the question with why, and offers only decline and cancel.
 *
 * @example
 * unanswerable({ type: 'object', properties: { 'a\ud800': { type: 'string' } } });
 * // [{ reason: 'half-character', field: 'a\ud800', where: 'name' }]
 */
export function unanswerable(schema: FormSchema): Unanswerable[] {
  const found: Unanswerable[] = [];
  for (const [field, property] of Object.entries(schema.properties)) {
    if (HALF.test(field)) {
      found.push({ reason: 'half-character', field, where: 'name' });
      continue;
    }
    if (halfIn(property)) found.push({ reason: 'half-character', field, where: 'choice' });
  }
  return found;
}

/**
 * Whether `value` (a property's schema, inside the subset) holds half a character where an answer
 * would carry it: an `enum` value, a `const` of `oneOf`/`anyOf` (of the field or its items).
 */
function halfIn(value: unknown): boolean {
  if (typeof value === 'string') return HALF.test(value);
  if (typeof value !== 'object' || value === null) return false;
  return Object.entries(value).some(
    ([key, inner]) => !(!Array.isArray(value) && READ_ONLY.has(key)) && (HALF.test(key) || halfIn(inner)),
  );
}
