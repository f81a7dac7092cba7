// @vitest-environment jsdom
/**
 * A turn's stream ends under an open question (the person pressed Stop, the connection dropped):
 * the server withdraws the question with its call, and the page stops offering it. But the page's
 * copy of it still says "open" (the rewrite saying "withdrawn" could not reach it), and the next
 * turn made the page busy again: `useOpenQuestion` looked through every message, found the old
 * part, and offered the withdrawn question again inside the new turn, as answerable. It now offers
 * only the running turn's questions. The page's own hooks (`useChatHistory`, `useOpenQuestion`) in
 * jsdom, their fetch answered by the real chat route, a real stdio MCP server.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { act, cleanup, render, waitFor } from '@testing-library/react';
import { createElement, useRef } from 'react';
import { afterAll, expect, it, vi } from 'vitest';
import { rawServer } from './raw-server';

const SERVER = rawServer({
  tools: [
    { name: 'ask', inputSchema: { type: 'object', properties: {} } },
    { name: 'slow', inputSchema: { type: 'object', properties: {} } },
  ],
  call: `(m, ask, reply) => {
    if (m.params.name === 'slow') { setTimeout(() => reply({ content: [{ type: 'text', text: 'slow done' }] }), 3000); return; }
    ask({ mode: 'form', message: 'Deploy order-service to production?', requestedSchema: { type: 'object', properties: {
      ok: { type: 'boolean', title: 'Go ahead' } } } })
      .then((r) => reply({ content: [{ type: 'text', text: 'answer ' + JSON.stringify(r.result) }] }));
  }`,
});

const data = mkdtempSync(join(tmpdir(), 'elicitkit-audit-stale-'));
process.env.ELICITKIT_DATA = data;
process.env.ELICITKIT_QUESTION_TIMEOUT_MS = '60000';
process.env.ELICITKIT_SERVERS = JSON.stringify([
  { name: 'ops', command: [process.execPath, '-e', SERVER], revision: '2025-11-25' },
]);
for (const name of ['OPENAI_API_KEY', 'OPENAI_BASE_URL', 'ELICITKIT_MODEL']) delete process.env[name];

const { newBrowser, pageFetch } = await import('./chat-client');
const { resetState, state } = await import('../lib/state');
const { useChatHistory } = await import('../components/use-chat-history');
const { useOpenQuestion } = await import('../components/use-open-question');

afterAll(async () => {
  cleanup();
  vi.unstubAllGlobals();
  await resetState();
  rmSync(data, { recursive: true, force: true });
});

let page: { chat: ReturnType<typeof useChatHistory>; shown: string | undefined } | undefined;
function ChatPage({ csrf }: { csrf: string }) {
  const csrfRef = useRef(csrf);
  const locale = useRef<'en'>('en');
  const chat = useChatHistory(csrfRef, locale, 'no longer open');
  const { shown } = useOpenQuestion(chat.messages, chat.busy);
  page = { chat, shown: shown?.id };
  return createElement('p', null, shown?.id ?? 'none');
}

it('a question withdrawn when its turn stopped is not offered again in the next turn', async () => {
  const b = await newBrowser();
  // The page's fetch: the real chat route with the browser's cookie; an abort errors the body, as fetch does.
  vi.stubGlobal('fetch', pageFetch(b));
  render(createElement(ChatPage, { csrf: b.csrf }));
  await waitFor(() => expect(page?.chat.chatId).toBeTruthy());

  // Turn 1: the question is asked and shown; the person presses Stop.
  void act(async () => {
    await page?.chat.sendMessage({ text: '/ask' });
  });
  await waitFor(() => expect(page?.shown).toBeTruthy(), { timeout: 20_000 });
  const stale = page?.shown as string;
  await act(async () => {
    await page?.chat.stop();
  });
  await waitFor(() => expect(page?.chat.busy).toBe(false), { timeout: 20_000 });
  expect(page?.shown).toBeUndefined();
  await waitFor(async () => expect((await state().registry.get(stale))?.settlement).toEqual({ reason: 'withdrawn' }));

  // Turn 2: another command, which asks nothing and takes a few seconds.
  void act(async () => {
    await page?.chat.sendMessage({ text: '/slow' });
  });
  await waitFor(() => expect(page?.chat.busy).toBe(true));
  await new Promise((resolve) => setTimeout(resolve, 500));
  expect(page?.chat.busy).toBe(true);
  expect(page?.shown, 'the withdrawn question of the stopped turn is offered again in the new turn').not.toBe(stale);
  await waitFor(() => expect(page?.chat.busy).toBe(false), { timeout: 20_000 });
}, 60_000);
