/**
 * JSON a person typed (`--args`, a `k={…}` value), read so that what is sent is what was typed.
 * `JSON.parse` says nothing when it does otherwise: each number becomes the nearest double
 * (`1e-400` is 0, `0.10000000000000000001` is 0.1, `123456789012345678` is …680, `1e400` is
 * Infinity, sent as null), `-0` is sent as 0, a key given twice keeps only its last value, and a
 * `\ud800` escape makes half a character no UTF-8 text can carry. Each of these is refused, naming
 * where it is (`$.meta.ids[1]`), rather than sent as something else.
 */
import { numberReadAs } from './exact-number.js';

/**
 * Why a value typed as JSON would not be sent as typed, as data, so that each reader can say it in
 * its own words and language (`why` is the English the CLI prints).
 */
export type NotAsTypedReason =
  /** `-0` (any spelling of it): JSON.stringify writes 0. */
  | { kind: 'negative-zero'; written: string }
  /** A number read as another (`1e400` is sent as null, `0.1000000000000000001` as 0.1). */
  | { kind: 'inexact'; written: string; arrivesAs: string }
  /** A whole number past ±2^53-1: exact, yet the double stands for several whole numbers. */
  | { kind: 'unsafe-integer'; written: string; max: number }
  /** A key given twice in one object: JSON keeps only the last value. */
  | { kind: 'duplicate-key' }
  /** A lone UTF-16 surrogate (`\ud800`) in a key or a string: no UTF-8 text can carry it. */
  | { kind: 'half-character' }
  /** Objects and arrays nested past `max` levels: the SDK could not write the message (see MAX_TYPED_DEPTH). */
  | { kind: 'too-deep'; max: number };

/**
 * How deep typed JSON may nest. The SDK writes each message with `JSON.stringify`, which recurses
 * and overflows the stack past a few thousand levels (`Maximum call stack size exceeded`, nothing
 * sent); this bound stays well inside that, whatever the stack holds when the message is written,
 * and no tool's arguments come near it.
 */
export const MAX_TYPED_DEPTH = 1_000;

/** How typed JSON is read: see `NotAsTypedOptions.answer`. */
export interface NotAsTypedOptions {
  /**
   * The JSON is an answer to a form (an answers file, a page's form sent to its route): a whole
   * number past ±2^53-1 read exactly (`1e16`, `9007199254740992`) is taken as it is, as a form
   * takes it typed into a number field, and the form's field judges it — a whole-number field
   * refuses it ("larger whole numbers cannot be exact"). Everything else is refused as in
   * arguments, a number JSON would round (`9007199254740993`) included.
   */
  answer?: boolean;
}

/** What in `text` would not be sent as typed, and where: the first found. */
export interface NotAsTyped {
  /** Where it is: `$` the whole value, `$.meta.ids[1]` inside it (a key's half character as U+FFFD). */
  path: string;
  /** The reason in English, for the CLI: `-0 cannot be sent exactly: …`. */
  why: string;
  reason: NotAsTypedReason;
}

/**
 * `text` parsed (it must be valid JSON: call after `JSON.parse` took it), or the first thing in it
 * that would not reach the tool as typed. Walked without recursion: JSON may nest deeper than the stack.
 *
 * @example
 * notAsTyped('{"a":1,"a":2}') // { path: '$.a', why: 'is given twice: JSON keeps only the last value' }
 */
