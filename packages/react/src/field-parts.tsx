import type { FieldModel, Issue } from '@elicitkit/form';
import type { ReactNode } from 'react';
import { offsetOf } from './date-time.js';
import type { Draft } from './form-state.js';
import type { Labels } from './labels.js';
import { plain } from './text.js';

/** What every field control gets from the form. */
export interface FieldProps<F extends FieldModel = FieldModel> {
  field: F;
  /** Unique per form (from `useId`); help, hint and error ids derive from it. */
  id: string;
  draft: Draft;
  issues: Issue[];
  /** Mask the input: the server asks for something that looks like a secret. */
  secret: boolean;
  labels: Labels;
  onDraft: (draft: Draft, touch?: boolean) => void;
  onBlur: () => void;
}

/** The ids and texts around a control: help (description), constraint hint, error. */
export interface Described {
  describedBy: string | undefined;
  invalid: boolean;
  errorId: string;
  extra: ReactNode;
}

export function describe({ field, id, issues, labels }: FieldProps): Described {
  const help = field.help === undefined ? '' : plain(field.help);
  const hint = hintOf(field, labels);
  const errors = issues.map((i) => labels.issue(i.code, field) ?? plain(i.message));
  const ids = { help: `${id}-help`, hint: `${id}-hint`, error: `${id}-error` };
  const describedBy = [help && ids.help, hint && ids.hint, errors.length > 0 && ids.error].filter(Boolean).join(' ');
  return {
    describedBy: describedBy === '' ? undefined : describedBy,
    invalid: errors.length > 0,
    errorId: ids.error,
    extra: (
      <>
        {help && (
          <p id={ids.help} className="ek-help">
            {help}
          </p>
        )}
        {hint && (
          // The local-time hint names the browser's offset, which a server render cannot know.
          <p id={ids.hint} className="ek-hint" suppressHydrationWarning>
            {hint}
          </p>
        )}
        {errors.length > 0 && (
          <p id={ids.error} className="ek-error">
            {errors.join(' ')}
          </p>
        )}
      </>
    ),
  };
}

/** The `*` after a required field's label; the control itself carries `required` for assistive tech. */
export function RequiredMark({ field }: { field: FieldModel }) {
  return showsRequired(field) ? (
    <span className="ek-required" aria-hidden="true">
      *
    </span>
  ) : null;
}

/** The label above a single control, bound to it by `id`, with the required mark. */
export function LabelRow({ field, id }: { field: FieldModel; id: string }) {
  return (
    <div className="ek-label-row">
      <label htmlFor={id} className="ek-label">
        {plain(field.label)}
      </label>
      <RequiredMark field={field} />
    </div>
  );
}

/** Whether a field is drawn as required: every required field but a checkbox. */
export function showsRequired(field: FieldModel): boolean {
  return field.required && field.kind !== 'boolean';
}

function hintOf(field: FieldModel, labels: Labels): string {
  switch (field.kind) {
    case 'text':
      return labels.hint.chars(field.minLength, field.maxLength);
    case 'email':
      return labels.hint.email;
    case 'uri':
      return labels.hint.uri;
    case 'date-time':
      return labels.hint.localTime(offsetOf(new Date()));
    case 'number':
    case 'integer':
      return labels.hint.range(field.minimum, field.maximum, field.kind === 'integer');
    case 'multiselect':
      return labels.hint.choices(field.minItems, field.maxItems);
    case 'date':
    case 'boolean':
    case 'select':
      return '';
  }
}
