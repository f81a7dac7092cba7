/**
 * A tool's arguments are checked here, not by the SDK. The SDK validates `inputSchema` before any
 * handler runs and answers a failure with a bare `isError` text, without `structuredContent.status`
 * (every Elicitkit tool result has one: `docs/server.md`). So the SDK is handed a schema that advertises the real JSON
 * Schema in `tools/list` and lets every value through, and the real schema is applied by the kit,
 * where a failure becomes the `invalid` result.
 */
import type { Issue } from '@elicitkit/form';
import type { StandardSchemaV1, StandardSchemaWithJSON } from '@modelcontextprotocol/server';
import { type Locale, MESSAGES } from './messages.js';

/** The arguments after the tool's schema (defaults and transforms applied), or why they were refused. */
export type ParsedArguments = { ok: true; value: unknown } | { ok: false; issues: Issue[] };

type JsonSchemaOf = NonNullable<StandardSchemaWithJSON['~standard']['jsonSchema']>;
const converted = new WeakMap<StandardSchemaWithJSON, JsonSchemaOf>();

/**
 * The schema's JSON Schema conversion, done once per schema and target. The SDK converts on each
 * new server (one per 2025 session, one per 2026-07-28 request), and a zod → JSON Schema
 * conversion costs more than the rest of a round.
 */
function convertOnce(schema: StandardSchemaWithJSON): JsonSchemaOf {
  const known = converted.get(schema);
  if (known) return known;
  const real = schema['~standard'].jsonSchema;
  const memo = (io: 'input' | 'output') => {
    const byTarget = new Map<string, Record<string, unknown>>();
    return (options: Parameters<JsonSchemaOf['input']>[0]) => {
      const key = String(options?.target ?? '');
      let json = byTarget.get(key);
      if (!json) {
        json = real[io](options);
        byTarget.set(key, json);
      }
      return json;
    };
  };
  const once: JsonSchemaOf = { input: memo('input'), output: memo('output') };
  converted.set(schema, once);
  return once;
}

/**
 * What the SDK is given for `schema`: the same JSON Schema (so `tools/list` and the SDK's HTTP
 * header checks see the real one, converted once) and a `validate` that accepts anything as it is.
 */
export function advertised(schema: StandardSchemaWithJSON): StandardSchemaWithJSON {
  const real = schema['~standard'];
  return {
    '~standard': {
      version: 1,
      vendor: `elicitkit(${real.vendor})`,
      validate: (value) => ({ value }),
      jsonSchema: convertOnce(schema),
    },
  };
}

/** The output schema as the SDK is given it: validated as it is, its JSON Schema converted once. */
export function withConvertedJson(schema: StandardSchemaWithJSON): StandardSchemaWithJSON {
  return { '~standard': { ...schema['~standard'], jsonSchema: convertOnce(schema) } };
}

/**
 * Applies the tool's real input schema; a tool without one takes what it is given. A schema that
 * validates synchronously (zod without async refinements) answers without a promise: every
 * `await` is a turn of the microtask queue on each call.
 */
export function parseArguments(
  schema: StandardSchemaWithJSON | undefined,
  value: unknown,
  locale: Locale = 'en',
): ParsedArguments | Promise<ParsedArguments> {
  if (!schema) return { ok: true, value };
  const result = schema['~standard'].validate(value);
  // Any thenable, not only a native Promise: a library's own promise type must not read as a result.
  return isThenable(result)
    ? Promise.resolve(result).then((r) => toParsed(r, value, locale))
    : toParsed(result, value, locale);
}

function isThenable(value: unknown): value is PromiseLike<StandardSchemaV1.Result<unknown>> {
  return typeof (value as { then?: unknown } | null)?.then === 'function';
}

function toParsed(result: StandardSchemaV1.Result<unknown>, given: unknown, locale: Locale): ParsedArguments {
  if (!result.issues) return { ok: true, value: result.value };
  return { ok: false, issues: result.issues.map((issue) => toIssue(issue, given, locale)) };
}

/**
 * A schema library's issue as the issue data every result carries, named by its argument. An
 * argument that was not given at all says so in words (`required`), not in the library's
 * ("expected string, received undefined").
 */
function toIssue(issue: StandardSchemaV1.Issue, given: unknown, locale: Locale): Issue {
  const path = (issue.path ?? []).map((segment) => {
    const key = typeof segment === 'object' ? segment.key : segment;
    return typeof key === 'number' ? key : String(key);
  });
  const where = path.join('.');
  if (path.length > 0 && missing(given, path))
    return { path, code: 'required', message: MESSAGES[locale].missingArgument(where) };
  return { path, code: 'custom', message: where === '' ? issue.message : `${where}: ${issue.message}` };
}

/** Whether nothing was given at `path` (its parent an object that lacks the key, or holds undefined). */
function missing(given: unknown, path: readonly (string | number)[]): boolean {
  let at: unknown = given;
  for (const key of path) {
    if (typeof at !== 'object' || at === null) return false;
    if (!Object.hasOwn(at, key) || (at as Record<string | number, unknown>)[key] === undefined) return true;
    at = (at as Record<string | number, unknown>)[key];
  }
  return false;
}
