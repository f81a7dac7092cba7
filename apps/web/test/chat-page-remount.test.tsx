// @vitest-environment jsdom
/**
 * One document is one page of its chat, however often the chat page mounts in it: React mounts it
 * twice in strict mode, and a client-side navigation to the audit trail and back mounts it again.
 * Each mount opened the chat anew (`GET /api/chat/info`) and was counted as another page, so the
 * tab's one closing beacon left the chat open until its idle time. A mount after the first says
 * the page's name, and the beacon names it once. The page's hook, in jsdom; the routes' side is in
 * `two-tabs.test.ts`.
 */
import { cleanup, render, waitFor } from '@testing-library/react';
import { createElement, StrictMode, useRef } from 'react';
import { afterEach, expect, it, vi } from 'vitest';
import { useChatInfo } from '../components/use-chat-info';
import type { Locale } from '../lib/locale';

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

function Page() {
  const localeRef = useRef<Locale>('en');
  const { info } = useChatInfo(localeRef);
  return createElement('p', { 'data-testid': 'csrf' }, info?.csrf ?? '');
}

it('a page mounted again (strict mode, a navigation back) says its name, and its beacon names it once', async () => {
  const opened: (string | null)[] = [];
  const beacons: string[] = [];
  let pages = 0;
  vi.stubGlobal('fetch', async (url: string, init?: RequestInit) => {
    if (url === '/api/chat/info') {
      const known = new Headers(init?.headers).get('x-elicitkit-page');
      opened.push(known);
      const page = known ?? `P${++pages}`;
      return Response.json({ csrf: 'C', page, lang: 'en', servers: [], model: null, identity: null });
    }
    return Response.json({ tools: [] });
  });
  vi.stubGlobal('navigator', { ...navigator, sendBeacon: (_url: string, body: string) => beacons.push(body) });
  // Strict mode: mounted, unmounted and mounted again at once.
  const first = render(createElement(StrictMode, null, createElement(Page)));
  await waitFor(() => expect(opened.length).toBeGreaterThanOrEqual(2));
  first.unmount();
  // Back from the audit trail: mounted again in the same document.
  render(createElement(Page));
  await waitFor(() => expect(opened.length).toBeGreaterThanOrEqual(3));
  expect(pages, 'one document is one page of the chat').toBe(1);
  expect(opened.slice(1).every((known) => known === 'P1')).toBe(true);
  window.dispatchEvent(new Event('pagehide'));
  window.dispatchEvent(new Event('pagehide'));
  expect(beacons).toEqual([JSON.stringify({ csrf: 'C', page: 'P1' })]);
});
