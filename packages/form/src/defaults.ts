import { isObject, ownKeys } from './json.js';
import type { FormContent, FormSchema } from './wire.js';

/**
 * Fills every field the answer leaves out with the field's `default`, if it has one. Values the
 * person gave are never replaced. Anything that is not an object is returned unchanged, so that
 * validation can report it.
 *
 * @example
 * applyDefaults(schema, { ticket: 'REL-1001' }) // → { ticket: 'REL-1001', confirmed: false }
 */
export function applyDefaults<T>(schema: FormSchema, content: T): T | FormContent {
  if (!isObject(content)) return content;
  const out: FormContent = {};
  for (const key of ownKeys(content)) {
    // defineProperty for `__proto__` only: parsed from JSON it must stay a plain key (validation
    // then reports it) instead of replacing the copy's prototype. Any other key assigns the same way.
    if (key === '__proto__')
      Object.defineProperty(out, key, { value: content[key], enumerable: true, writable: true, configurable: true });
    else out[key] = content[key] as FormContent[string];
  }
  for (const name of Object.keys(schema.properties)) {
    const field = schema.properties[name];
    // Own values only: a field named like an Object.prototype member (`toString`) reads the
    // inherited function otherwise, and its default was never filled.
    if ((Object.hasOwn(out, name) && out[name] !== undefined) || field?.default === undefined) continue;
    out[name] = Array.isArray(field.default) ? [...field.default] : field.default;
  }
  return out;
}

/**
 * The defaults a form declares, as an answer (what "accept with defaults" sends).
 *
 * @example
 * defaultsOf(schema) // → { confirmed: false, env: 'dev' }
 */
export function defaultsOf(schema: FormSchema): FormContent {
  return applyDefaults(schema, {}) as FormContent;
}
