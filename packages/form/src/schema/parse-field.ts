import { isObject, own, show } from '../json.js';
import { specForWire } from '../kinds/registry.js';
import type { Parsed } from '../kinds/spec.js';
import { FIX, problem } from './problems.js';

/**
 * Checks one property against the restricted subset and returns a clean copy holding only the
 * keywords the protocol defines, or the problems that keep it out. What no kind could ever be
 * (not an object, several types, a nested object, a `$ref`) is refused here; the rest is the
 * business of the kind whose wire shape the property has.
 */
export function parseField(name: string, raw: unknown): Parsed {
  if (!isObject(raw)) {
    return fail(
      name,
      'not_object',
      `field "${name}" is ${show(raw)}, not a schema object`,
      'Describe it as {type, title, ...}.',
    );
  }
  const type = own(raw, 'type');
  if (Array.isArray(type)) {
    return fail(
      name,
      'bad_type',
      `field "${name}" has several types ${show(type)}`,
      'Give each field exactly one type; leave it out of `required` to make it optional.',
    );
  }
  if (type === 'object' || own(raw, 'properties') !== undefined) {
    return fail(name, 'nested_object', `field "${name}" is a nested object`, FIX.nested);
  }
  if (own(raw, '$ref') !== undefined) return fail(name, 'ref', `field "${name}" uses $ref`, FIX.ref);
  const spec = specForWire(raw);
  if (spec) return spec.parse(name, raw);
  return fail(
    name,
    'bad_type',
    `field "${name}" has type ${show(type)}`,
    'Use string, number, integer, boolean, or array (multi-select only).',
  );
}

function fail(name: string, code: Parameters<typeof problem>[1], message: string, fix: string): Parsed {
  return { problems: [problem(name, code, message, fix)] };
}
