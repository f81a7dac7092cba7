import { randomBytes } from 'node:crypto';
import { describeFields, type FieldModel, type FormContent } from '@elicitkit/form';

/**
 * The longest text doctor writes into one field: a form whose `minLength` asks for more (a few
 * bytes of question asking for gigabytes of answer) is declined, never built.
 */
export const MAX_SAMPLE_TEXT = 64 * 1024;

/**
 * A plausible value for one field: its default, else the first option, else something that fits
 * the format and bounds. Doctor answers "accept" with these, so a valid answer is what it sends.
 * `tag` makes free text unique (a username, an email) so one call's accepted answer never
 * collides with another's. One case per field kind: a new kind is a compile error here until
 * doctor can answer it.
 */
export function sampleValue(field: FieldModel, tag = ''): FormContent[string] {
  if (field.default !== undefined) return field.default;
  switch (field.kind) {
    case 'select':
      return field.options[0]?.value ?? '';
    case 'multiselect':
      return field.options.slice(0, Math.max(field.minItems ?? 1, 1)).map((o) => o.value);
    case 'boolean':
      return false;
    case 'number':
    case 'integer':
      return field.minimum ?? (field.maximum !== undefined && field.maximum < 1 ? field.maximum : 1);
    case 'email':
      return `doctor${tag}@example.com`;
    case 'uri':
      return 'https://example.com/';
    case 'date':
      return new Date().toISOString().slice(0, 10);
    case 'date-time':
      return new Date().toISOString();
    case 'text': {
      // A form asking for more is declined before any answer is built (answer.ts); this bound
      // holds for any other caller too.
      const min = Math.min(field.minLength ?? 0, MAX_SAMPLE_TEXT);
      const text = `doctor${tag}`.padEnd(min, 'x');
      // Cut from the front: the tag at the end is what keeps the value unique.
      return field.maxLength !== undefined && text.length > field.maxLength
        ? text.slice(text.length - Math.max(field.maxLength, min))
        : text;
    }
    default:
      return unknownKind(field);
  }
}

function unknownKind(field: never): never {
  throw new TypeError(`Doctor cannot answer a field of kind ${JSON.stringify((field as FieldModel).kind)}.`);
}

/** An answer to a whole form: every field, defaults where given, free text made unique by `tag`. */
export function sampleContent(schema: unknown, tag = ''): FormContent {
  const out: FormContent = {};
  for (const field of describeFields(schema)) out[field.name] = sampleValue(field, tag);
  return out;
}

/**
 * A short random tag for one call's answers, e.g. `-k3x9q`: with it, two profiles never register
 * the same username, so one's accepted answer cannot make another's fail.
 */
export function freshTag(): string {
  return `-${randomBytes(4).readUInt32BE(0).toString(36).slice(0, 5).padStart(5, '0')}`;
}

/** Tool arguments from a JSON input schema: required properties only, so the server has something to ask. */
export function sampleArguments(inputSchema: unknown): Record<string, unknown> {
  // The schema is the server's word, not to be trusted: odd shapes give fewer arguments, never a crash.
  const schema = isRecord(inputSchema) ? inputSchema : {};
  const properties = isRecord(schema.properties) ? schema.properties : {};
  const required = Array.isArray(schema.required) ? schema.required.filter((r) => typeof r === 'string') : [];
  const out: Record<string, unknown> = {};
  for (const name of required) {
    const raw = Object.hasOwn(properties, name) ? properties[name] : undefined;
    const value = argumentValue(isRecord(raw) ? raw : {});
    Object.defineProperty(out, name, { value, enumerable: true, writable: true, configurable: true });
  }
  return out;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function argumentValue(prop: Record<string, unknown>): unknown {
  if (prop.default !== undefined) return prop.default;
  if (Array.isArray(prop.examples) && prop.examples.length > 0) return prop.examples[0];
  if (Array.isArray(prop.enum) && prop.enum.length > 0) return prop.enum[0];
  if (prop.const !== undefined) return prop.const;
  switch (prop.type) {
    case 'integer':
    case 'number':
      return typeof prop.minimum === 'number' ? prop.minimum : 1;
    case 'boolean':
      return false;
    case 'array':
      return [];
    case 'object':
      return {};
    default:
      return stringFor(prop.format);
  }
}

/** A string argument that fits its format, so a server's own validation lets the call through. */
function stringFor(format: unknown): string {
  switch (format) {
    case 'date':
      return new Date().toISOString().slice(0, 10);
    case 'date-time':
      return new Date().toISOString();
    case 'uri':
    case 'url':
      return 'https://example.com/doctor';
    case 'email':
      return 'doctor@example.com';
    default:
      return 'doctor';
  }
}
