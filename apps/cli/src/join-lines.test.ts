import { describe, expect, it } from 'vitest';
import { joinLines } from './shown.js';

describe('joinLines: server text inside one line of ours', () => {
  it.each([
    ['deploy\nto prod', 'deploy to prod'],
    ['deploy \r\n\t to prod', 'deploy to prod'],
    ['deploy\r\rto\n\nprod', 'deploy to prod'],
    ['\n  leading and trailing  \n', ' leading and trailing '],
    ['spaces  kept\twhere no line breaks', 'spaces  kept\twhere no line breaks'],
    ['', ''],
  ])('%j → %j', (text, expected) => expect(joinLines(text)).toBe(expected));

  it('takes time in proportion to the text: 400,000 spaces and no line break, or spaces around each of many', () => {
    // `\s*[\r\n]+\s*` spent time squared here (each space a new start that runs to the end): minutes.
    const spaces = ' '.repeat(400_000);
    expect(joinLines(`${spaces}x`)).toBe(`${spaces}x`);
    expect(joinLines(`a${' '.repeat(1000)}\n`.repeat(400))).toBe('a '.repeat(400));
  });
});
