import type { Locale } from './locale';

/** A lone UTF-16 surrogate: half of a character (in a `u` regex a whole pair is one code point, not matched). */
const HALF = /\p{Cs}/gu;

/**
 * `text` with every half character (a lone UTF-16 surrogate, which no UTF-8 text can carry)
 * replaced by U+FFFD, and how many there were. A whole pair is kept.
 *
 * @example
 * wholeText('a\ud800b'); // { text: 'a\ufffdb', halves: 1 }
 */
export function wholeText(text: string): { text: string; halves: number } {
  let halves = 0;
  const whole = text.replace(HALF, () => {
    halves++;
    return '\uFFFD';
  });
  return { text: whole, halves };
}

/** Whether `text` holds half a character. */
export function holdsHalf(text: string): boolean {
  HALF.lastIndex = 0;
  const found = HALF.test(text);
  HALF.lastIndex = 0;
  return found;
}

/**
 * `value` (JSON-like) with every string and key made whole (`wholeText`), and how many halves
 * were replaced; a value with none is returned as it is (the same object).
 *
 * @example
 * wholeValue({ name: 'Zo\ud800e' }); // { value: { name: 'Zo\ufffde' }, halves: 1 }
 */
export function wholeValue<T>(value: T): { value: T; halves: number } {
  let halves = 0;
  const walk = (v: unknown): unknown => {
    if (typeof v === 'string') {
      if (!holdsHalf(v)) return v;
      const w = wholeText(v);
      halves += w.halves;
      return w.text;
    }
    if (Array.isArray(v)) {
      let changed = false;
      const out = v.map((item) => {
        const next = walk(item);
        if (next !== item) changed = true;
        return next;
      });
      return changed ? out : v;
    }
    if (typeof v === 'object' && v !== null) {
      let changed = false;
      const out: Record<string, unknown> = {};
      for (const [key, item] of Object.entries(v)) {
        const k = walk(key) as string;
        const next = walk(item);
        if (k !== key || next !== item) changed = true;
        // defineProperty: a key "__proto__" stays a key, not the prototype.
        Object.defineProperty(out, k, { value: next, enumerable: true, writable: true, configurable: true });
      }
      return changed ? out : v;
    }
    return v;
  };
  const value_ = walk(value) as T;
  return { value: value_, halves };
}

/**
 * What a tool result's text says after it when the server's result held half characters: the
 * person and the model both read the result, and U+FFFD alone reads as a character the server sent.
 */
export const HALVES_REPLACED: Record<Locale, (halves: number) => string> = {
  en: (n) =>
    `[The server's result held ${n === 1 ? 'half of a character (a lone UTF-16 surrogate)' : `${n} half characters (lone UTF-16 surrogates)`}, shown as \uFFFD: what the server meant there is not known.]`,
  zh: (n) =>
    `[服务器的结果含有 ${n} 个半个字符（孤立的 UTF-16 代理项），显示为 \uFFFD：服务器在那里原本的意思无从得知。]`,
};
