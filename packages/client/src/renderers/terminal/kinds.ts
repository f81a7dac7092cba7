import { styleText } from 'node:util';
import type { ContentValue, FieldKind, FieldModel, FieldModelOf } from '@elicitkit/form';
import { clean } from './format.js';
import type { Io } from './io.js';
import { type Asking, askConfirm, askMulti, askSelect, askText, type FieldResult } from './prompts.js';

/** How the terminal draws one kind of field. */
export interface KindView<M extends FieldModel> {
  /** Asks the field with the prompt that suits it. */
  ask(io: Io, field: M, current: ContentValue | undefined, asking: Asking): Promise<FieldResult>;
  /** The field's limits, shown in brackets after its label ('' for none). */
  limits(field: M): string;
  /** How an answer reads at the review step. */
  show(field: M, value: ContentValue): string;
}

/** A kind typed into one line: its limits, and an example shown while the line is empty. */
function typed<M extends FieldModel>(limits: (field: M) => string, placeholder?: string): KindView<M> {
  return {
    ask: (io, field, current, asking) => askText(io, field, current, asking, placeholder),
    limits,
    show: (_field, value) => clean(String(value)),
  };
}

const numberLimits = (f: FieldModelOf<'number' | 'integer'>) =>
  [f.kind === 'integer' ? 'whole number' : 'number', range(f.minimum, f.maximum, '')]
    .filter((s) => s !== '')
    .join(', ');

/** Every kind, one entry each: a new kind is a compile error here until the terminal can draw it. */
const KIND_VIEWS = {
  text: typed((f) => range(f.minLength, f.maxLength, 'characters')),
  email: typed(() => 'email address', 'name@example.com'),
  uri: typed(() => 'full URL', 'https://'),
  date: typed(() => 'YYYY-MM-DD', 'YYYY-MM-DD'),
  'date-time': typed(() => 'date and time with zone, e.g. 2026-03-01T09:30:00Z', '2026-03-01T09:30:00Z'),
  number: typed(numberLimits),
  integer: typed(numberLimits),
  boolean: { ask: askConfirm, limits: () => '', show: (_f, value) => (value === true ? 'Yes' : 'No') },
  select: {
    ask: askSelect,
    limits: () => '',
    show: (f, value) => clean(f.options.find((o) => o.value === value)?.label ?? String(value)),
  },
  multiselect: {
    ask: askMulti,
    limits: (f) => ['space to toggle', range(f.minItems, f.maxItems, 'choices')].filter((s) => s !== '').join(', '),
    show: (f, value) => {
      const chosen = Array.isArray(value) ? value : [];
      if (chosen.length === 0) return styleText('dim', '(none)');
      return chosen.map((v) => clean(f.options.find((o) => o.value === v)?.label ?? v)).join(', ');
    },
  },
} satisfies { [K in FieldKind]: KindView<FieldModelOf<K>> };

/** How the terminal draws this field. */
export function viewOf(field: FieldModel): KindView<FieldModel> {
  if (!Object.hasOwn(KIND_VIEWS, field.kind)) throw new TypeError(`Unknown field kind ${JSON.stringify(field.kind)}.`);
  return KIND_VIEWS[field.kind] as KindView<FieldModel>;
}

function range(min: number | undefined, max: number | undefined, unit: string): string {
  const suffix = unit ? ` ${unit}` : '';
  if (min !== undefined && max !== undefined) return `${min}–${max}${suffix}`;
  if (min !== undefined) return `at least ${min}${suffix}`;
  if (max !== undefined) return `at most ${max}${suffix}`;
  return '';
}
