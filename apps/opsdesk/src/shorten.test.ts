import { describe, expect, it } from 'vitest';
import { oneLine, spelledLine } from './shorten.js';

describe('oneLine', () => {
  it('flattens newlines and tabs, and trims', () => {
    expect(oneLine('  DELETE FROM orders\r\n\tWHERE id = 1\n')).toBe('DELETE FROM orders WHERE id = 1');
  });

  it('makes control and bidi characters visible instead of letting them act', () => {
    expect(oneLine('DROP\u0000 TABLE \u001b[2Korders')).toBe('DROP\uFFFD TABLE \uFFFD[2Korders');
    expect(oneLine('SELECT 1 -- \u202eDELETE')).toBe('SELECT 1 -- \uFFFDDELETE');
    // The Arabic letter mark is a bidi control too.
    expect(oneLine('a\u061cb')).toBe('a\uFFFDb');
  });

  it('makes invisible characters visible, so a look-alike name does not read as the name it mimics', () => {
    for (const invisible of ['\u200b', '\u200c', '\u200d', '\u2060', '\ufeff', '\u00ad', '\u180e'])
      expect(oneLine(`orders${invisible}`), invisible.codePointAt(0)?.toString(16)).toBe('orders\uFFFD');
    expect(oneLine('订单 orders ✓')).toBe('订单 orders ✓');
  });

  it('keeps the start and the end of a long statement, eliding the middle', () => {
    const sql = `UPDATE products SET name = '${'x'.repeat(5000)}' WHERE id = 7`;
    const short = oneLine(sql, 100);
    expect([...short]).toHaveLength(100);
    expect(short.startsWith('UPDATE products SET name = ')).toBe(true);
    expect(short.endsWith("' WHERE id = 7")).toBe(true);
    expect(short).toContain(' … ');
  });

  it('never splits a character made of two UTF-16 units', () => {
    const short = oneLine('😀'.repeat(300), 51);
    expect(short).not.toMatch(/[\uD800-\uDFFF](?![\uDC00-\uDFFF])/u);
    expect([...short]).toHaveLength(51);
  });
});

describe('spelledLine', () => {
  it.each([
    ['a variation selector', 'plan\uFE0E.md', 'plan⟨U+FE0E⟩.md'],
    ['an ideographic space', 'my\u3000plan.md', 'my⟨U+3000⟩plan.md'],
    ['a private-use character', 'plan\uE000.md', 'plan⟨U+E000⟩.md'],
    ['an unassigned code point', 'plan\u{E0FFF}.md', 'plan⟨U+E0FFF⟩.md'],
    ['a lone surrogate', 'plan\uD800.md', 'plan⟨U+D800⟩.md'],
    ['a Mongolian vowel separator', 'plan\u180E.md', 'plan⟨U+180E⟩.md'],
  ])('spells %s', (_what, name, shown) => {
    expect(spelledLine(name)).toBe(shown);
  });

  it('leaves what is seen as itself: letters of any script, marks of a name in NFC, the plain space', () => {
    for (const name of ['订单 notes.md', 'नमस्ते.md', 'café.md', 'a b.md', 'Ελληνικά.txt'])
      expect(spelledLine(name)).toBe(name);
    // The same word in NFD: its mark spelled, so it is never asked about as the NFC file.
    expect(spelledLine('cafe\u0301.md')).toBe('cafe⟨U+0301⟩.md');
  });
});
