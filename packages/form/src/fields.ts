import { parseFormSchema } from './schema/parse.js';
import type { FieldSchema, FormSchema } from './wire.js';

/** One option as a renderer shows it. */
export interface OptionModel {
  value: string;
  /** The display title, or the value when the schema gives none. */
  label: string;
}

interface Base {
  /** The property key; what the answer is keyed by. */
  name: string;
  /** What to show: the title, or the key made readable. */
  label: string;
  /** The description, if any. */
  help?: string;
  required: boolean;
}

export type TextKind = 'text' | 'email' | 'uri' | 'date' | 'date-time';

export interface TextFieldModel extends Base {
  kind: TextKind;
  default?: string;
  minLength?: number;
  maxLength?: number;
}

export interface NumberFieldModel extends Base {
  kind: 'number' | 'integer';
  default?: number;
  minimum?: number;
  maximum?: number;
}

export interface BooleanFieldModel extends Base {
  kind: 'boolean';
  default?: boolean;
}

export interface SelectFieldModel extends Base {
  kind: 'select';
  options: OptionModel[];
  /** Whether the schema gave display titles (rule EK07 warns when not). */
  titled: boolean;
  default?: string;
}

export interface MultiSelectFieldModel extends Base {
  kind: 'multiselect';
  options: OptionModel[];
  titled: boolean;
  default?: string[];
  minItems?: number;
  maxItems?: number;
}

/** The renderer-facing model of one field: a terminal and a web form draw the same thing. */
export type FieldModel =
  | TextFieldModel
  | NumberFieldModel
  | BooleanFieldModel
  | SelectFieldModel
  | MultiSelectFieldModel;

export type FieldKind = FieldModel['kind'];

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

/** The model of one field. */
export function describeField(name: string, field: FieldSchema, required: boolean): FieldModel {
  const base: Base = { name, label: field.title?.trim() || humanize(name), required };
  if (field.description !== undefined && field.description.trim() !== '') base.help = field.description;
  switch (field.type) {
    case 'string': {
      if ('oneOf' in field) {
        const options = field.oneOf.map((o) => ({ value: o.const, label: o.title }));
        const select: SelectFieldModel = { ...base, kind: 'select', titled: true, options };
        return withDefault(select, field.default);
      }
      if ('enum' in field) {
        const names = 'enumNames' in field ? field.enumNames : undefined;
        const options = field.enum.map((value, i) => ({ value, label: names?.[i] ?? value }));
        const select: SelectFieldModel = { ...base, kind: 'select', titled: names !== undefined, options };
        return withDefault(select, field.default);
      }
      const text: TextFieldModel = { ...base, kind: field.format ?? 'text' };
      if (field.minLength !== undefined) text.minLength = field.minLength;
      if (field.maxLength !== undefined) text.maxLength = field.maxLength;
      return withDefault(text, field.default);
    }
    case 'number':
    case 'integer': {
      const num: NumberFieldModel = { ...base, kind: field.type };
      if (field.minimum !== undefined) num.minimum = field.minimum;
      if (field.maximum !== undefined) num.maximum = field.maximum;
      return withDefault(num, field.default);
    }
    case 'boolean':
      return withDefault({ ...base, kind: 'boolean' } as BooleanFieldModel, field.default);
    case 'array': {
      const titled = 'anyOf' in field.items;
      const options =
        'anyOf' in field.items
          ? field.items.anyOf.map((o) => ({ value: o.const, label: o.title }))
          : field.items.enum.map((v) => ({ value: v, label: v }));
      const multi: MultiSelectFieldModel = { ...base, kind: 'multiselect', titled, options };
      if (field.minItems !== undefined) multi.minItems = field.minItems;
      if (field.maxItems !== undefined) multi.maxItems = field.maxItems;
      return withDefault(multi, field.default ? [...field.default] : undefined);
    }
  }
}

function withDefault<M extends { default?: unknown }>(model: M, value: M['default'] | undefined): M {
  if (value !== undefined) model.default = value;
  return model;
}

/** `releaseTicket` / `release_ticket` → `Release ticket`. */
export function humanize(name: string): string {
  const words = name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/[_\-.]+/g, ' ')
    .trim()
    .toLowerCase();
  return words.length === 0 ? name : words[0]?.toUpperCase() + words.slice(1);
}
