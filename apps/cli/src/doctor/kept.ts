import { createHash } from 'node:crypto';
import { jsonText } from '@elicitkit/client/typed-json';
import { FORM_LIMITS, parseFormSchema } from '@elicitkit/form';
import { fieldsOf } from './branches.js';
import type { FindingInput } from './findings.js';
import type { Ask } from './records.js';

/**
 * The most of a question doctor keeps whole, as JSON text in characters. A person reads a few
 * hundred; a hostile server's can be megabytes each, fifty a call, every call under every profile
 * (2 GB for one run when each was kept). Past this a question is kept as a stand-in (`keptOf`).
 */
export const KEEP_WHOLE = 16_384;

/** How much of a stand-in's message, URL or field name is kept to show. */
const SHOWN = 500;

/** The most findings a stand-in keeps (a form's many fields can each have some). */
const MAX_FOUND = 100;

/**
 * `ask` as doctor keeps it: whole when its params are at most `KEEP_WHOLE`, else a stand-in of
 * bounded size that reads as the question did — its mode, the start of its message and URL, its
 * fields by name (each as a client reads it, when the form so read is small) and what it requires
 * — with `cut`: its findings as a question alone, made now by `judge` from the whole of it, and the
 * digest of what it showed (`shownOf`). The judges read those, so a stand-in is never judged as
 * the small form it looks like (EK02's empty form, a short message).
 *
 * @example
 * call.asks.push(keptOf(ask, (whole) => askFindings(whole, given, profile)));
 */
export function keptOf(ask: Ask, judge: (whole: Ask) => FindingInput[]): Ask {
  if (sizeUpTo(ask.params, KEEP_WHOLE) <= KEEP_WHOLE) return ask;
  const found = judge(ask)
    .slice(0, MAX_FOUND)
    .map((f) => ({
      ...f,
      message: shown(f.message),
      fix: shown(f.fix),
      ...(f.field ? { field: shown(f.field) } : {}),
    }));
  // Copied: a string cut out of the question (a finding quoting its message) would keep all of it alive.
  return { ...ask, params: standIn(ask.params), cut: { shown: shownOf(ask), found: structuredClone(found) } };
}

/** Digests of whole questions already computed, by their params. */
const SHOWN_OF = new WeakMap<object, string>();

/**
 * What a question shows a person — its message, form and URL, at any depth — as a digest: two
 * questions show the same exactly when theirs are equal, stand-ins included.
 *
 * @example
 * const same = shownOf(before) === shownOf(ask);
 */
export function shownOf(ask: Pick<Ask, 'params' | 'cut'>): string {
  if (ask.cut) return ask.cut.shown;
  let shown = SHOWN_OF.get(ask.params);
  if (shown === undefined) {
    const { message, requestedSchema, url } = ask.params;
    shown = createHash('sha256')
      .update(jsonText([message, requestedSchema, url]) ?? '')
      .digest('base64');
    SHOWN_OF.set(ask.params, shown);
  }
  return shown;
}

/**
 * The size of `value` as JSON text, near enough, in characters; counting stops once past `limit`,
 * so a question of megabytes costs no more than `limit` to measure.
 */
export function sizeUpTo(value: unknown, limit: number): number {
  let size = 0;
  const stack: unknown[] = [value];
  while (stack.length > 0 && size <= limit) {
    const v = stack.pop();
    if (typeof v === 'string') size += v.length + 2;
    else if (Array.isArray(v)) {
      size += v.length + 2;
      if (size <= limit) stack.push(...v);
    } else if (typeof v === 'object' && v !== null) {
      const keys = Object.keys(v);
      size += keys.length + 2;
      for (const key of keys) {
        size += key.length + 3;
        if (size > limit) break;
        stack.push((v as Record<string, unknown>)[key]);
      }
    } else size += 5;
  }
  return size;
}

/** A question's stand-in: what the report, the coverage and the walk read of it, bounded. */
function standIn(params: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (params.mode === 'form' || params.mode === 'url') out.mode = params.mode;
  if (typeof params.message === 'string') out.message = shown(params.message);
  if (typeof params.url === 'string') out.url = shown(params.url);
  const schema = params.requestedSchema;
  if (typeof schema === 'object' && schema !== null && !Array.isArray(schema))
    out.requestedSchema = skeletonOf(schema as Record<string, unknown>);
  return out;
}

/**
 * A form as a stand-in keeps it: its fields by name as sent (no more than a form may have), each
 * as a client reads it (`parseFormSchema`: within the form caps) when the form so read is small,
 * else as a bare name; and the names it requires. The walk then takes the same branches as it
 * would of the whole, and `fieldsOf` and EK04 read it alike.
 */
function skeletonOf(raw: Record<string, unknown>): Record<string, unknown> {
  const { schema } = parseFormSchema(raw);
  // Copied, as the findings are: what the client read may be cut out of longer text.
  const read: Record<string, unknown> =
    sizeUpTo(schema, KEEP_WHOLE) <= KEEP_WHOLE ? structuredClone(schema.properties) : {};
  const properties: Record<string, unknown> = {};
  for (const name of fieldsOf({ requestedSchema: raw }).slice(0, FORM_LIMITS.fields)) {
    // Defined, not assigned: a field named `__proto__` stays a field.
    Object.defineProperty(properties, shown(name), {
      value: Object.hasOwn(read, name) ? read[name] : {},
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  const required = Array.isArray(raw.required)
    ? raw.required
        .slice(0, FORM_LIMITS.fields)
        .filter((name): name is string => typeof name === 'string')
        .map(shown)
    : undefined;
  return { type: 'object', properties, ...(required ? { required } : {}) };
}

/** A text to show: itself when short, else its start, copied (a slice keeps the whole alive), and its length. */
function shown(text: string): string {
  if (text.length <= SHOWN) return text;
  // Never half of a character at the cut.
  const end = /[\uD800-\uDBFF]/.test(text.charAt(SHOWN - 1)) ? SHOWN - 1 : SHOWN;
  return `${structuredClone(text.slice(0, end))}… (${text.length} characters)`;
}
