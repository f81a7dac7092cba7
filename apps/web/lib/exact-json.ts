/**
 * Numbers written in JSON that would not reach a tool as written. `JSON.parse` reads every number
 * as the nearest double, without a word: `2.00000000000000001` is 2 (an integer field's answer, where
 * a fraction was sent), `1e-400` is 0, `123456789012345678` is …680, `1e400` is Infinity (sent as null). What the
 * tool gets is the double, written back as the shortest decimal that reads as it (`JSON.stringify`):
 * a number is taken when that decimal is the value written (`0.1`, `1e2`, `2.0`, `-0` are), and
 * refused otherwise (`numberReadAs`, the same comparison the CLI's arguments use). What the page
 * itself sends is always taken: it writes with `JSON.stringify`.
 */
import { numberReadAs } from '@elicitkit/client';

/** The first number token of valid JSON `text` whose value changes when read, and what it reads as. */
export function inexactNumberIn(text: string): { written: string; read: string } | undefined {
  const number = /-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      // A string: skip to its closing quote (a backslash escapes the next character).
      for (i++; i < text.length && text.charCodeAt(i) !== 0x22; i++) if (text.charCodeAt(i) === 0x5c) i++;
    } else if (c === 0x2d || (c >= 0x30 && c <= 0x39)) {
      number.lastIndex = i;
      const written = number.exec(text)?.[0] ?? text[i] ?? '';
      const read = numberReadAs(written);
      if (read !== undefined) return { written, read };
      i += written.length - 1;
    }
  }
  return undefined;
}

/** `text` cut to `max` characters, for quoting a number someone wrote in an error. */
export function quoted(text: string, max = 40): string {
  return text.length <= max ? text : `${text.slice(0, max)}…`;
}
