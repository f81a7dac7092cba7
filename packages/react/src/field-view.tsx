import type { FieldKind, FieldModel, FieldModelOf, NumberFieldModel, TextFieldModel } from '@elicitkit/form';
import type { ReactElement } from 'react';
import { MultiSelectInput, SelectInput } from './choice-inputs.js';
import { DateInput } from './date-input.js';
import { offsetOf } from './date-time.js';
import { CHECKBOX, CHOICE, CHOICES, type DraftRule, TYPED } from './drafts.js';
import { CheckboxInput, TextInput } from './field-inputs.js';
import type { ControlProps, FieldProps, TextLike } from './field-props.js';
import type { Labels } from './labels.js';

/** How React draws one kind of field, and how its control holds the value. */
export interface KindView<M extends FieldModel> {
  /** The control. */
  Control(props: ControlProps<M>): ReactElement;
  /** The constraint hint under the control ('' for none). */
  hint(field: M, labels: Labels): string;
  draft: DraftRule<M>;
  /** How the `<input>` of a typed kind is set up. */
  input?: TextLike;
}

/** A kind typed into one `<input>`. */
function typed<M extends TextFieldModel | NumberFieldModel>(
  input: TextLike,
  hint: (field: M, labels: Labels) => string,
): KindView<M> {
  return { Control: TextInput, hint, draft: TYPED, input };
}

const noHint = () => '';
const rangeHint = (f: FieldModelOf<'number' | 'integer'>, labels: Labels) =>
  labels.hint.range(f.minimum, f.maximum, f.kind === 'integer');

/**
 * Every kind, one entry each: a new kind is a compile error here until React can draw it.
 * Numbers use a text input with a numeric keyboard rather than `type="number"`, which empties
 * what it cannot parse (the person would see "three" while the form holds nothing).
 */
const KIND_VIEWS = {
  text: typed({ type: 'text', spellCheck: true }, (f, labels) => labels.hint.chars(f.minLength, f.maxLength)),
  // Plain text inputs with the keyboard for their kind: an email or url input trims, drops line
  // breaks and may rewrite a domain in what it shows, so what the person saw would not be what is sent.
  email: typed({ type: 'text', inputMode: 'email' }, (_f, labels) => labels.hint.email),
  uri: typed({ type: 'text', inputMode: 'url' }, (_f, labels) => labels.hint.uri),
  // Typed as YYYY-MM-DD (what the label and the wire say), with a calendar button: the native
  // date input would show the browser's locale format (mm/dd/yyyy) beside a "(YYYY-MM-DD)" title.
  date: { Control: DateInput, hint: (_f, labels) => labels.hint.date, draft: TYPED },
  // The local-time hint names the browser's offset: the person types their own clock time.
  'date-time': typed({ type: 'datetime-local', localTime: true }, (_f, labels) =>
    labels.hint.localTime(offsetOf(new Date())),
  ),
  number: typed({ type: 'text', inputMode: 'decimal' }, rangeHint),
  integer: typed({ type: 'text', inputMode: 'numeric' }, rangeHint),
  boolean: { Control: CheckboxInput, hint: noHint, draft: CHECKBOX },
  select: { Control: SelectInput, hint: noHint, draft: CHOICE },
  multiselect: {
    Control: MultiSelectInput,
    hint: (f, labels) => labels.hint.choices(f.minItems, f.maxItems),
    draft: CHOICES,
  },
} satisfies { [K in FieldKind]: KindView<FieldModelOf<K>> };

/** How React draws this field. */
export function viewOf(field: FieldModel): KindView<FieldModel> {
  if (!Object.hasOwn(KIND_VIEWS, field.kind)) throw new TypeError(`Unknown field kind ${JSON.stringify(field.kind)}.`);
  return KIND_VIEWS[field.kind] as KindView<FieldModel>;
}

/** One field of the model, drawn with the control that suits its kind. */
export function FieldView(props: FieldProps) {
  const { Control, hint, input } = viewOf(props.field);
  return <Control {...props} hint={hint(props.field, props.labels)} {...(input ? { input } : {})} />;
}
