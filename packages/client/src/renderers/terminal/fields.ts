import { confirm, isCancel, log, multiselect, password, select, text } from '@clack/prompts';
import {
  type ContentValue,
  coerceValue,
  type FieldModel,
  type FormSchema,
  type MultiSelectFieldModel,
  type SelectFieldModel,
  validator,
} from '@elicitkit/form';
import { clean, fieldMessage } from './format.js';
import { CANCEL, type Cancel, type Io, prompted } from './io.js';

const EMPTY: unique symbol = Symbol('elicitkit.terminal.empty');

/** The value of one field as the person answers it: a value, `undefined` (left empty) or CANCEL. */
export type FieldResult = ContentValue | undefined | Cancel;

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
  const check = fieldCheck(schema, field);
  const message = fieldMessage(field);
  switch (field.kind) {
    case 'select':
      return askSelect(io, field, current, message);
    case 'multiselect':
      return askMulti(io, field, current, check, message);
    case 'boolean': {
      const initialValue = current === true;
      const answer = await prompted(io, (s) => confirm({ ...s, message, active: 'Yes', inactive: 'No', initialValue }));
      return isCancel(answer) ? CANCEL : answer;
    }
    default: {
      const validate = (raw: string | undefined) => {
        const read = coerceValue(field, raw ?? '');
        return read.ok ? check(read.value) : read.message;
      };
      const initial = current === undefined ? {} : { initialValue: String(current) };
      // Secrets are masked on screen; the person has been warned about them already.
      const raw = await prompted(io, (s) =>
        secret
          ? password({ ...s, message, validate })
          : text({ ...s, message, ...initial, ...placeholder(field), validate }),
      );
      if (isCancel(raw)) return CANCEL;
      const read = coerceValue(field, raw);
      return read.ok ? read.value : undefined;
    }
  }
}

async function askSelect(
  io: Io,
  field: SelectFieldModel,
  current: ContentValue | undefined,
  message: string,
): Promise<FieldResult> {
  const options: { value: string | typeof EMPTY; label: string; hint?: string }[] = field.options.map(optionOf);
  if (!field.required) options.push({ value: EMPTY, label: '(leave empty)' });
  const initial = typeof current === 'string' ? { initialValue: current } : {};
  const picked = await prompted(io, (s) => select<string | typeof EMPTY>({ ...s, message, options, ...initial }));
  if (isCancel(picked)) return CANCEL;
  return picked === EMPTY ? undefined : picked;
}

async function askMulti(
  io: Io,
  field: MultiSelectFieldModel,
  current: ContentValue | undefined,
  check: (value: ContentValue | undefined) => string | undefined,
  message: string,
): Promise<FieldResult> {
  let chosen = Array.isArray(current) ? current : [];
  const options = field.options.map(optionOf);
  // clack's multiselect knows only "at least one"; minItems/maxItems are checked here and the
  // person picks again with their selection kept.
  for (;;) {
    const initialValues = chosen;
    const picked = await prompted(io, (s) =>
      multiselect<string>({ ...s, message, options, initialValues, required: false }),
    );
    if (isCancel(picked)) return CANCEL;
    chosen = field.options.map((o) => o.value).filter((v) => picked.includes(v));
    // Choosing nothing for an optional field leaves it empty, rather than sending [].
    const value = chosen.length === 0 && !field.required ? undefined : chosen;
    const problem = check(value);
    if (problem === undefined) return value;
    log.error(problem, { output: io.output });
  }
}

/** The value goes in the hint only when the title does not already show it. */
function optionOf(option: { value: string; label: string }): { value: string; label: string; hint?: string } {
  const label = clean(option.label);
  return label.includes(option.value)
    ? { value: option.value, label }
    : { value: option.value, label, hint: clean(option.value) };
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
    return result.ok ? undefined : result.issues.map((i) => i.message).join(' ');
  };
}

function placeholder(field: FieldModel): { placeholder?: string } {
  switch (field.kind) {
    case 'date':
      return { placeholder: 'YYYY-MM-DD' };
    case 'date-time':
      return { placeholder: '2026-03-01T09:30:00Z' };
    case 'email':
      return { placeholder: 'name@example.com' };
    case 'uri':
      return { placeholder: 'https://' };
    default:
      return {};
  }
}
