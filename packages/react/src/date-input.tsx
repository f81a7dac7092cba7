import type { TextFieldModel } from '@elicitkit/form';
import { useRef } from 'react';
import { describe, LabelRow } from './field-parts.js';
import type { ControlProps } from './field-props.js';

/**
 * A date typed as YYYY-MM-DD — the format the hint states, the wire carries and servers print in
 * their titles — with a calendar button that opens the browser's picker on a hidden native date
 * input, whose value is YYYY-MM-DD whatever the browser shows.
 */
export function DateInput(props: ControlProps<TextFieldModel>) {
  const { field, id, draft, labels, onDraft, onBlur } = props;
  const { describedBy, invalid, errorId, extra } = describe(props);
  const picker = useRef<HTMLInputElement>(null);
  const text = typeof draft === 'string' ? draft : '';
  const open = () => {
    const input = picker.current;
    if (!input) return;
    // showPicker needs the click's user activation; older browsers take focus + click instead.
    if (typeof input.showPicker === 'function') input.showPicker();
    else input.click();
  };
  return (
    <div className="ek-field" data-invalid={invalid || undefined}>
      <LabelRow field={field} id={id} />
      <div className="ek-date-row">
        <input
          id={id}
          name={field.name}
          className="ek-input"
          type="text"
          inputMode="numeric"
          placeholder="YYYY-MM-DD"
          autoComplete="off"
          spellCheck={false}
          value={text}
          required={field.required}
          aria-invalid={invalid || undefined}
          aria-describedby={describedBy}
          aria-errormessage={invalid ? errorId : undefined}
          onChange={(event) => onDraft(event.currentTarget.value)}
          onBlur={onBlur}
        />
        <button type="button" className="ek-button ek-calendar" aria-label={labels.calendar} onClick={open}>
          <svg aria-hidden="true" width="16" height="16" viewBox="0 0 16 16" fill="none" stroke="currentColor">
            <rect x="1.5" y="2.5" width="13" height="12" rx="1.5" />
            <path d="M1.5 6.5h13M5 1v3M11 1v3" />
          </svg>
        </button>
        <input
          ref={picker}
          type="date"
          className="ek-date-picker"
          tabIndex={-1}
          aria-hidden="true"
          value={/^\d{4}-\d{2}-\d{2}$/.test(text) ? text : ''}
          onChange={(event) => onDraft(event.currentTarget.value, true)}
        />
      </div>
      {extra}
    </div>
  );
}
