/**
 * The wire shapes of MCP form elicitation (2025-11-25 and later), as plain types.
 *
 * These mirror the protocol's `PrimitiveSchemaDefinition` union one to one, so a value of
 * `FormSchema` is exactly what travels as `requestedSchema`.
 */

import type { StringFormat } from './kinds/text/formats.js';

export type { StringFormat };

/** Keys every field may carry. */
export type FieldCommon = {
  title?: string;
  description?: string;
};

export type StringFieldSchema = FieldCommon & {
  type: 'string';
  minLength?: number;
  maxLength?: number;
  format?: StringFormat;
  default?: string;
};

export type NumberFieldSchema = FieldCommon & {
  type: 'number' | 'integer';
  minimum?: number;
  maximum?: number;
  default?: number;
};

export type BooleanFieldSchema = FieldCommon & {
  type: 'boolean';
  default?: boolean;
};

/** One option of a titled enum: the value sent, the label shown. */
export type EnumOption = {
  const: string;
  title: string;
};

/** Single select without titles: `{type: "string", enum}`. */
export type UntitledSelectSchema = FieldCommon & {
  type: 'string';
  enum: string[];
  default?: string;
};

/** Single select with titles (SEP-1330): `{type: "string", oneOf: [{const, title}]}`. */
export type TitledSelectSchema = FieldCommon & {
  type: 'string';
  oneOf: EnumOption[];
  default?: string;
};

/** The 2025-06-18 shape: `enum` plus a parallel `enumNames` array. */
export type LegacySelectSchema = FieldCommon & {
  type: 'string';
  enum: string[];
  enumNames: string[];
  default?: string;
};

/** Multi select without titles: `{type: "array", items: {type: "string", enum}}`. */
export type UntitledMultiSelectSchema = FieldCommon & {
  type: 'array';
  items: { type: 'string'; enum: string[] };
  minItems?: number;
  maxItems?: number;
  default?: string[];
};

/** Multi select with titles: `{type: "array", items: {anyOf: [{const, title}]}}`. */
export type TitledMultiSelectSchema = FieldCommon & {
  type: 'array';
  items: { anyOf: EnumOption[] };
  minItems?: number;
  maxItems?: number;
  default?: string[];
};

export type SelectSchema = UntitledSelectSchema | TitledSelectSchema | LegacySelectSchema;
export type MultiSelectSchema = UntitledMultiSelectSchema | TitledMultiSelectSchema;

/** Any property the restricted schema allows. */
export type FieldSchema = StringFieldSchema | NumberFieldSchema | BooleanFieldSchema | SelectSchema | MultiSelectSchema;

/** `requestedSchema`: a flat object of primitive fields. */
export type FormSchema = {
  type: 'object';
  properties: Record<string, FieldSchema>;
  required?: string[];
};

/** One answered value: the protocol allows nothing else. */
export type ContentValue = string | number | boolean | string[];

/** The `content` of an accepted form answer. */
export type FormContent = Record<string, ContentValue>;

/** A form-mode request as the server sends it (`mode` may be omitted). */
export type FormRequest = {
  mode?: 'form';
  message: string;
  requestedSchema: FormSchema;
};

/** A URL-mode request (2025-11-25 and later). `elicitationId` is absent on 2026-07-28. */
export type UrlRequest = {
  mode: 'url';
  message: string;
  url: string;
  elicitationId?: string;
};

export type ElicitationRequest = FormRequest | UrlRequest;

/**
 * The three answers a person can give, in the order the server's sealed state numbers them.
 *
 * @example
 * ELICIT_ACTIONS.includes(result.action) // false for anything a client should not have sent
 */
export const ELICIT_ACTIONS = Object.freeze(['accept', 'decline', 'cancel'] as const);
export type ElicitAction = (typeof ELICIT_ACTIONS)[number];

/**
 * The request `_meta` key a client sets to the language its person reads (`en`, `zh`): an
 * Elicitkit server then words that call's questions, options and results in it, whatever its
 * default. Per request, so one server answers each chat in that chat's language.
 *
 * @example
 * await client.callTool({ name: 'deploy', arguments: {}, _meta: { [LOCALE_META_KEY]: 'zh' } });
 */
export const LOCALE_META_KEY = 'io.elicitkit/locale';
