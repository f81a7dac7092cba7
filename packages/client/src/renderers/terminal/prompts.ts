import { isCancel } from '@clack/core';
import {
  type BooleanFieldModel,
  type ContentValue,
  coerceValue,
  type FieldModel,
  type MultiSelectFieldModel,
  type SelectFieldModel,
} from '@elicitkit/form';
import { confirmYes, pickMany, pickOne, typeSecret, typeText } from './controls.js';
import { say } from './draw.js';
import { clean } from './format.js';
import { CANCEL, type Cancel, type Io, prompted } from './io.js';

const EMPTY: unique symbol = Symbol('elicitkit.terminal.empty');

/** The value of one field as the person answers it: a value, `undefined` (left empty) or CANCEL. */
export type FieldResult = ContentValue | undefined | Cancel;

/** What every prompt gets besides its field: the line to show and the field's own validation. */
export interface Asking {
  message: string;
  /** The form's rules for this field alone: a message when the value breaks them. */
  check: (value: ContentValue | undefined) => string | undefined;
  /** Mask the input: the server asks for something that looks like a secret. */
  secret: boolean;
}

/** One line of typed text, read with `coerceValue` and validated as it is typed. */
export async function askText(
  io: Io,
  field: FieldModel,
  current: ContentValue | undefined,
  { message, check, secret }: Asking,
  placeholder?: string,
): Promise<FieldResult> {
  const validate = (raw: string | undefined) => {
    const read = coerceValue(field, raw ?? '');
    return read.ok ? check(read.value) : read.message;
  };
  // Pre-filled as it is drawn, control characters removed and on one line, so what the person
  // sees and keeps is what is sent (a server's default could otherwise write the clipboard).
  const initial = current === undefined ? {} : { initialValue: oneLine(String(current)) };
  // Secrets are masked on screen; the person has been warned about them already.
  const raw = await prompted(io, (s) =>
    secret
      ? typeSecret({ ...s, message, validate })
      : typeText({ ...s, message, ...initial, ...(placeholder ? { placeholder } : {}), validate }),
  );
  if (isCancel(raw)) return CANCEL;
  const read = coerceValue(field, raw ?? '');
  return read.ok ? read.value : undefined;
}

/** y/N, with the current answer (or the default) pre-selected. */
export async function askConfirm(
  io: Io,
  _field: BooleanFieldModel,
  current: ContentValue | undefined,
  { message }: Asking,
): Promise<FieldResult> {
  const initialValue = current === true;
  const answer = await prompted(io, (s) => confirmYes({ ...s, message, initialValue }));
  return isCancel(answer) ? CANCEL : answer === true;
}

/** Arrow keys over the options; an optional field can be left empty. */
export async function askSelect(
  io: Io,
  field: SelectFieldModel,
  current: ContentValue | undefined,
  { message }: Asking,
): Promise<FieldResult> {
  const options: { value: string | typeof EMPTY; label: string; hint?: string }[] = field.options.map(optionOf);
  if (!field.required) options.push({ value: EMPTY, label: '(leave empty)' });
  const initial = typeof current === 'string' ? { initialValue: current } : {};
  const picked = await prompted(io, (s) => pickOne<string | typeof EMPTY>({ ...s, message, options, ...initial }));
  if (isCancel(picked)) return CANCEL;
  return picked === EMPTY ? undefined : picked;
}

/** Space to toggle; the selection is checked against minItems/maxItems before it is taken. */
export async function askMulti(
  io: Io,
  field: MultiSelectFieldModel,
  current: ContentValue | undefined,
  { message, check }: Asking,
): Promise<FieldResult> {
  let chosen = Array.isArray(current) ? current : [];
  const options = field.options.map(optionOf);
  // clack's multiselect knows only "at least one"; minItems/maxItems are checked here and the
  // person picks again with their selection kept.
  for (;;) {
    const initialValues = chosen;
    const picked = await prompted(io, (s) => pickMany<string>({ ...s, message, options, initialValues }));
    if (isCancel(picked)) return CANCEL;
    const ticked = picked ?? [];
    chosen = field.options.map((o) => o.value).filter((v) => ticked.includes(v));
    // Choosing nothing for an optional field leaves it empty, rather than sending [].
    const value = chosen.length === 0 && !field.required ? undefined : chosen;
    const problem = check(value);
    if (problem === undefined) return value;
    say(io.output, 'error', clean(problem));
  }
}

/** The value goes in the hint only when the title does not already show it. */
function optionOf(option: { value: string; label: string }): { value: string; label: string; hint?: string } {
  const label = clean(option.label);
  return label.includes(option.value)
    ? { value: option.value, label }
    : { value: option.value, label, hint: clean(option.value) };
}

/** A value fit for a one-line input: no control characters, line breaks as spaces. */
function oneLine(text: string): string {
  return clean(text).replace(/\n/g, ' ');
}
