import { describe, expect, it } from 'vitest';
import { FORMATS, isStringFormat } from './formats.js';

describe('string formats (the same judgement as ajv-formats, full mode)', () => {
  it.each([
    ['email', 'ann@example.com', true],
    ['email', "o'brien+tag@mail.example.co", true],
    ['email', 'ann@localhost', false],
    ['email', 'ann.@example.com', false],
    ['email', 'ann@-example.com', false],
    ['email', '安@example.com', false],
    ['uri', 'https://example.com/a?b=c#d', true],
    ['uri', 'mailto:ann@example.com', true],
    ['uri', 'http://[2001:db8::1]:8080/', true],
    ['uri', 'example.com/path', false],
    ['uri', '/relative', false],
    ['uri', 'https://exa mple.com', false],
    ['uri', 'scheme:', false],
    ['date', '2024-02-29', true],
    ['date', '2023-02-29', false],
    ['date', '2026-04-31', false],
    ['date', '2026-4-01', false],
    ['date-time', '2026-03-01T09:30:00Z', true],
    ['date-time', '2026-03-01 09:30:00.5+08:00', true],
    ['date-time', '2026-03-01T09:30:00', false],
    ['date-time', '2016-12-31T23:59:60Z', true],
    ['date-time', '2016-12-31T15:59:60-08:00', true],
    ['date-time', '2016-12-31T22:59:60Z', false],
    ['date-time', '2026-03-01T09:30:00+25:00', false],
  ] as const)('%s %j → %s', (format, value, expected) => {
    expect(FORMATS[format].test(value)).toBe(expected);
  });

  it('knows its own formats and not Object.prototype', () => {
    expect(isStringFormat('email')).toBe(true);
    for (const other of ['ipv4', 'hostname', 'toString', '__proto__', 5]) expect(isStringFormat(other)).toBe(false);
  });
});