export function notAsTyped(text: string, options: NotAsTypedOptions = {}): NotAsTyped | undefined {
  type Frame = { keys: Set<string>; key: string | undefined; path: string } | { index: number; path: string };
  const frames: Frame[] = [];
  let expectKey = false;
  const here = (): string => {
    const top = frames.at(-1);
    if (!top) return '$';
    // A key's half character shown as U+FFFD: the message is text too.
    return 'keys' in top ? `${top.path}.${(top.key ?? '').replace(/\p{Cs}/gu, '\uFFFD')}` : `${top.path}[${top.index}]`;
  };
  const number = /-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '"') {
      const start = i;
      for (i++; i < text.length && text[i] !== '"'; i++) if (text[i] === '\\') i++;
      const value = JSON.parse(text.slice(start, i + 1)) as string;
      const top = frames.at(-1);
      if (expectKey && top && 'keys' in top) {
        top.key = value;
        expectKey = false;
        if (/\p{Cs}/u.test(value)) return found(here(), { kind: 'half-character' });
        if (top.keys.has(value)) return found(here(), { kind: 'duplicate-key' });
        top.keys.add(value);
      } else if (/\p{Cs}/u.test(value)) return found(here(), { kind: 'half-character' });
    } else if (c === '{' || c === '[') {
      const path = here();
      // Where the nesting passed the bound, its first 60 characters (a whole character last).
      if (frames.length === MAX_TYPED_DEPTH) {
        const points = Array.from(path);
        const shown = points.length > 60 ? `${points.slice(0, 60).join('')}…` : path;
        return found(shown, { kind: 'too-deep', max: MAX_TYPED_DEPTH });
      }
      frames.push(c === '{' ? { keys: new Set(), key: undefined, path } : { index: 0, path });
      expectKey = c === '{';
    } else if (c === '}' || c === ']') {
      frames.pop();
    } else if (c === ',') {
      const top = frames.at(-1);
      if (top && 'keys' in top) expectKey = true;
      else if (top) top.index++;
    } else if (c === '-' || (c !== undefined && c >= '0' && c <= '9')) {
      number.lastIndex = i;
      const written = number.exec(text)?.[0] ?? c;
      const reason = numberNotAsTyped(written, options);
      if (reason) return found(here(), reason);
      i += written.length - 1;
    }
  }
  return undefined;
}

/** `reason` at `path`, with its English `why`. */
function found(path: string, reason: NotAsTypedReason): NotAsTyped {
  return { path, why: notAsTypedWhy(reason), reason };
}

/**
 * `reason` in English, as the CLI says it after the path.
 *
 * @example
 * notAsTypedWhy({ kind: 'duplicate-key' }) // 'is given twice: JSON keeps only the last value'
 */
export function notAsTypedWhy(reason: NotAsTypedReason): string {
  switch (reason.kind) {
    case 'negative-zero':
      return `${reason.written} cannot be sent exactly: JSON has no negative zero, it would arrive as 0`;
    case 'inexact':
      return `${reason.written} cannot be sent exactly: it would arrive as ${reason.arrivesAs}`;
    case 'unsafe-integer':
      return `${reason.written} cannot be sent exactly: whole numbers within ±${reason.max} only; send it as a string`;
    case 'duplicate-key':
      return 'is given twice: JSON keeps only the last value';
    case 'half-character':
      return 'holds half of a character (a lone UTF-16 surrogate such as \\ud800): no UTF-8 text can carry it; send the whole character';
    case 'too-deep':
      return `nests deeper than ${reason.max} levels of objects and arrays: a message so deep cannot be written (send it flatter)`;
  }
}

/**
 * Why the JSON number `typed` would not be sent as typed, or undefined when it would: the one rule
 * for a number a person types, as JSON or as a `k=v` value (`written` in the reason is cut to 40
 * characters: a number of a million digits is named by its start).
 *
 * @example
 * numberNotAsTyped('-0') // { kind: 'negative-zero', written: '-0' }
 * numberNotAsTyped('9007199254740992') // { kind: 'unsafe-integer', … }
 * numberNotAsTyped('1.0') // undefined
 */
export function numberNotAsTyped(typed: string, options: NotAsTypedOptions = {}): NotAsTypedReason | undefined {
  const value = Number(typed);
  const sent = Object.is(value, -0) ? undefined : numberReadAs(typed);
  if (sent !== undefined) return { kind: 'inexact', written: cut(typed), arrivesAs: sent };
  return valueNotAsTyped(typed, value, options);
}

/**
 * Why `value`, read exactly from `written` (as JSON or by a form's rules: `+5`), is still not sent
 * as written: `-0` (sent as 0), a whole number past ±2^53-1; undefined when it is.
 */
export function valueNotAsTyped(
  written: string,
  value: number,
  options: NotAsTypedOptions = {},
): NotAsTypedReason | undefined {
  if (Object.is(value, -0)) return { kind: 'negative-zero', written: cut(written) };
  // Exact, yet past ±2^53-1 each double stands for several whole numbers: a reader cannot tell
  // which. An answer's form says what its field takes instead (see `NotAsTypedOptions.answer`).
  if (!options.answer && Number.isInteger(value) && !Number.isSafeInteger(value))
    return { kind: 'unsafe-integer', written: cut(written), max: Number.MAX_SAFE_INTEGER };
  return undefined;
}

/** `text` cut to 40 characters, for quoting: a number of a million digits is named by its start. */
export function cut(text: string): string {
  return text.length <= 40 ? text : `${text.slice(0, 40)}…`;
}
