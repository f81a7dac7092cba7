/**
 * The table of field kinds that drives every generic operation (parse, describe, validate, coerce,
 * downgrade, lint). It is typed from the kinds themselves: a kind missing here, or mapped to the
 * wrong module, is a compile error.
 */
import type { JsonObject } from '../json.js';
import type { FieldSchema } from '../wire.js';
import { BOOLEAN, type BooleanFieldModel } from './boolean.js';
import { MULTI_SELECT, type MultiSelectFieldModel } from './multi-select.js';
import { NUMBER, type NumberFieldModel } from './number.js';
import { SELECT, type SelectFieldModel } from './select.js';
import type { FieldSpec } from './spec.js';
import { FORMATS, TEXT, type TextFieldModel, type TextKind } from './text/index.js';

/** The renderer-facing model of one field: a terminal and a web form draw the same thing. */
export type FieldModel =
  | TextFieldModel
  | NumberFieldModel
  | BooleanFieldModel
  | SelectFieldModel
  | MultiSelectFieldModel;

/** Every kind of field, one per way a renderer draws it. */
export type FieldKind = FieldModel['kind'];

/**
 * The model of kind `K` (`'email'` → `TextFieldModel`): for tables keyed by kind, so that a new
 * kind is a compile error in every renderer until it is drawn.
 *
 * @example
 * const HINTS = { text: (f) => …, email: () => …, … } satisfies { [K in FieldKind]: (field: FieldModelOf<K>) => string };
 */
export type FieldModelOf<K extends FieldKind> = FieldModel extends infer M
  ? M extends { kind: infer MK }
    ? K extends MK
      ? M
      : never
    : never
  : never;

/** Any kind's spec, as the generic code holds it. */
export type AnySpec = FieldSpec<FieldSchema, FieldModel>;

// Every text kind is the one text module; its formats come from the format table, not a list here.
const textKinds = Object.fromEntries(['text', ...Object.keys(FORMATS)].map((kind) => [kind, TEXT])) as Record<
  TextKind,
  typeof TEXT
>;

const KINDS = {
  ...textKinds,
  number: NUMBER,
  integer: NUMBER,
  boolean: BOOLEAN,
  select: SELECT,
  multiselect: MULTI_SELECT,
} satisfies { [K in FieldKind]: FieldSpec<FieldSchema, FieldModelOf<K>> };

/** The distinct kind modules; each wire shape is claimed by exactly one. */
const SPECS: readonly AnySpec[] = [...new Set<AnySpec>(Object.values(KINDS) as AnySpec[])];

/** The spec that handles a field model; a model of no known kind (built by hand, not described) is refused. */
export function specOf(model: FieldModel): AnySpec {
  if (!Object.hasOwn(KINDS, model.kind)) throw new TypeError(`Unknown field kind ${JSON.stringify(model.kind)}.`);
  return KINDS[model.kind] as AnySpec;
}

/** The spec whose wire shape a (raw or clean) property has, if any. */
export function specForWire(raw: JsonObject | FieldSchema): AnySpec | undefined {
  return SPECS.find((spec) => spec.claims(raw as JsonObject));
}
