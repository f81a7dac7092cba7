import { describe, expect, it } from 'vitest';
import { inspectUrl, MAX_URL_LENGTH } from './url.js';

function codes(url: string) {
  const seen = inspectUrl(url);
  if (!seen.ok) throw new Error(seen.message);
  return seen.warnings.map((w) => w.code);
}

describe('inspectUrl: what a careful person would notice', () => {
  it('has nothing to say about a plain https link', () => {
    expect(inspectUrl('https://opsdesk.example.com/password/7f3a')).toEqual({
      ok: true,
      url: 'https://opsdesk.example.com/password/7f3a',
      host: 'opsdesk.example.com',
      hostIndex: 8,
      warnings: [],
    });
  });

  it.each([
    ['a punycode host', 'https://xn--pypal-4ve.com/login', ['punycode']],
    ['a Unicode look-alike host (shown as punycode)', 'https://pаypal.com/login', ['punycode']],
    ['plain http to a remote host', 'http://opsdesk.example.com/setup', ['insecure']],
    ['credentials before the host', 'https://paypal.com:secret@evil.example/login', ['credentials']],
    ['a user name alone before the host', 'https://paypal.com@evil.example/', ['credentials']],
    ['a token in the query', 'https://opsdesk.example.com/setup?token=abc123', ['token']],
    ['an access_token in the fragment', 'https://opsdesk.example.com/cb#access_token=abc', ['token']],
    ['a JWT in any parameter', 'https://a.example/x?state=eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjMifQ.sig', ['token']],
    [
      'everything at once',
      'http://user:pw@xn--80ak6aa92e.com/?api_key=1',
      ['punycode', 'insecure', 'credentials', 'token'],
    ],
  ])('warns about %s', (_label, url, expected) => {
    expect(codes(url)).toEqual(expected);
  });

  it.each([
    ['http on localhost', 'http://localhost:7777/password/abc'],
    ['http on 127.0.0.1', 'http://127.0.0.1:7777/password/abc'],
    ['http on [::1]', 'http://[::1]:7777/password/abc'],
    ['an innocent query', 'https://opsdesk.example.com/report?from=2026-03-01&page=2'],
  ])('does not warn about %s', (_label, url) => {
    expect(codes(url)).toEqual([]);
  });

  it('points at the real host, after any credentials', () => {
    const seen = inspectUrl('https://paypal.com:pw@evil.example:8443/login');
    if (!seen.ok) throw new Error(seen.message);
    expect(seen.host).toBe('evil.example:8443');
    expect(seen.url.slice(seen.hostIndex, seen.hostIndex + seen.host.length)).toBe('evil.example:8443');
    expect(seen.warnings[0]?.message).toMatch(/after the "@"/);
  });

  it('says which parameter carries the token', () => {
    const seen = inspectUrl('https://a.example/x?refresh_token=1');
    expect(seen.ok && seen.warnings[0]?.message).toMatch(/"refresh_token"/);
  });

  it.each([
    ['not a URL', 'opsdesk password page'],
    ['a relative URL', '/password/abc'],
    ['a file URL', 'file:///etc/passwd'],
    ['javascript', 'javascript:alert(1)'],
    ['a custom scheme', 'vscode://extension/install'],
    ['data', 'data:text/html,<script>alert(1)</script>'],
  ])('refuses %s', (_label, url) => {
    const seen = inspectUrl(url);
    expect(seen.ok).toBe(false);
    expect(!seen.ok && seen.message.length).toBeGreaterThan(20);
  });

  it('refuses a URL longer than a link may be, as given or once normalized, and takes one at the limit', () => {
    const base = 'https://opsdesk.example.com/setup?q=';
    const at = `${base}${'a'.repeat(MAX_URL_LENGTH - base.length)}`;
    expect(inspectUrl(at)).toMatchObject({ ok: true, url: at });
    expect(inspectUrl(`${at}a`)).toMatchObject({ ok: false, message: expect.stringMatching(/over the 8192/) });
    // Each "é" is one character as sent and six once percent-encoded.
    expect(inspectUrl(`${base}${'é'.repeat(MAX_URL_LENGTH / 4)}`)).toMatchObject({ ok: false });
  });
});
