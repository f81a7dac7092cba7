import { styleText } from 'node:util';
import { type ContentValue, type FieldModel, type FormSchema, validator } from '@elicitkit/form';
import { clean } from './format.js';
import type { Io } from './io.js';
import { viewOf } from './kinds.js';
import type { FieldResult } from './prompts.js';

export type { FieldResult };

/**
 * Asks one field with the prompt that suits its kind, pre-filled with `current` (the previous
 * answer or the default). Text-like fields validate inline, so a mistake is corrected on the spot.
 */
export async function askField(
  io: Io,
  schema: FormSchema,
  field: FieldModel,
  current: ContentValue | undefined,
  secret: boolean,
): Promise<FieldResult> {
  return viewOf(field).ask(io, field, current, {
    message: fieldMessage(field),
    check: fieldCheck(schema, field),
    secret,
  });
}

const CONFIRMATION_NOTE = 'Answer Yes to confirm: without it the request is refused.';

/** The prompt line for a field: its label, whether it may be left empty, its help and limits. */
export function fieldMessage(field: FieldModel): string {
  const optional = field.required ? '' : styleText('dim', ' (optional)');
  const limits = viewOf(field).limits(field);
  // A label that states them already ("From (YYYY-MM-DD)") is not followed by them again.
  const shown = limits && !field.label.includes(limits) ? ` ${styleText('dim', `[${limits}]`)}` : '';
  const lines = [`${clean(field.label)}${optional}${shown}`];
  if (field.help) lines.push(styleText('dim', clean(field.help)));
  if (field.kind === 'boolean' && field.confirmation) lines.push(styleText('dim', CONFIRMATION_NOTE));
  return lines.join('\n');
}

/** How an answer reads in the review step. Secrets are never echoed back. */
export function showValue(field: FieldModel, value: ContentValue | undefined, secret: boolean): string {
  if (value === undefined) return styleText('dim', '(empty)');
  if (secret) return '••••••';
  return viewOf(field).show(field, value);
}

/** Validates one field alone, with the form's own rules (bounds, formats, required). */
function fieldCheck(schema: FormSchema, field: FieldModel): (value: ContentValue | undefined) => string | undefined {
  const property = schema.properties[field.name];
  if (!property) throw new TypeError(`Field "${field.name}" is not in the form.`);
  const one = validator({
    type: 'object',
    properties: { [field.name]: property },
    ...(field.required ? { required: [field.name] } : {}),
  });
  return (value) => {
    const result = one(value === undefined ? {} : { [field.name]: value });
    // Issue messages quote the field's title, which the server chose.
    return result.ok ? undefined : clean(result.issues.map((i) => i.message).join(' '));
  };
}
