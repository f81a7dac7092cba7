/**
 * Numbers written in JSON that would not reach a tool as written. `JSON.parse` reads every number
 * as the nearest double, without a word: `2.00000000000000001` is 2 (an integer field's answer, where
 * a fraction was sent), `1e-400` is 0, `123456789012345678` is …680, `1e400` is Infinity (sent as null). What the
 * tool gets is the double, written back as the shortest decimal that reads as it (`JSON.stringify`):
 * a number is taken when that decimal is the value written (`0.1`, `1e2`, `2.0`, `-0` are), and
 * refused otherwise (`numberReadAs`, the same comparison the CLI's arguments use). What the page
 * itself sends is always taken: it writes with `JSON.stringify`.
 */
import { type NotAsTypedReason, notAsTypedWhy, numberReadAs } from '@elicitkit/client/typed-json';
import type { Locale } from './locale';

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

const ZH_REASON: { [K in NotAsTypedReason['kind']]: (r: Extract<NotAsTypedReason, { kind: K }>) => string } = {
  'negative-zero': (r) => `${r.written} 无法精确发送：JSON 没有负零，它会变成 0`,
  inexact: (r) => `${r.written} 无法精确发送：它会变成 ${r.arrivesAs}`,
  'unsafe-integer': (r) => `${r.written} 无法精确发送：整数只能在 ±${r.max} 以内；请改用字符串发送`,
  'duplicate-key': () => '出现了两次：JSON 只会保留最后一个值',
  'half-character': () => '含有半个字符（单独的 UTF-16 代理项，如 \\ud800）：UTF-8 文本无法承载；请发送完整的字符',
  'too-deep': (r) => `对象和数组嵌套超过 ${r.max} 层：这么深的消息无法写出（请改用更扁平的结构）`,
};

/**
 * Why typed JSON would not be sent as typed (`notAsTyped`'s reason), in `locale`: the CLI's words
 * in English.
 *
 * @example
 * notAsTypedIn('zh', { kind: 'duplicate-key' }); // '出现了两次：JSON 只会保留最后一个值'
 */
export function notAsTypedIn(locale: Locale, reason: NotAsTypedReason): string {
  if (locale === 'en') return notAsTypedWhy(reason);
  return (ZH_REASON[reason.kind] as (r: NotAsTypedReason) => string)(reason);
}
