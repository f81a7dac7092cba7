import { describe, expect, it } from 'vitest';
import { page } from './password-page.js';

describe('the password page', () => {
  it.each([
    ['en', 'At least 10 characters'],
    ['zh', '至少 10 个字符'],
  ] as const)('states the password rules before anything is typed (%s)', async (locale, rule) => {
    const html = await page(locale, 'form', 200, { username: 'carol', csrf: 'x' }).text();
    expect(html.indexOf(rule)).toBeGreaterThan(-1);
    // Before the first input, and tied to both fields for screen readers.
    expect(html.indexOf(rule)).toBeLessThan(html.indexOf('type="password"'));
    expect(html.match(/aria-describedby="rules"/g)).toHaveLength(2);
  });
});
