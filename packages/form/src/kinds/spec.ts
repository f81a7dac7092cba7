import type { JsonObject } from '../json.js';
import type { Finding } from '../lint/rules.js';
import type { SchemaProblem } from '../schema/problems.js';
import type { Issue } from '../validate/issues.js';
import type { ContentValue, FieldSchema } from '../wire.js';

/** What every field model has, whatever its kind. */
export interface FieldBase {
  /** The property key; what the answer is keyed by. */
  name: string;
  /** What to show: the title, or the key made readable. */
  label: string;
  /** The description, if any. */
  help?: string;
  required: boolean;
}

/** The result of reading one typed-in value: the value (or `undefined` for "left empty"), or why not. */
export type Coerced =
  | { ok: true; value: ContentValue | undefined }
  | {
      ok: false;
      message: string;
      /**
       * Set when the text is a number that cannot be sent as typed: the number it would arrive as
       * (`0.10000000000000000001` as 0.1, `1e-400` as 0), for a caller that words the refusal itself.
       */
      arrivesAs?: number;
    };

/** A property read against the restricted subset: a clean copy, or the problems that keep it out. */
export interface Parsed<S extends FieldSchema = FieldSchema> {
  field?: S;
  problems: SchemaProblem[];
}

/**
 * Checks one value that is present and already past the size caps. `label` is the field's name
 * as messages quote it. Issues come in the order a JSON Schema validator reports them.
 */
export type ValueCheck = (value: unknown, name: string, label: string) => Issue[];

/** Something a downgrade could not carry over. `fatal` losses mean the question cannot be asked. */
export interface DowngradeLoss {
  field: string;
  code: 'multi_select' | 'default_dropped';
  fatal: boolean;
  message: string;
}

/** One field shaped for a 2025-06-18 client: the field (absent when it cannot be shown) and what was lost. */
export interface FieldDowngrade {
  field?: FieldSchema;
  losses: DowngradeLoss[];
}

/**
 * Everything Elicitkit knows about one kind of field, kept together (the way zod keeps a schema
 * kind's parse, check and output in one place). `S` is the kind's wire shape, `M` its field model.
 * Methods are called only with the kind's own shapes; the registry dispatches by `kind`.
 */
export interface FieldSpec<S extends FieldSchema, M extends FieldBase> {
  /** Whether a property has this kind's wire shape. Exactly one kind claims any given shape. */
  claims(raw: JsonObject): boolean;
  /** Checks a raw property against the restricted subset; returns a clean copy or the problems. */
  parse(name: string, raw: JsonObject): Parsed<S>;
  /** The renderer-facing model of a clean property. */
  describe(field: S, base: FieldBase): M;
  /** Builds the value check once per field (the validator's part for this kind). */
  check(model: M): ValueCheck;
  /** Longest string accepted before any check runs, when the kind has a natural size (formats do). */
  maxString(model: M): number | undefined;
  /** Reads what a person typed (not blank) as the field's value. `text` is `input` trimmed. */
  coerce(model: M, input: string, text: string): Coerced;
  /** The value of a field left blank. */
  blank(model: M): ContentValue | undefined;
  /** Shapes the field for a 2025-06-18 client, saying what is lost. */
  downgrade(name: string, field: S): FieldDowngrade;
  /** The kind's own lint rules (EK06, EK09, option titles under EK07); the field title is checked for every kind. */
  lint(model: M, field: S): Finding[];
}
