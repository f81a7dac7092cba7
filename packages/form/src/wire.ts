/**
 * The wire shapes of MCP form elicitation (2025-11-25 and later), as plain types.
 *
 * These mirror the protocol's `PrimitiveSchemaDefinition` union one to one, so a value of
 * `FormSchema` is exactly what travels as `requestedSchema`.
 */

/** String formats the protocol allows. */
export type StringFormat = 'email' | 'uri' | 'date' | 'date-time';

/** Keys every field may carry. */
export interface FieldCommon {
  title?: string;
  description?: string;
}

export interface StringFieldSchema extends FieldCommon {
  type: 'string';
  minLength?: number;
  maxLength?: number;
  format?: StringFormat;
  default?: string;
}

export interface NumberFieldSchema extends FieldCommon {
  type: 'number' | 'integer';
  minimum?: number;
  maximum?: number;
  default?: number;
}

export interface BooleanFieldSchema extends FieldCommon {
  type: 'boolean';
  default?: boolean;
}

/** One option of a titled enum: the value sent, the label shown. */
export interface EnumOption {
  const: string;
  title: string;
}

/** Single select without titles: `{type: "string", enum}`. */
export interface UntitledSelectSchema extends FieldCommon {
  type: 'string';
  enum: string[];
  default?: string;
}

/** Single select with titles (SEP-1330): `{type: "string", oneOf: [{const, title}]}`. */
export interface TitledSelectSchema extends FieldCommon {
  type: 'string';
  oneOf: EnumOption[];
  default?: string;
}

/** The 2025-06-18 shape: `enum` plus a parallel `enumNames` array. */
export interface LegacySelectSchema extends FieldCommon {
  type: 'string';
  enum: string[];
  enumNames: string[];
  default?: string;
}

/** Multi select without titles: `{type: "array", items: {type: "string", enum}}`. */
export interface UntitledMultiSelectSchema extends FieldCommon {
  type: 'array';
  items: { type: 'string'; enum: string[] };
  minItems?: number;
  maxItems?: number;
  default?: string[];
}

/** Multi select with titles: `{type: "array", items: {anyOf: [{const, title}]}}`. */
export interface TitledMultiSelectSchema extends FieldCommon {
  type: 'array';
  items: { anyOf: EnumOption[] };
  minItems?: number;
  maxItems?: number;
  default?: string[];
}

export type SelectSchema = UntitledSelectSchema | TitledSelectSchema | LegacySelectSchema;
export type MultiSelectSchema = UntitledMultiSelectSchema | TitledMultiSelectSchema;

/** Any property the restricted schema allows. */
export type FieldSchema = StringFieldSchema | NumberFieldSchema | BooleanFieldSchema | SelectSchema | MultiSelectSchema;

/** `requestedSchema`: a flat object of primitive fields. */
export interface FormSchema {
  type: 'object';
  properties: Record<string, FieldSchema>;
  required?: string[];
}

/** One answered value: the protocol allows nothing else. */
export type ContentValue = string | number | boolean | string[];

/** The `content` of an accepted form answer. */
export type FormContent = Record<string, ContentValue>;

/** A form-mode request as the server sends it (`mode` may be omitted). */
export interface FormRequest {
  mode?: 'form';
  message: string;
  requestedSchema: FormSchema;
}

/** A URL-mode request (2025-11-25 and later). `elicitationId` is absent on 2026-07-28. */
export interface UrlRequest {
  mode: 'url';
  message: string;
  url: string;
  elicitationId?: string;
}

export type ElicitationRequest = FormRequest | UrlRequest;

/** The protocol revisions Elicitkit serves. */
export type Revision = '2025-06-18' | '2025-11-25' | '2026-07-28';

/** The three answers a person can give. */
export type ElicitAction = 'accept' | 'decline' | 'cancel';
