import type { MultiSelectFieldModel, SelectFieldModel } from '@elicitkit/form';
import type { KeyboardEvent } from 'react';
import { describe, LabelRow, RequiredMark } from './field-parts.js';
import type { ControlProps } from './field-props.js';
import { plain } from './text.js';

/** Up to this many options show as radio buttons (all visible at once); more use a `<select>`. */
export const RADIO_LIMIT = 5;

/**
 * The control value that stands for no answer: `''`, unless an option has that value (an enum may
 * offer `""`), then one no option has. The draft of no answer is `undefined`, never this value.
 */
function noAnswerValue(field: SelectFieldModel): string {
  const values = new Set(field.options.map((o) => o.value));
  let none = '';
  // Printable: a control character in an attribute would not survive server rendering.
  for (let i = 0; values.has(none); i++) none = `ek-no-answer-${i}`;
  return none;
}

/** A single select: titles shown, values sent; an optional one can be left unanswered. */
export function SelectInput(props: ControlProps<SelectFieldModel>) {
  const { field, id, draft, labels, onDraft, onBlur } = props;
  const { describedBy, invalid, errorId, extra } = describe(props);
  const none = noAnswerValue(field);
  const chosen = typeof draft === 'string' ? draft : none;
  const choose = (value: string) => onDraft(value === none ? undefined : value, true);
  if (field.options.length > RADIO_LIMIT) {
    return (
      <div className="ek-field" data-invalid={invalid || undefined}>
        <LabelRow field={field} id={id} />
        <select
          id={id}
          name={field.name}
          className="ek-select"
          value={chosen}
          required={field.required}
          aria-invalid={invalid || undefined}
          aria-describedby={describedBy}
          aria-errormessage={invalid ? errorId : undefined}
          onChange={(event) => choose(event.currentTarget.value)}
          onBlur={onBlur}
        >
          {(!field.required || chosen === none) && (
            <option value={none} disabled={field.required}>
              {field.required ? labels.choose : labels.noChoice}
            </option>
          )}
          {field.options.map((option) => (
            <option key={option.value} value={option.value}>
              {plain(option.label)}
            </option>
          ))}
        </select>
        {extra}
      </div>
    );
  }
  const choices = [
    ...field.options.map((o) => ({ value: o.value, label: plain(o.label) })),
    ...(field.required ? [] : [{ value: none, label: labels.noChoice }]),
  ];
  // WAI-ARIA radio group: one Tab stop (the chosen radio, else the first); arrows move and choose.
  const stop = Math.max(
    0,
    choices.findIndex((c) => c.value === chosen),
  );
  const onKeyDown = (event: KeyboardEvent<HTMLInputElement>, i: number) => {
    const step = { ArrowDown: 1, ArrowRight: 1, ArrowUp: -1, ArrowLeft: -1 }[event.key];
    if (step === undefined) return;
    event.preventDefault();
    const next = (i + step + choices.length) % choices.length;
    const choice = choices[next];
    if (!choice) return;
    choose(choice.value);
    event.currentTarget.ownerDocument.getElementById(`${id}-${next}`)?.focus();
  };
  return (
    <fieldset className="ek-field ek-group" data-invalid={invalid || undefined} aria-describedby={describedBy}>
      <legend className="ek-label">
        {plain(field.label)}
        <RequiredMark field={field} />
      </legend>
      {choices.map((choice, i) => (
        <div className="ek-choice" key={choice.value}>
          <input
            id={`${id}-${i}`}
            type="radio"
            name={id}
            value={choice.value}
            checked={chosen === choice.value}
            tabIndex={i === stop ? 0 : -1}
            onKeyDown={(event) => onKeyDown(event, i)}
            required={field.required}
            aria-invalid={invalid || undefined}
            aria-errormessage={invalid ? errorId : undefined}
            onChange={() => choose(choice.value)}
            onBlur={onBlur}
          />
          <label htmlFor={`${id}-${i}`}>{choice.label}</label>
        </div>
      ))}
      {extra}
    </fieldset>
  );
}

/** A multi-select as checkboxes; at `maxItems` the rest are disabled rather than refused later. */
export function MultiSelectInput(props: ControlProps<MultiSelectFieldModel>) {
  const { field, id, draft, onDraft, onBlur } = props;
  const { describedBy, invalid, errorId, extra } = describe(props);
  const chosen = Array.isArray(draft) ? draft : [];
  const full = field.maxItems !== undefined && chosen.length >= field.maxItems;
  return (
    <fieldset className="ek-field ek-group" data-invalid={invalid || undefined} aria-describedby={describedBy}>
      <legend className="ek-label">
        {plain(field.label)}
        <RequiredMark field={field} />
      </legend>
      {field.options.map((option, i) => {
        const on = chosen.includes(option.value);
        return (
          <div className="ek-choice" key={option.value}>
            <input
              id={`${id}-${i}`}
              type="checkbox"
              name={field.name}
              value={option.value}
              checked={on}
              disabled={full && !on}
              aria-invalid={invalid || undefined}
              aria-errormessage={invalid ? errorId : undefined}
              onChange={() => onDraft(on ? chosen.filter((v) => v !== option.value) : [...chosen, option.value], true)}
              onBlur={onBlur}
            />
            <label htmlFor={`${id}-${i}`}>{plain(option.label)}</label>
          </div>
        );
      })}
      {extra}
    </fieldset>
  );
}
