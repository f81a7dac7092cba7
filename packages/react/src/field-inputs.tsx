import type { BooleanFieldModel, NumberFieldModel, TextFieldModel } from '@elicitkit/form';
import { isoToLocal, localToIso } from './date-time.js';
import { describe, LabelRow } from './field-parts.js';
import type { ControlProps, TextLike } from './field-props.js';
import { plain } from './text.js';

const PLAIN: TextLike = { type: 'text', spellCheck: true };

/** Text, email, URL, date, date-time, number and integer: one `<input>`, set up by its kind. */
export function TextInput(props: ControlProps<TextFieldModel | NumberFieldModel>) {
  const { field, id, draft, secret, onDraft, onBlur, input = PLAIN } = props;
  const { describedBy, invalid, errorId, extra } = describe(props);
  const text = typeof draft === 'string' ? draft : '';
  const localTime = input.localTime === true && !secret;
  return (
    <div className="ek-field" data-invalid={invalid || undefined}>
      <LabelRow field={field} id={id} />
      <input
        id={id}
        name={field.name}
        className="ek-input"
        type={secret ? 'password' : input.type}
        value={localTime ? isoToLocal(text) : text}
        step={localTime ? 1 : undefined}
        suppressHydrationWarning={localTime}
        inputMode={input.inputMode}
        autoComplete={secret ? 'off' : undefined}
        spellCheck={input.spellCheck && !secret ? undefined : false}
        required={field.required}
        aria-invalid={invalid || undefined}
        aria-describedby={describedBy}
        aria-errormessage={invalid ? errorId : undefined}
        onChange={(event) => onDraft(localTime ? localToIso(event.currentTarget.value) : event.currentTarget.value)}
        onBlur={onBlur}
      />
      {extra}
    </div>
  );
}

/** A checkbox; a required box left unchecked answers "no" (see `readDraft`), so it carries no `*`. */
export function CheckboxInput(props: ControlProps<BooleanFieldModel>) {
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
        {/* No required mark on a plain box: unticked is an answer ("no"). A confirmation is marked. */}
        <label htmlFor={id} className="ek-label">
          {plain(field.label)}
          {field.confirmation && (
            <span className="ek-required" aria-hidden="true">
              {' '}
              *
            </span>
          )}
        </label>
      </div>
      {field.confirmation && <p className="ek-hint ek-confirmation-note">{props.labels.confirmationNote}</p>}
      {extra}
    </div>
  );
}
