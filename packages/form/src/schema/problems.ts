/**
 * What can be wrong with a form schema, as data. Each problem says what to do instead, because
 * the person reading it is a tool author who reached for JSON Schema features the protocol
 * deliberately leaves out.
 */
export type SchemaProblemCode =
  | 'not_object'
  | 'no_properties'
  | 'too_many_fields'
  /** Options across the whole form past `MAX_FORM_OPTIONS` (schema/limits.ts). */
  | 'too_many_options'
  /** A name, title, description or option past its length cap, or the form's text past `MAX_FORM_TEXT`. */
  | 'too_long'
  | 'reserved_name'
  | 'nested_object'
  | 'array_of_non_enum'
  | 'ref'
  | 'composition'
  | 'pattern'
  | 'unknown_keyword'
  | 'bad_type'
  | 'bad_format'
  | 'bad_constraint'
  | 'bad_options'
  /** A field whose label draws nothing, or reads as another field's. */
  | 'bad_title'
  | 'bad_required'
  | 'bad_default'
  /** A Standard Schema whose library gives no JSON Schema, for the form or for one field. */
  | 'no_json_schema';

export interface SchemaProblem {
  /** The property the problem is in; absent for the form as a whole. */
  field?: string;
  code: SchemaProblemCode;
  message: string;
  /** What to do instead. */
  fix: string;
}

export function problem(
  field: string | undefined,
  code: SchemaProblemCode,
  message: string,
  fix: string,
): SchemaProblem {
  return field === undefined ? { code, message, fix } : { field, code, message, fix };
}

/** Fixes reused across checks. */
export const FIX = {
  nested: 'Flatten it: ask for each value as its own top-level field, or take the structure as a normal tool argument.',
  arrayOfNonEnum:
    'Only multi-select arrays of enum strings are allowed. For free-form lists ask for one string (e.g. comma-separated) and split it on the server.',
  ref: 'Inline the definition: the restricted schema has no references.',
  composition:
    'Use one field per choice: single select is `oneOf: [{const, title}]` on a string, multi select is `items.anyOf` on an array.',
  pattern:
    'Remove `pattern` (clients strip it). Validate the value on the server after accept and return `invalid` with a reason.',
} as const;
