/**
 * @elicitkit/form — the restricted MCP elicitation schema, and everything every other layer
 * needs from it: a typed builder, validation, coercion, defaults, lint, the field model,
 * normalization between protocol revisions and the revisions themselves. Pure: no I/O, no
 * Node-only imports, nothing compiled at import.
 *
 * This file is the public API, written deliberately (`src/index.test.ts` pins it). Each field
 * kind's logic lives in its own module under `src/kinds/`. What is known of each MCP client (its
 * quirks, how it draws a form, the adaptations the server makes for it) is behind
 * `@elicitkit/form/clients`: the server and the CLI use it, a renderer does not need it.
 */

// Building forms
export type { AnyFieldDef, Described, FieldDef } from './builder/field.js';
export {
  type AnswerOf,
  type AnyForm,
  type Form,
  form,
  fromJsonSchema,
  type Infer,
  type ParseOptions,
} from './builder/form.js';
export { field } from './builder/kinds.js';
export type { StandardFormOptions } from './builder/standard.js';
// Reading and checking answers
export { type Coerced, coerceContent, coerceValue } from './coerce.js';
export { applyDefaults, defaultsOf } from './defaults.js';
// Errors and the wire shapes
export { ElicitkitError, FormSchemaError } from './errors.js';
// The field model renderers draw
export {
  type BooleanFieldModel,
  describeFields,
  type FieldKind,
  type FieldModel,
  type FieldModelOf,
  type MultiSelectFieldModel,
  type NumberFieldModel,
  type OptionModel,
  type SelectFieldModel,
  type TextFieldModel,
  type TextKind,
} from './fields.js';
export type { BooleanOptions } from './kinds/boolean.js';
export type { MultiSelectOptions } from './kinds/multi-select.js';
export type { NumberOptions } from './kinds/number.js';
export type { Choice, ChoiceList, ChoiceValue } from './kinds/options.js';
export type { SelectOptions } from './kinds/select.js';
export type { StringOptions } from './kinds/text/index.js';
export { type Confirmation, confirmationsOf } from './lint/confirmation.js';
export type { LintContext } from './lint/identifiers.js';
export { hasErrors, lint, lintForm } from './lint/index.js';
export { type Finding, RULES, type Rule, type RuleCode, type Severity } from './lint/rules.js';
export { isLoopbackHost } from './lint/url.js';
// Protocol revisions
export { type Downgrade, type DowngradeLoss, downgrade } from './normalize.js';
export {
  isRevision,
  LATEST_REVISION,
  needsDowngrade,
  REVISIONS,
  type Revision,
  type RevisionTraits,
  revisionOf,
  traitsOf,
} from './revision.js';
// Schemas from elsewhere, and lint
export { FORM_LIMITS, type ParsedForm, parseFormSchema } from './schema/parse.js';
export type { SchemaProblem, SchemaProblemCode } from './schema/problems.js';
export { formatIssues, type Issue, type IssueCode, type Validation } from './validate/issues.js';
export {
  MAX_ANSWER_LENGTH,
  type ValidateOptions,
  type Validator,
  validate,
  validator,
} from './validate/validate.js';
export type * from './wire.js';
export { ELICIT_ACTIONS, LOCALE_META_KEY } from './wire.js';
