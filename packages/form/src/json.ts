/** Small helpers for reading untrusted JSON without tripping over prototypes. */

export type JsonObject = { [key: string]: unknown };

/** A plain object (not an array, not null, not a class instance). */
export function isObject(value: unknown): value is JsonObject {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/** Own enumerable keys only: `__proto__` parsed from JSON shows up here as a plain key. */
export function ownKeys(value: JsonObject): string[] {
  return Object.keys(value);
}

/** Reads an own property; never walks the prototype chain. */
export function own(value: JsonObject, key: string): unknown {
  return Object.hasOwn(value, key) ? value[key] : undefined;
}

export function hasOwn(value: JsonObject, key: string): boolean {
  return Object.hasOwn(value, key);
}

/** Names that would alias `Object.prototype` members when used as keys. */
export const RESERVED_NAMES: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype']);

export function isStringArray(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((v) => typeof v === 'string');
}

export function isNonNegativeInteger(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
}

export function isFiniteNumber(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value);
}

/** Quotes a value for a human-readable message, keeping it short. */
export function show(value: unknown): string {
  let text: string;
  try {
    text = typeof value === 'string' ? JSON.stringify(value) : String(JSON.stringify(value) ?? String(value));
  } catch {
    // Nested past JSON.stringify's stack (a server's default can be): its kind, not "[object Object]".
    text = Array.isArray(value) ? '[…]' : typeof value === 'object' && value !== null ? '{…}' : String(value);
  }
  // JSON escapes control characters, not the ones that reorder or break the text around them.
  text = text.replace(INVISIBLE, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

/**
 * Bidi controls (the Arabic letter mark among them), the line and paragraph separators, and the
 * invisible characters that make a key look like another (zero-width space and joiners, word
 * joiner, byte-order mark, soft hyphen), which JSON leaves as they are.
 */
const INVISIBLE = /[\u00ad\u061c\u200b-\u200f\u202a-\u202e\u2060\u2066-\u2069\u2028\u2029\ufeff]/g;

/**
 * A deep, frozen copy of plain JSON data. A form's schema is read by caches keyed on its identity
 * (its validator, field model, client adaptations): frozen, it cannot change under them.
 */
export function frozenCopy<T>(value: T): T {
  return deepFreeze(structuredClone(value));
}

/** Freezes plain JSON data in place, all the way down (parts already frozen are left as they are). */
export function deepFreeze<T>(value: T): T {
  if (typeof value !== 'object' || value === null || Object.isFrozen(value)) return value;
  for (const key of Object.keys(value)) deepFreeze((value as Record<string, unknown>)[key]);
  return Object.freeze(value);
}
