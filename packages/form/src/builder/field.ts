import type { ContentValue, FieldSchema } from '../wire.js';

const FIELD = Symbol.for('elicitkit.field');

/**
 * One field of a form under construction. `T` is the answer's type; `Opt` marks fields left out
 * of `required`; `Def` marks fields with a default, which are present once defaults are applied.
 */
export interface FieldDef<
  T extends ContentValue = ContentValue,
  Opt extends boolean = boolean,
  Def extends boolean = boolean,
> {
  /** The wire JSON of this field. */
  readonly schema: FieldSchema;
  readonly isOptional: Opt;
  /** Leaves the field out of `required`: the person may skip it. */
  optional(): FieldDef<T, true, Def>;
  /** Type-level only: the answer's value type. */
  readonly '~value'?: T;
  readonly '~default'?: Def;
}

export type AnyFieldDef = FieldDef<ContentValue, boolean, boolean>;

export function isFieldDef(value: unknown): value is AnyFieldDef {
  return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[FIELD] === true;
}

export function makeField<T extends ContentValue, Def extends boolean>(
  schema: FieldSchema,
  isOptional = false,
): FieldDef<T, false, Def> {
  const def = {
    schema,
    isOptional,
    optional: () => makeField<T, Def>(schema, true),
  };
  Object.defineProperty(def, FIELD, { value: true });
  return def as unknown as FieldDef<T, false, Def>;
}

/** True when an options object carries a `default`. */
export type HasDefault<O> = O extends { default: unknown } ? true : false;

/** Rejects keys outside `Allowed` at compile time (runtime checks catch the rest). */
export type Strict<O, Allowed> = O & { [K in Exclude<keyof O, keyof Allowed>]: never };

export interface Described {
  /** The label a person sees. Always give one (rule EK07). */
  title?: string;
  /** Help text under the label. */
  description?: string;
}

// Options are copied verbatim, unknown keys included, so that `form()` can name anything a
// JavaScript caller slipped in (`pattern`, nested `properties`) and say what to do instead.
export function withOptions(base: Record<string, unknown>, options: object | undefined): FieldSchema {
  return { ...(options ?? {}), ...base } as unknown as FieldSchema;
}
