/**
 * JSON a person typed (`--args`, a `k={…}` value), read so that what is sent is what was typed.
 * `JSON.parse` says nothing when it does otherwise: each number becomes the nearest double
 * (`1e-400` is 0, `0.10000000000000000001` is 0.1, `123456789012345678` is …680, `1e400` is
 * Infinity, sent as null), `-0` is sent as 0, a key given twice keeps only its last value, and a
 * `\ud800` escape makes half a character no UTF-8 text can carry. Each of these is refused, naming
 * where it is (`$.meta.ids[1]`), rather than sent as something else.
 */
import { numberReadAs } from './exact-number.js';

/** What in `text` would not be sent as typed, and where: the first found. */
export interface NotAsTyped {
  path: string;
  why: string;
}

/**
 * `text` parsed (it must be valid JSON: call after `JSON.parse` took it), or the first thing in it
 * that would not reach the tool as typed. Walked without recursion: JSON may nest deeper than the stack.
 *
 * @example
 * notAsTyped('{"a":1,"a":2}') // { path: '$.a', why: 'is given twice: JSON keeps only the last value' }
 */
export function notAsTyped(text: string): NotAsTyped | undefined {
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
        if (/\p{Cs}/u.test(value)) return { path: here(), why: HALF };
        if (top.keys.has(value)) return { path: here(), why: 'is given twice: JSON keeps only the last value' };
        top.keys.add(value);
      } else if (/\p{Cs}/u.test(value)) return { path: here(), why: HALF };
    } else if (c === '{' || c === '[') {
      const path = here();
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
      const why = inexact(written);
      if (why) return { path: here(), why };
      i += written.length - 1;
    }
  }
  return undefined;
}

const HALF =
  'holds half of a character (a lone UTF-16 surrogate such as \\ud800): no UTF-8 text can carry it; send the whole character';

/** Why the number `typed` would not be sent as typed, or undefined when it would. */
function inexact(typed: string): string | undefined {
  const read = Number(typed);
  // Quoted in a message: a number of a million digits is named by its start.
  const written = typed.length <= 40 ? typed : `${typed.slice(0, 40)}…`;
  if (Object.is(read, -0)) return `${written} cannot be sent exactly: JSON has no negative zero, it would arrive as 0`;
  const sent = numberReadAs(typed);
  if (sent !== undefined) return `${written} cannot be sent exactly: it would arrive as ${sent}`;
  // Exact, yet past ±2^53-1 each double stands for several whole numbers: a reader cannot tell which.
  if (Number.isInteger(read) && !Number.isSafeInteger(read))
    return `${written} cannot be sent exactly: whole numbers within ±${Number.MAX_SAFE_INTEGER} only; send it as a string`;
  return undefined;
}
