import type { FieldModel, Issue } from '@elicitkit/form';
import type { ReactNode } from 'react';
import type { Draft } from './drafts.js';
import type { TextLike } from './field-inputs.js';
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

/** What a kind's control gets: the field's props and the constraint hint its kind shows. */
export type ControlProps<F extends FieldModel = FieldModel> = FieldProps<F> & {
  /** Drawn under the control ('' for none). */
  hint: string;
  /** How the `<input>` of a typed kind is set up. */
  input?: TextLike;
};

/** The ids and texts around a control: help (description), constraint hint, error. */
export interface Described {
  describedBy: string | undefined;
  invalid: boolean;
  errorId: string;
  extra: ReactNode;
}

export function describe({ field, id, issues, labels, hint }: ControlProps): Described {
  const help = field.help === undefined ? '' : plain(field.help);
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
