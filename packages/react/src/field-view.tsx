import { MultiSelectInput, SelectInput } from './choice-inputs.js';
import { CheckboxInput, TextInput } from './field-inputs.js';
import type { FieldProps } from './field-parts.js';

/** One field of the model, drawn with the control that suits its kind. */
export function FieldView(props: FieldProps) {
  const { field } = props;
  switch (field.kind) {
    case 'boolean':
      return <CheckboxInput {...props} field={field} />;
    case 'select':
      return <SelectInput {...props} field={field} />;
    case 'multiselect':
      return <MultiSelectInput {...props} field={field} />;
    case 'text':
    case 'email':
    case 'uri':
    case 'date':
    case 'date-time':
    case 'number':
    case 'integer':
      return <TextInput {...props} field={field} />;
    default:
      return unreachable(field);
  }
}

function unreachable(field: never): never {
  throw new TypeError(`Unknown field kind ${JSON.stringify((field as { kind: unknown }).kind)}.`);
}
