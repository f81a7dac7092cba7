import { describeFields, type FieldModel, type OptionModel } from './fields.js';
import { type Issue, issue, type Validation } from './validate/issues.js';
import { validate } from './validate/validate.js';
import type { ContentValue, FormContent, FormSchema } from './wire.js';

/** The result of reading one typed-in value: the value (or `undefined` for "left empty"), or why not. */
export type Coerced = { ok: true; value: ContentValue | undefined } | { ok: false; message: string };

const YES = new Set(['y', 'yes', 'true', 't', '1', 'on', '是', '对', '确认']);
const NO = new Set(['n', 'no', 'false', 'f', '0', 'off', '否', '不', '不是']);
const NUMBER = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;
const INTEGER = /^[+-]?\d+$/;
/** Commas (ASCII and CJK) and the ideographic enumeration comma separate multi-select entries. */
const LIST_SEPARATOR = /[,，、]/;

/**
 * Turns what a person typed into the field's value: numbers from digits, booleans from yes/no
 * (y/n, true/false, 是/否), choices from their value or title (any case), lists from commas.
 * Empty input means "left empty". Bounds and formats are left to `validate`.
 *
 * @example
 * coerceValue(field, '3')     // integer field → { ok: true, value: 3 }
 * coerceValue(field, 'maybe') // boolean field → { ok: false, message: 'Answer yes or no.' }
 */
export function coerceValue(field: FieldModel, input: string): Coerced {
  const text = input.trim();
  if (text === '')
    return field.kind === 'multiselect' && field.required ? { ok: true, value: [] } : { ok: true, value: undefined };
  switch (field.kind) {
    case 'text':
    case 'email':
    case 'uri':
    case 'date':
    case 'date-time':
      return { ok: true, value: field.kind === 'text' ? input : text };
    case 'number':
    case 'integer': {
      const pattern = field.kind === 'integer' ? INTEGER : NUMBER;
      const value = Number(text);
      if (!pattern.test(text) || !Number.isFinite(value)) {
        return {
          ok: false,
          message:
            field.kind === 'integer'
              ? `Type a whole number, like 3 (got "${text}").`
              : `Type a number, like 2.5 (got "${text}").`,
        };
      }
      if (field.kind === 'integer' && !Number.isSafeInteger(value))
        return { ok: false, message: `${text} is too large to be exact.` };
      return { ok: true, value };
    }
    case 'boolean': {
      const word = text.toLowerCase();
      if (YES.has(word)) return { ok: true, value: true };
      if (NO.has(word)) return { ok: true, value: false };
      return { ok: false, message: `Answer yes or no (got "${text}").` };
    }
    case 'select': {
      const option = matchOption(field.options, text);
      return option
        ? { ok: true, value: option.value }
        : { ok: false, message: `Choose one of: ${listOptions(field.options)} (got "${text}").` };
    }
    case 'multiselect': {
      const chosen: string[] = [];
      for (const part of text
        .split(LIST_SEPARATOR)
        .map((p) => p.trim())
        .filter((p) => p !== '')) {
        const option = matchOption(field.options, part);
        if (!option)
          return { ok: false, message: `"${part}" is not an option. Choose from: ${listOptions(field.options)}.` };
        if (!chosen.includes(option.value)) chosen.push(option.value);
      }
      return { ok: true, value: chosen };
    }
  }
}

/** Exact value first, then value or label ignoring case. */
export function matchOption(options: readonly OptionModel[], text: string): OptionModel | undefined {
  const exact = options.find((o) => o.value === text);
  if (exact) return exact;
  const lower = text.toLowerCase();
  return options.find((o) => o.value.toLowerCase() === lower) ?? options.find((o) => o.label.toLowerCase() === lower);
}

function listOptions(options: readonly OptionModel[]): string {
  return options.map((o) => (o.label === o.value ? o.value : `${o.value} (${o.label})`)).join(', ');
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
  for (const key of Object.keys(raw)) {
    const field = fields.get(key);
    if (!field) {
      issues.push(issue([key], 'unknown_field', `"${key}" is not a field of this form.`));
      continue;
    }
    const result = coerceValue(field, raw[key] ?? '');
    if (!result.ok) issues.push(issue([key], 'type', `"${field.label}": ${result.message}`));
    else if (result.value !== undefined) content[key] = result.value;
  }
  if (issues.length > 0) return { ok: false, issues };
  return validate(schema, content);
}
