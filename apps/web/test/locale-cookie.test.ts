/**
 * The language cookie (the chosen language, read by the audit page on the server) follows the chat
 * cookie's rule: over https `__Host-elicitkit_locale` with `Secure`, so a sibling subdomain or a
 * plain-http response cannot set it; on plain http `elicitkit_locale`, as before. The audit page
 * reads the name of the request's scheme (`overHttps`).
 */
import { describe, expect, it } from 'vitest';
import { LOCALE_COOKIE, localeCookie, SECURE_LOCALE_COOKIE } from '../lib/locale';

describe('the language cookie', () => {
  it('is __Host- and Secure for a page loaded over https', () => {
    expect(localeCookie('zh', 'https:')).toBe(
      '__Host-elicitkit_locale=zh; Path=/; SameSite=Strict; Max-Age=31536000; Secure',
    );
    expect(SECURE_LOCALE_COOKIE).toBe('__Host-elicitkit_locale');
  });

  it('stays elicitkit_locale, without Secure, on plain http', () => {
    expect(localeCookie('en', 'http:')).toBe('elicitkit_locale=en; Path=/; SameSite=Strict; Max-Age=31536000');
    expect(LOCALE_COOKIE).toBe('elicitkit_locale');
  });
});
