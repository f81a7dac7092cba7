import { describe, expect, it } from 'vitest';
import { clean } from './format.js';

describe('clean: server text made fit for a terminal', () => {
  it('removes escape sequences’ control characters: clearing the screen, OSC links and the clipboard', () => {
    expect(clean('done\u001b[2J')).toBe('done[2J');
    expect(clean('\u001b]8;;https://evil.example\u0007Deploy\u001b]8;;\u0007')).toBe(
      ']8;;https://evil.exampleDeploy]8;;',
    );
    expect(clean('cannot \u001b]52;c;ZXZpbA==\u0007')).toBe('cannot ]52;c;ZXZpbA==');
  });

  it('removes C0 controls but the line break, DEL and C1 controls, and the bidi controls', () => {
    const controls = [
      ...Array.from({ length: 0x20 }, (_, i) => i).filter((i) => i !== 0x09 && i !== 0x0a && i !== 0x0d),
      ...Array.from({ length: 0x21 }, (_, i) => 0x7f + i),
      0x061c,
      0x200e,
      0x200f,
      0x202a,
      0x202b,
      0x202c,
      0x202d,
      0x202e,
      0x2066,
      0x2067,
      0x2068,
      0x2069,
    ].map((c) => String.fromCharCode(c));
    expect(clean(`a${controls.join('')}b`)).toBe('ab');
  });

  it('keeps line breaks (a carriage return becomes one), makes a tab two spaces, and leaves other text alone', () => {
    expect(clean('one\r\ntwo\rthree\nfour')).toBe('one\ntwo\nthree\nfour');
    expect(clean('a\tb')).toBe('a  b');
    expect(clean('部署 order-service → v2.4.0 ✓')).toBe('部署 order-service → v2.4.0 ✓');
  });
});
