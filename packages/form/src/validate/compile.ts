import { describeField } from '../fields.js';
import { type AnySpec, type FieldModel, specOf } from '../kinds/registry.js';
import type { ValueCheck } from '../kinds/spec.js';
import { type ParsedForm, parseFormSchema } from '../schema/parse.js';
import type { FieldSchema } from '../wire.js';
import { labelOf } from './label.js';

/** One field, ready to check values: its kind's check built once. */
export interface CompiledField {
  name: string;
  field: FieldSchema;
  model: FieldModel;
  spec: AnySpec;
  /** How messages quote the field. */
  label: string;
  check: ValueCheck;
  /** Longest string worth checking for this field, when its kind has a natural size. */
  maxString: number | undefined;
}

/** A form parsed once and its fields' checks built once. */
export interface CompiledForm {
  parsed: ParsedForm;
  /** In the schema's property order, which is the order issues are reported in. */
  fields: readonly CompiledField[];
  byName: ReadonlyMap<string, CompiledField>;
  required: readonly string[];
}

// Keyed by the schema object: a form is compiled the first time it is used, never at import, and
// the entry goes when the schema does. Frozen schemas only (a built form's is frozen all the way
// down), like the package's other caches: a schema that can change would be checked as it was,
// e.g. against options a server has since taken away.
const cache = new WeakMap<object, CompiledForm>();

/** Parses a form schema and builds its checks, once per frozen schema object (each time for any other). */
export function compileForm(schema: unknown): CompiledForm {
  const cacheable = typeof schema === 'object' && schema !== null && Object.isFrozen(schema);
  const hit = cacheable ? cache.get(schema) : undefined;
  if (hit) return hit;
  const parsed = parseFormSchema(schema);
  const required = new Set(parsed.schema.required ?? []);
  const fields = Object.entries(parsed.schema.properties).map(([name, field]): CompiledField => {
    const model = describeField(name, field, required.has(name));
    const spec = specOf(model);
    return {
      name,
      field,
      model,
      spec,
      label: labelOf(name, field),
      check: spec.check(model),
      maxString: spec.maxString(model),
    };
  });
  const compiled: CompiledForm = {
    parsed,
    fields,
    byName: new Map(fields.map((f) => [f.name, f])),
    required: parsed.schema.required ?? [],
  };
  if (cacheable) cache.set(schema, compiled);
  return compiled;
}
