import { RE2JS } from 're2js';

/**
 * A JSON Schema `pattern` (an ECMAScript regular expression) checked in time linear in the text:
 * a server's schema is not trusted code, and `^(a+)+$` against forty `a`s and a `!` keeps a
 * backtracking engine (every browser's and Node's RegExp) busy for hours, with no way to stop it
 * on the thread it blocks — Ctrl+C included. The pattern is rewritten into RE2's syntax, keeping
 * what each construct means in ECMAScript (`.`, `\s`, `\uXXXX`, `[^]`, `\p{Letter}`).
 * RE2JS runs it, in time linear in the text. What RE2 cannot express in linear time
 * (look-around, back-references, Unicode properties it does not know, a count past 1,000) is not
 * checked: the pattern then accepts every text, and `unchecked` says why.
 */
export interface LinearPattern {
  test(text: string): boolean;
  /** Why the pattern is not checked (every text passes), or undefined when it is. */
  readonly unchecked: string | undefined;
  /** The pattern and its flags, as a RegExp prints them (Ajv keys compiled patterns by it). */
  toString(): string;
}

/** ECMAScript's `\s`: WhiteSpace and LineTerminator, in RE2's syntax (class members). */
const SPACE =
  '\\t\\n\\x{b}\\f\\r \\x{a0}\\x{1680}\\x{2000}-\\x{200a}\\x{2028}\\x{2029}\\x{202f}\\x{205f}\\x{3000}\\x{feff}';
/** ECMAScript's `.` without the `s` flag: any code point but a line terminator. */
const DOT = '[^\\n\\r\\x{2028}\\x{2029}]';
const ANY = '\\x{0}-\\x{10ffff}';
const HEX = /^[0-9a-fA-F]+$/;

class Unsupported extends Error {}

/**
 * The general categories' long names and other aliases ECMAScript takes (Unicode's
 * PropertyValueAliases), by the short name, the only one RE2 knows: `\p{Letter}` is `\p{L}`.
 */
const CATEGORY_ALIASES: ReadonlyMap<string, string> = new Map(
  Object.entries({
    L: 'Letter',
    LC: 'Cased_Letter',
    Lu: 'Uppercase_Letter',
    Ll: 'Lowercase_Letter',
    Lt: 'Titlecase_Letter',
    Lm: 'Modifier_Letter',
    Lo: 'Other_Letter',
    M: 'Mark Combining_Mark',
    Mn: 'Nonspacing_Mark',
    Mc: 'Spacing_Mark',
    Me: 'Enclosing_Mark',
    N: 'Number',
    Nd: 'Decimal_Number digit',
    Nl: 'Letter_Number',
    No: 'Other_Number',
    P: 'Punctuation punct',
    Pc: 'Connector_Punctuation',
    Pd: 'Dash_Punctuation',
    Ps: 'Open_Punctuation',
    Pe: 'Close_Punctuation',
    Pi: 'Initial_Punctuation',
    Pf: 'Final_Punctuation',
    Po: 'Other_Punctuation',
    S: 'Symbol',
    Sm: 'Math_Symbol',
    Sc: 'Currency_Symbol',
    Sk: 'Modifier_Symbol',
    So: 'Other_Symbol',
    Z: 'Separator',
    Zs: 'Space_Separator',
    Zl: 'Line_Separator',
    Zp: 'Paragraph_Separator',
    C: 'Other',
    Cc: 'Control cntrl',
    Cf: 'Format',
    Cs: 'Surrogate',
    Co: 'Private_Use',
    Cn: 'Unassigned',
  }).flatMap(([short, names]) => names.split(' ').map((name): [string, string] => [name, short])),
);

