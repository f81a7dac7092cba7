/**
 * @elicitkit/form — the restricted MCP elicitation schema, and everything every other layer
 * needs from it: a typed builder, validation, coercion, defaults, lint, the field model and
 * normalization between protocol revisions. Pure: no I/O, no Node-only imports.
 */

export type {
  AnyFieldDef,
  BooleanOptions,
  Choice,
  FieldDef,
  MultiSelectOptions,
  NumberOptions,
  SelectOptions,
  StringOptions,
} from './builder/field.js';
export { type AnswerOf, type AnyForm, type Form, form, fromJsonSchema, type Infer } from './builder/form.js';
export { field } from './builder/kinds.js';
export { type Coerced, coerceContent, coerceValue, matchOption } from './coerce.js';
export { applyDefaults, defaultsOf } from './defaults.js';
export { ElicitkitError, FormSchemaError } from './errors.js';
export {
  type BooleanFieldModel,
  describeField,
  describeFields,
  type FieldKind,
  type FieldModel,
  humanize,
  type MultiSelectFieldModel,
  type NumberFieldModel,
  type OptionModel,
  type SelectFieldModel,
  type TextFieldModel,
  type TextKind,
} from './fields.js';
export { hasErrors, lint } from './lint/index.js';
export { type Finding, RULES, type Rule, type RuleCode, type Severity } from './lint/rules.js';
export { isLoopbackHost } from './lint/url.js';
export { type Downgrade, type DowngradeLoss, downgrade, toLegacyEnums, toTitledEnums } from './normalize.js';
export { MAX_FIELDS, type ParsedForm, parseFormSchema } from './schema/parse.js';
export { MAX_OPTIONS, optionValues } from './schema/parse-field.js';
export type { SchemaProblem, SchemaProblemCode } from './schema/problems.js';
export { formatIssues, type Issue, type IssueCode, type Validation } from './validate/issues.js';
export { type ValidateOptions, type Validator, validate, validator } from './validate/validate.js';
export type * from './wire.js';
