import type { FieldModel, Issue } from '@elicitkit/form';
import type { HTMLInputTypeAttribute } from 'react';
import type { Draft } from './drafts.js';
import type { Labels } from './labels.js';

// The props of a field and of its kind's control: types only, shared by the controls
// (`field-inputs.tsx`, `choice-inputs.tsx`, `date-input.tsx`), the parts they are drawn with
// (`field-parts.tsx`) and the view that picks one (`field-view.tsx`), none importing another for them.

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

/** How a typed kind's `<input>` is set up. */
export interface TextLike {
  type: HTMLInputTypeAttribute;
  /** The on-screen keyboard for numbers, addresses and links. */
  inputMode?: 'numeric' | 'decimal' | 'email' | 'url';
  /** Free text is spell-checked; addresses, dates and numbers are not. */
  spellCheck?: boolean;
  /** The control shows local time while the draft holds an ISO date-time with the person's offset. */
  localTime?: boolean;
}

/** What a kind's control gets: the field's props and the constraint hint its kind shows. */
export type ControlProps<F extends FieldModel = FieldModel> = FieldProps<F> & {
  /** Drawn under the control ('' for none). */
  hint: string;
  /** How the `<input>` of a typed kind is set up. */
  input?: TextLike;
};