/** `pattern` in RE2's syntax with ECMAScript's (`u` flag) meaning; throws Unsupported for what RE2 lacks. */
export function toRe2(pattern: string): string {
  let i = 0;
  let out = '';
  const n = pattern.length;
  const codePoint = (cp: number) => {
    if (cp >= 0xd800 && cp <= 0xdfff) throw new Unsupported('half of a character (a lone surrogate)');
    return `\\x{${cp.toString(16)}}`;
  };
  const hex = (from: number, length: number): number => {
    const digits = pattern.slice(from, from + length);
    if (digits.length !== length || !HEX.test(digits)) throw new Unsupported(`\\${pattern[from - 1]} escape`);
    return Number.parseInt(digits, 16);
  };
  /** The escape at `i` (a backslash), advancing `i`; inside a class its members, else an atom. */
  const escaped = (inClass: boolean): string => {
    const c = pattern[i + 1];
    i += 2;
    switch (c) {
      case 'u': {
        if (pattern[i] === '{') {
          const end = pattern.indexOf('}', i);
          if (end < 0) throw new Unsupported('\\u{ escape');
          const cp = hex(i + 1, end - i - 1);
          i = end + 1;
          return codePoint(cp);
        }
        let cp = hex(i, 4);
        i += 4;
        if (cp >= 0xd800 && cp <= 0xdbff && pattern[i] === '\\' && pattern[i + 1] === 'u') {
          const low = Number.parseInt(pattern.slice(i + 2, i + 6), 16);
          if (low >= 0xdc00 && low <= 0xdfff && HEX.test(pattern.slice(i + 2, i + 6))) {
            cp = 0x10000 + ((cp - 0xd800) << 10) + (low - 0xdc00);
            i += 6;
          }
        }
        return codePoint(cp);
      }
      case 'x': {
        const cp = hex(i, 2);
        i += 2;
        return codePoint(cp);
      }
      case 'c': {
        const letter = pattern[i] ?? '';
        if (!/^[A-Za-z]$/.test(letter)) throw new Unsupported('\\c escape');
        i += 1;
        return codePoint(letter.charCodeAt(0) % 32);
      }
      case '0':
        return codePoint(0);
      case 's':
        return inClass ? SPACE : `[${SPACE}]`;
      case 'S':
        if (inClass) throw new Unsupported('\\S inside a class');
        return `[^${SPACE}]`;
      case 'b':
        return inClass ? codePoint(8) : '\\b';
      case 'v':
        return codePoint(0xb);
      case 'p':
      case 'P':
        return `\\${c}{${property()}}`;
      case 'k':
        throw new Unsupported('a back-reference');
      case undefined:
        throw new Unsupported('a lone backslash');
      default:
        if (c >= '1' && c <= '9') throw new Unsupported('a back-reference');
        // \d \D \w \W \B \f \n \r \t mean the same in RE2; any other is a syntax character escaped.
        return `\\${c}`;
    }
  };
  /** `\p{…}`'s name in RE2's terms (a general category or a script), `i` just past the `p`. */
  const property = (): string => {
    const end = pattern.indexOf('}', i);
    if (pattern[i] !== '{' || end < 0) throw new Unsupported('\\p escape');
    const body = pattern.slice(i + 1, end);
    i = end + 1;
    const eq = body.indexOf('=');
    // A lone name is a general category, or a binary property: RE2 knows some by the same names
    // and meaning (`Alphabetic`, `White_Space`, `Emoji`: checked on every code point), not others.
    if (eq < 0) return CATEGORY_ALIASES.get(body) ?? body;
    const key = body.slice(0, eq);
    const value = body.slice(eq + 1);
    if (key === 'General_Category' || key === 'gc') return CATEGORY_ALIASES.get(value) ?? value;
    if (key === 'Script' || key === 'sc') return value;
    throw new Unsupported(`the Unicode property ${key}`);
  };
  const characterClass = (): string => {
    i += 1;
    let negated = false;
    if (pattern[i] === '^') {
      negated = true;
      i += 1;
    }
    if (pattern[i] === ']') {
      // `[]` matches nothing and `[^]` any character in ECMAScript; in RE2 a `]` first is a member.
      i += 1;
      return negated ? `[${ANY}]` : `[^${ANY}]`;
    }
    let body = '';
    while (i < n && pattern[i] !== ']') {
      const c = pattern[i] as string;
      if (c === '\\') body += escaped(true);
      else {
        // `[` is a member in ECMAScript, the start of `[:alpha:]` in RE2.
        body += c === '[' ? '\\[' : c;
        i += 1;
      }
    }
    if (i >= n) throw new Unsupported('an unclosed class');
    i += 1;
    return `[${negated ? '^' : ''}${body}]`;
  };
  while (i < n) {
    const c = pattern[i] as string;
    if (c === '\\') out += escaped(false);
    else if (c === '[') out += characterClass();
    else if (c === '.') {
      out += DOT;
      i += 1;
    } else if (c === '(' && pattern[i + 1] === '?') {
      const kind = pattern.slice(i + 2, i + 4);
      if (kind[0] === '=' || kind[0] === '!' || kind === '<=' || kind === '<!') throw new Unsupported('a look-around');
      out += '(?';
      i += 2;
    } else {
      out += c;
      i += 1;
    }
  }
  return out;
}

/**
 * Compiles `pattern` as Ajv's `code.regExp` engine is asked to (`flags`: `'u'` or `''`). A pattern
 * ECMAScript itself refuses throws its SyntaxError, as `new RegExp` would (the schema does not
 * compile); one RE2 cannot take is unchecked.
 *
 * @example
 * linearPattern('^(a+)+$', 'u').test(`${'a'.repeat(40)}!`); // false, at once
 */
export function linearPattern(pattern: string, flags: string): LinearPattern {
  // Compiling runs nothing against a text: only to refuse what ECMAScript refuses, as Ajv would.
  const native = new RegExp(pattern, flags);
  const printed = native.toString();
  let re2: RE2JS | undefined;
  let unchecked: string | undefined;
  try {
    re2 = RE2JS.compile(toRe2(pattern));
  } catch (error) {
    unchecked = error instanceof Unsupported ? error.message : `RE2 cannot take it (${(error as Error).message})`;
  }
  return {
    test: (text) => (re2 ? re2.test(text) : true),
    unchecked,
    toString: () => printed,
  };
}
