/**
 * `linearPattern` against ECMAScript's own RegExp: the same verdict on every text for every
 * pattern it checks, since its rewriting into RE2's syntax keeps ECMAScript's meaning of each
 * construct (`.`, `\s`, `\uXXXX`, `[^]`, `\p{Letter}`).
 * Hostile patterns are answered without delay, and what RE2 cannot take is left unchecked, saying why.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { linearPattern } from './linear-pattern.js';

const native = (pattern: string, text: string) => new RegExp(pattern, 'u').test(text);

describe('linearPattern judges as ECMAScript does', () => {
  it.each([
    // `\s` is ECMAScript's (Unicode spaces, \v, BOM), not RE2's ASCII one.
    ['^\\s$', [' ', '\u00a0', '\v', '\u3000', '\ufeff', '\u2028', 'x', '\u200b']],
    ['^\\S+$', ['ab', 'a b', 'a\u00a0b']],
    ['^[\\s\\d]+$', ['1 2\u3000', '1x']],
    // `.` stops at every line terminator, and takes a whole astral character.
    ['^.$', ['\r', '\n', '\u2028', '\u2029', '😀', 'a', '\u0085']],
    ['^a$', ['a', 'a\n', '\na']],
    ['\\u0041\\u{1F600}', ['A😀', 'A']],
    ['^\\uD83D\\uDE00$', ['😀', '\uD83D']],
    ['^\\x41\\cJ\\0$', ['A\n\0', 'A\n']],
    ['[^]', ['x', '\n', '']],
    ['^[]$', ['', 'x']],
    ['^[\\b]$', ['\b', 'b']],
    ['^[[a]+$', ['[a', 'a]']],
    ['^[\\-\\]\\^]+$', ['-]^', 'a']],
    ['(?<year>\\d{4})-(?:\\d\\d)', ['2024-01', '24-01']],
    ['\\p{L}+\\P{L}', ['é1', 'éé']],
    ['^\\p{Script=Greek}\\p{sc=Latin}\\p{gc=Lu}$', ['αaA', 'aαA']],
    // General categories by their long names and aliases, as RE2 knows only the short ones.
    ['^\\p{Letter}+\\P{Letter}$', ['éa1', 'éé', '1']],
    ['^\\p{General_Category=Uppercase_Letter}\\p{gc=Lowercase_Letter}$', ['Aa', 'aA', 'ÉÉ']],
    ['^[\\p{Decimal_Number}\\p{punct}]+$', ['٣,1!', '1a']],
    ['^\\p{Currency_Symbol}\\p{Space_Separator}\\p{digit}$', ['€\u00a01', '€ x', 'E 1']],
    ['^\\p{Mark}\\p{Combining_Mark}\\p{Cased_Letter}$', ['\u0301\u0300a', 'a\u0301a']],
    ['^\\p{Control}\\p{cntrl}\\p{Other}$', ['\u0001\u0002\u0003', 'abc']],
    ['^\\p{Any}$', ['x', '😀', '']],
    // Binary properties RE2 knows by ECMAScript's names.
    ['^\\p{Alphabetic}\\p{White_Space}\\P{Emoji}$', ['a\u3000x', 'a 😀', '1 x']],
    ['\\bfoo\\B', ['a fooo', 'a foo']],
    ['^\\d\\D\\w\\W$', ['1a_ ', '٣a_ ']],
    ['^a{2,3}?b*?c+?$', ['aac', 'ac', 'aaabbc']],
    ['^(?:cat|dog)s?$', ['cats', 'dog', 'cow']],
    ['^😀{2}$', ['😀😀', '😀']],
    ['^\\/\\.\\*\\$$', ['/.*$', '/x*$']],
  ])('%s', (pattern, texts) => {
    const checked = linearPattern(pattern, 'u');
    expect(checked.unchecked).toBeUndefined();
    for (const text of texts) expect(checked.test(text), JSON.stringify(text)).toBe(native(pattern, text));
  });

  it('prints as the RegExp it stands for (Ajv keys each compiled pattern by it)', () => {
    expect(String(linearPattern('^a+$', 'u'))).toBe('/^a+$/u');
    expect(String(linearPattern('^b+$', ''))).toBe('/^b+$/');
  });

  it('on random patterns and texts (property)', () => {
    const alphabet = ['a', 'b', ' ', '\n', '\r', '\u00a0', '😀', '1', '-', '\u2028'];
    const atom = fc.constantFrom(
      'a',
      'b',
      '1',
      '-',
      '😀',
      '.',
      '\\s',
      '\\S',
      '\\d',
      '\\D',
      '\\w',
      '\\W',
      '\\u0061',
      '\\u{1F600}',
      '\\x62',
      '\\n',
      '[ab]',
      '[^a]',
      '[\\s1]',
      '[a-b]',
      '[^]',
      '[^\\s]',
      '[\\d-]',
      '\\b',
      '\\B',
      '^',
      '$',
      '\\p{L}',
      '\\P{N}',
      '\\p{Letter}',
      '\\P{gc=Decimal_Number}',
      '[\\p{Lowercase_Letter}1]',
      '\\-'.slice(1),
    );
    const quantifier = fc.constantFrom('', '', '*', '+', '?', '{1,2}', '*?', '+?', '{2}');
    const pattern: fc.Arbitrary<string> = fc.letrec<{ p: string }>((tie) => ({
      p: fc.oneof(
        { depthSize: 'small', withCrossShrink: true },
        fc.tuple(atom, quantifier).map(([a, q]) => (/^[\^$]|\\[bB]$/.test(a) ? a : a + q)),
        fc.array(tie('p'), { minLength: 1, maxLength: 4 }).map((parts) => parts.join('')),
        fc.tuple(tie('p'), tie('p')).map(([x, y]) => `${x}|${y}`),
        fc.tuple(fc.constantFrom('(?:', '(', '(?<g>'), tie('p'), quantifier).map(([open, p, q]) => `${open}${p})${q}`),
      ),
    })).p;
    const text = fc.array(fc.constantFrom(...alphabet), { maxLength: 8 }).map((cs) => cs.join(''));
    fc.assert(
      fc.property(pattern, fc.array(text, { minLength: 1, maxLength: 6 }), (p, texts) => {
        let compiled: RegExp;
        try {
          compiled = new RegExp(p, 'u');
        } catch {
          expect(() => linearPattern(p, 'u')).toThrow(SyntaxError);
          return;
        }
        const checked = linearPattern(p, 'u');
        if (checked.unchecked !== undefined) return;
        for (const t of texts) {
          // V8 tries `\B` between the two halves of an astral character ('a😀a' matches /\B/u at
          // index 2); RE2 reads whole characters, as the u flag means. Not compared there.
          if (p.includes('\\B') && /[\u{10000}-\u{10ffff}]/u.test(t)) continue;
          expect(checked.test(t), `${p} on ${JSON.stringify(t)}`).toBe(compiled.test(t));
        }
      }),
      { numRuns: 3000 },
    );
  });
});

describe('a hostile pattern', () => {
  // Each takes a backtracking engine longer than the universe has existed on these texts; a test
  // run on RegExp would never end (vitest's timeout is what fails it).
  it.each([
    ['^(a+)+$', `${'a'.repeat(5000)}!`],
    ['^(a|a)*$', `${'a'.repeat(5000)}!`],
    ['^(\\w+\\s?)*$', `${'word '.repeat(2000)}!`],
    ['(x+x+)+y', 'x'.repeat(5000)],
    [
      '^([a-zA-Z0-9])(([\\-.]|[_]+)?([a-zA-Z0-9]+))*(@){1}[a-z0-9]+[.]{1}(([a-z]{2,3})|([a-z]{2,3}[.]{1}[a-z]{2,3}))$',
      `${'a'.repeat(5000)}@`,
    ],
  ])('%s is refused at once', (pattern, text) => {
    const checked = linearPattern(pattern, 'u');
    expect(checked.unchecked).toBeUndefined();
    expect(checked.test(text)).toBe(false);
    expect(checked.test(text.replace(/[!@]$/, '').replace(/ $/, ''))).toBe(
      pattern !== '(x+x+)+y' && !pattern.includes('@'),
    );
  });

  it('a text of a million characters is read in one pass', () => {
    expect(linearPattern('^(a+)+$', 'u').test('a'.repeat(1_000_000))).toBe(true);
  });
});

describe('what RE2 cannot take', () => {
  it.each([
    ['(a)\\1', 'a back-reference'],
    ['(?<x>a)\\k<x>', 'a back-reference'],
    ['(?=a)a', 'a look-around'],
    ['(?!a)b', 'a look-around'],
    ['(?<=a)b', 'a look-around'],
    ['(?<!a)b', 'a look-around'],
    ['[^\\S]', '\\S inside a class'],
    ['\\p{Script_Extensions=Greek}', 'the Unicode property Script_Extensions'],
    ['\\uD800', 'half of a character (a lone surrogate)'],
    ['\\p{ID_Start}', 'RE2 cannot take it'],
    ['a{1001}', 'RE2 cannot take it'],
  ])('%s is not checked: every text passes, and why is said', (pattern, why) => {
    const checked = linearPattern(pattern, 'u');
    expect(checked.unchecked).toContain(why);
    expect(checked.test('')).toBe(true);
    expect(checked.test('zzz')).toBe(true);
  });

  it.each(['(', '[a', 'a{2,1}', '\\-', 'a**', '(?P<x>a)', '\\z'])(
    '%s, which ECMAScript refuses, throws its SyntaxError (the schema does not compile, as with RegExp)',
    (pattern) => {
      expect(() => linearPattern(pattern, 'u')).toThrow(SyntaxError);
    },
  );
});
