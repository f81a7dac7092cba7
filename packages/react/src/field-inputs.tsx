import type { BooleanFieldModel, NumberFieldModel, TextFieldModel } from '@elicitkit/form';
import { isoToLocal, localToIso } from './date-time.js';
import { describe, type FieldProps, LabelRow } from './field-parts.js';
import { plain } from './text.js';

const TYPES: Record<TextFieldModel['kind'] | NumberFieldModel['kind'], string> = {
  text: 'text',
  number: 'text',
  integer: 'text',
  email: 'email',
  uri: 'url',
  date: 'date',
  'date-time': 'datetime-local',
};

/**
 * Text, email, URL, date, date-time, number and integer. Numbers use a text input with a numeric
 * keyboard rather than `type="number"`, which empties what it cannot parse (the person would see
 * "three" while the form holds nothing); `coerceValue` reads the text and says what is wrong.
 */
export function TextInput(props: FieldProps<TextFieldModel | NumberFieldModel>) {
  const { field, id, draft, secret, onDraft, onBlur } = props;
  const { describedBy, invalid, errorId, extra } = describe(props);
  const text = typeof draft === 'string' ? draft : '';
  const dateTime = field.kind === 'date-time' && !secret;
  const numeric = field.kind === 'number' || field.kind === 'integer';
  const type = secret ? 'password' : TYPES[field.kind];
  return (
    <div className="ek-field" data-invalid={invalid || undefined}>
      <LabelRow field={field} id={id} />
      <input
        id={id}
        name={field.name}
        className="ek-input"
        type={type}
        value={dateTime ? isoToLocal(text) : text}
        step={dateTime ? 1 : undefined}
        suppressHydrationWarning={dateTime}
        inputMode={numeric ? (field.kind === 'integer' ? 'numeric' : 'decimal') : undefined}
        autoComplete={secret ? 'off' : undefined}
        spellCheck={field.kind === 'text' && !secret ? undefined : false}
        required={field.required}
        aria-invalid={invalid || undefined}
        aria-describedby={describedBy}
        aria-errormessage={invalid ? errorId : undefined}
        onChange={(event) => onDraft(dateTime ? localToIso(event.currentTarget.value) : event.currentTarget.value)}
        onBlur={onBlur}
      />
      {extra}
    </div>
  );
}

/** A checkbox; a required box left unchecked answers "no" (see `readDraft`), so it carries no `*`. */
export function CheckboxInput(props: FieldProps<BooleanFieldModel>) {
  const { field, id, draft, onDraft, onBlur } = props;
  const { describedBy, invalid, errorId, extra } = describe(props);
  return (
    <div className="ek-field ek-field-boolean" data-invalid={invalid || undefined}>
      <div className="ek-check-row">
        <input
          id={id}
          name={field.name}
          type="checkbox"
          className="ek-checkbox"
          checked={draft === true}
          aria-invalid={invalid || undefined}
          aria-describedby={describedBy}
          aria-errormessage={invalid ? errorId : undefined}
          onChange={(event) => onDraft(event.currentTarget.checked, true)}
          onBlur={onBlur}
        />
        {/* No required mark: an unticked box is an answer ("no"), not a missing one. */}
        <label htmlFor={id} className="ek-label">
          {plain(field.label)}
        </label>
      </div>
      {extra}
    </div>
  );
}
