import { describe, expect, it } from 'vitest';
import { connect, REVISIONS } from '../../test/servers.js';
import type { Renderer, UrlPrompt } from '../types.js';
import { attach } from './index.js';

/**
 * Who owns the page, as attach tells the renderer: the registrable domain by the Public Suffix
 * List (tldts), from a real SDK server's URL question on both revisions.
 */
const CASES: [url: string, site: string][] = [
  ['https://accounts.example.com.evil.test/login', 'evil.test'],
  ['https://example.com-login.evil.test/', 'evil.test'],
  ['https://www.example.co.uk/reset', 'example.co.uk'],
  ['https://evil.github.io/', 'evil.github.io'],
  ['https://accounts.example.com./reset', 'example.com'],
  ['http://localhost:3000/password', 'localhost'],
  ['http://127.0.0.1:8080/password', '127.0.0.1'],
  ['http://[::1]:8080/password', '[::1]'],
  ['https://login.пример.рф/', 'xn--e1afmkfd.xn--p1ai'],
  ['https://accounts.xn--pypal-4ve.com/', 'xn--pypal-4ve.com'],
];

describe.each(REVISIONS)('attach on %s: the site of a URL question', (revision) => {
  it('is the registrable domain, the host name for an address or localhost', async () => {
    const shown: UrlPrompt[] = [];
    const renderer: Renderer = {
      modes: { form: false, url: true },
      interactive: true,
      renderForm: async () => ({ action: 'cancel' }),
      renderUrl: async (prompt) => {
        shown.push(prompt);
        return { action: 'decline' };
      },
    };
    // Ten questions in a row: past the default rate limit, which would decline them unseen.
    const connection = await connect(revision, (client) => attach(client, { renderer, policy: { rateLimit: false } }));
    try {
      for (const [url, i] of CASES.map(([u], n) => [u, n] as const)) {
        const ask = { mode: 'url' as const, message: 'Set your password on the page.', url };
        const received = await connection.ask(revision === '2025-11-25' ? { ...ask, elicitationId: `e-${i}` } : ask);
        expect(received).toEqual({ action: 'decline' });
      }
      expect(shown.map((p) => p.site)).toEqual(CASES.map(([, site]) => site));
    } finally {
      await connection.close();
    }
  });
});
