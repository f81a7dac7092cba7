// @vitest-environment jsdom
/**
 * The page opens its chat (`GET /api/chat/info`) saying its own language, as it says it with every
 * other request: a refusal there (too many chats, a broken configuration) is shown as it comes, and
 * a page whose chosen language is not the browser's first (the language menu, its cookie) was
 * told in the browser's. The page's hook, in jsdom; what it sends is handed to nothing but this
 * test's answer (`refusals-zh.test.ts` and `bad-config.test.ts` answer it through the routes).
 */
import { cleanup, render, screen, waitFor } from '@testing-library/react';
import { createElement, useRef } from 'react';
import { afterEach, expect, it, vi } from 'vitest';
import { useChatInfo } from '../components/use-chat-info';
import type { Locale } from '../lib/locale';

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

function Page({ locale }: { locale: Locale }) {
  const localeRef = useRef<Locale>(locale);
  const { fatal } = useChatInfo(localeRef);
  return createElement('p', { 'data-testid': 'fatal' }, fatal ?? '');
}

it('sends the page language with GET /api/chat/info, and shows the refusal it gets', async () => {
  const asked: { url: string; locale: string | null }[] = [];
  vi.stubGlobal('fetch', async (url: string, init?: RequestInit) => {
    const locale = new Headers(init?.headers).get('x-elicitkit-locale');
    asked.push({ url, locale });
    const error = locale === 'zh' ? '对话服务器已满（已打开 3 个对话）。请几分钟后再试。' : 'The chat server is full.';
    return Response.json({ error }, { status: 429 });
  });
  render(createElement(Page, { locale: 'zh' }));
  await waitFor(() => expect(screen.getByTestId('fatal').textContent).not.toBe(''));
  expect(asked).toEqual([{ url: '/api/chat/info', locale: 'zh' }]);
  expect(screen.getByTestId('fatal').textContent).toBe('对话服务器已满（已打开 3 个对话）。请几分钟后再试。');
});
