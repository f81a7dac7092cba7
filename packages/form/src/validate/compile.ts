import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import formatsPlugin from 'ajv-formats';
import { optionValues } from '../schema/parse-field.js';
import type { FieldSchema, FormSchema } from '../wire.js';

// ajv-formats is CommonJS; `.default` is the plugin under Node's loader and bundlers alike.
const addFormats = formatsPlugin.default;

const ajv = new Ajv({ allErrors: true, strict: true, strictNumbers: true });
addFormats(ajv, ['email', 'uri', 'date', 'date-time']);

const CACHE_LIMIT = 256;
const cache = new Map<string, ValidateFunction>();

/**
 * The JSON Schema ajv checks. It is the wire schema made closed and exact: titled options become
 * plain `enum`s (one clear error instead of a `oneOf` cascade), multi-selects gain `uniqueItems`,
 * and unknown keys are refused.
 */
export function toValidationSchema(schema: FormSchema): Record<string, unknown> {
  const properties: Record<string, unknown> = {};
  for (const [name, field] of Object.entries(schema.properties)) properties[name] = fieldRule(field);
  return {
    type: 'object',
    properties,
    required: schema.required ?? [],
    additionalProperties: false,
  };
}

function fieldRule(field: FieldSchema): Record<string, unknown> {
  switch (field.type) {
    case 'string': {
      if ('enum' in field || 'oneOf' in field) return { type: 'string', enum: optionValues(field) };
      return pick({ type: 'string' }, field, ['minLength', 'maxLength', 'format']);
    }
    case 'number':
    case 'integer':
      return pick({ type: field.type }, field, ['minimum', 'maximum']);
    case 'boolean':
      return { type: 'boolean' };
    case 'array':
      return pick({ type: 'array', items: { type: 'string', enum: optionValues(field) }, uniqueItems: true }, field, [
        'minItems',
        'maxItems',
      ]);
  }
}

function pick(base: Record<string, unknown>, from: object, keys: string[]): Record<string, unknown> {
  for (const key of keys) {
    const value = (from as Record<string, unknown>)[key];
    if (value !== undefined) base[key] = value;
  }
  return base;
}

/** Compiles (or reuses) the ajv validator for a form. Bounded cache: servers see many forms. */
export function compiled(schema: FormSchema): ValidateFunction {
  const rules = toValidationSchema(schema);
  const key = JSON.stringify(rules);
  const hit = cache.get(key);
  if (hit) {
    cache.delete(key);
    cache.set(key, hit);
    return hit;
  }
  const fn = ajv.compile(rules);
  cache.set(key, fn);
  if (cache.size > CACHE_LIMIT) {
    const oldest = cache.keys().next().value;
    if (oldest !== undefined) cache.delete(oldest);
  }
  return fn;
}

export type AjvError = ErrorObject;
