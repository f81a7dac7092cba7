import type { BooleanFieldModel } from './kinds/boolean.js';
import type { MultiSelectFieldModel } from './kinds/multi-select.js';
import type { NumberFieldModel } from './kinds/number.js';
import type { OptionModel } from './kinds/options.js';
import { type FieldKind, type FieldModel, type FieldModelOf, specForWire } from './kinds/registry.js';
import type { SelectFieldModel } from './kinds/select.js';
import type { FieldBase } from './kinds/spec.js';
import type { TextFieldModel, TextKind } from './kinds/text/index.js';
import { fieldLabel } from './schema/labels.js';
import { parseFormSchema } from './schema/parse.js';
import type { FieldSchema, FormSchema } from './wire.js';

export { humanize } from './schema/labels.js';
export type {
  BooleanFieldModel,
  FieldKind,
  FieldModel,
  FieldModelOf,
  MultiSelectFieldModel,
  NumberFieldModel,
  OptionModel,
  SelectFieldModel,
  TextFieldModel,
  TextKind,
};

/**
 * The fields of a form in their declared order, each with its kind, label, help, options,
 * default, required flag and constraints. Fields outside the subset are left out (lint and
 * `parseFormSchema` report them).
 *
 * @example
 * for (const f of describeFields(request.requestedSchema)) render(f);
 */
export function describeFields(schema: FormSchema | unknown): FieldModel[] {
  const { schema: clean } = parseFormSchema(schema);
  const required = new Set(clean.required ?? []);
  return Object.entries(clean.properties).map(([name, field]) => describeField(name, field, required.has(name)));
}

/** The model of one clean field (as `parseFormSchema` returns it). */
export function describeField(name: string, field: FieldSchema, required: boolean): FieldModel {
  const base: FieldBase = { name, label: fieldLabel(name, field), required };
  if (field.description !== undefined && field.description.trim() !== '') base.help = field.description;
  const spec = specForWire(field);
  if (!spec) throw new TypeError(`Field "${name}" is outside the restricted schema; parse the form first.`);
  return spec.describe(field, base);
}
