import { stripVTControlCharacters as plain } from 'node:util';
import { describe, expect, it } from 'vitest';
import { columnsOf, widthOf, wrapText } from './wrap.js';

const HELP =
  'Production deployments need a release ticket approved by the change advisory board before the window opens.';

describe('wrapText: lines that break between words', () => {
  it.each([12, 20, 37, 77])('fills lines of at most %i columns and never cuts a word', (width) => {
    const lines = wrapText(HELP, width);
    for (const line of lines) expect(widthOf(line)).toBeLessThanOrEqual(width);
    expect(lines.join(' ')).toBe(HELP);
    // Greedy: the next word would not have fitted on the line before.
    for (let i = 1; i < lines.length; i++) {
      const next = (lines[i] ?? '').split(' ')[0] ?? '';
      expect(widthOf(`${lines[i - 1]} ${next}`)).toBeGreaterThan(width);
    }
  });

  it('keeps the text’s own line breaks, its empty lines and a leading indent', () => {
    expect(wrapText('First line.\n\nSecond, a longer line.', 12)).toEqual([
      'First line.',
      '',
      'Second, a',
      'longer line.',
    ]);
    expect(wrapText('  - "Release ticket" is required.', 20)).toEqual(['  - "Release ticket"', 'is required.']);
  });

  it('cuts only a word longer than a whole line, where the line ends', () => {
    expect(wrapText('token abcdefghijklmnopqrstuvwxyz end', 10)).toEqual([
      'token',
      'abcdefghij',
      'klmnopqrst',
      'uvwxyz end',
    ]);
  });

  it('counts wide characters as two columns and never splits one', () => {
    const lines = wrapText('部署环境 需要发布单才能继续', 8);
    expect(lines).toEqual(['部署环境', '需要发布', '单才能继', '续']);
    for (const line of lines) expect(widthOf(line)).toBeLessThanOrEqual(8);
    expect(wrapText('🚀🚀', 1)).toEqual(['🚀', '🚀']);
  });

  it('lines a wrapped line up `hang` columns in', () => {
    expect(wrapText('● Decline (do not share this information)', 20, 2)).toEqual([
      '● Decline (do not',
      '  share this',
      '  information)',
    ]);
  });

  it('closes styles at the end of a line and opens them again on the next', () => {
    const lines = wrapText('Label \u001b[2mneeds a release ticket\u001b[22m', 14);
    expect(lines.map((l) => plain(l))).toEqual(['Label needs a', 'release ticket']);
    expect(lines[0]).toBe('Label \u001b[2mneeds a\u001b[0m');
    expect(lines[1]).toBe('\u001b[2mrelease ticket\u001b[22m');
    // A style closed before the break is not opened again.
    expect(wrapText('\u001b[1mCareful:\u001b[22m the link uses plain http', 12)[1]).toBe('link uses');
  });

  it('draws something on every line even at one column', () => {
    expect(wrapText('ab 部', 1)).toEqual(['a', 'b', '部']);
  });
});

describe('columnsOf', () => {
  it('is the terminal’s width, or 80 for a stream that is not a terminal', () => {
    expect(columnsOf({ columns: 40 } as never)).toBe(40);
    expect(columnsOf({} as never)).toBe(80);
    expect(columnsOf({ columns: 0 } as never)).toBe(80);
  });
});
