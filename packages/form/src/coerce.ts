import { describeFields } from './fields.js';
import { show } from './json.js';
import { type FieldModel, specOf } from './kinds/registry.js';
import type { Coerced } from './kinds/spec.js';
import { type Issue, issue, MAX_LISTED, moreUnknownKeys, type Validation } from './validate/issues.js';
import { validate } from './validate/validate.js';
import type { FormContent, FormSchema } from './wire.js';

export type { Coerced };

/**
 * Turns what a person typed into the field's value: numbers from digits, booleans from yes/no
 * (y/n, true/false, 是/否), choices from their value or title (any case), lists from commas.
 * Empty input means "left empty". Bounds and formats are left to `validate`.
 *
 * @example
 * coerceValue(field, '3')     // integer field → { ok: true, value: 3 }
 * coerceValue(field, 'maybe') // boolean field → { ok: false, message: 'Answer yes or no (got "maybe").' }
 */
export function coerceValue(field: FieldModel, input: string): Coerced {
  const spec = specOf(field);
  const text = input.trim();
  if (text === '') return { ok: true, value: spec.blank(field) };
  return spec.coerce(field, input, text);
}

/**
 * Reads a whole form from text inputs keyed by field name (a text renderer, `k=v` arguments),
 * then validates the result. Unknown keys are reported, never dropped silently.
 *
 * @example
 * coerceContent(schema, { replicas: '3', notify: 'email, sms', confirmed: 'n' })
 */
export function coerceContent(schema: FormSchema, raw: Readonly<Record<string, string>>): Validation<FormContent> {
  const fields = new Map(describeFields(schema).map((f) => [f.name, f]));
  const content: FormContent = {};
  const issues: Issue[] = [];
  let unknown = 0;
  for (const key of Object.keys(raw)) {
    const field = fields.get(key);
    if (!field) {
      if (unknown++ < MAX_LISTED)
        issues.push(issue([key], 'unknown_field', `${show(key)} is not a field of this form.`));
      continue;
    }
    const result = coerceValue(field, raw[key] ?? '');
    if (!result.ok) issues.push(issue([key], 'type', `"${field.label}": ${result.message}`));
    else if (result.value !== undefined) content[key] = result.value;
  }
  if (unknown > MAX_LISTED) issues.push(moreUnknownKeys(unknown - MAX_LISTED));
  if (issues.length > 0) return { ok: false, issues };
  return validate(schema, content);
}
