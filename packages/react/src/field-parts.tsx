import type { FieldModel } from '@elicitkit/form';
import type { ReactNode } from 'react';
import type { ControlProps } from './field-props.js';
import { plain } from './text.js';

/** The ids and texts around a control: help (description), constraint hint, error. */
export interface Described {
  describedBy: string | undefined;
  invalid: boolean;
  errorId: string;
  extra: ReactNode;
}

export function describe({ field, id, issues, labels, hint }: ControlProps): Described {
  const help = field.help === undefined ? '' : plain(field.help);
  // What a locale's labels make of an issue may quote the field's title: cleaned as the title is.
  const errors = issues.map((i) => plain(labels.issue(i.code, field) ?? i.message));
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
