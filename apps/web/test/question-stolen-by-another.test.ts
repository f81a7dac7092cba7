// @vitest-environment jsdom
/**
 * The page's one dialog showed "the newest open question" (`useOpenQuestion`), so a question that
 * arrived while the person was filling in another replaced it under their hands: what they typed
 * was dropped, focus moved into the newcomer's first field, and the Enter they pressed to send the
 * first answer submitted the newcomer's form with its pre-filled defaults — a second server (or a
 * hostile one, timing its question) got an answer the person never read. The dialog now keeps the
 * oldest open question until it settles. Two servers answer at once when the model calls a tool of
 * each in one step. The real <ChatPage> in jsdom, its fetch answered by the real route handlers,
 * an OpenAI-compatible stub making both calls at once, two real stdio MCP servers.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { act, cleanup, render, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { createElement } from 'react';
import { afterAll, expect, it, vi } from 'vitest';
import { rawServer } from './raw-server';
import { parallelModel } from './scripted-model';

const reply = (tag: string) =>
  `(r) => reply({ content: [{ type: 'text', text: '${tag} ' + JSON.stringify(r.result) }] })`;
const TICKET = rawServer({
  serverInfo: { name: 'tickets', version: '1.0.0' },
  tools: [{ name: 'ask', inputSchema: { type: 'object', properties: {} } }],
  call: `(m, ask, reply) => ask({ mode: 'form', message: 'Which change ticket covers this?', requestedSchema: {
    type: 'object', properties: { ticket: { type: 'string', title: 'Ticket' } }, required: ['ticket'] } }).then(${reply('ticket')})`,
});
const DEPLOY = rawServer({
  serverInfo: { name: 'deployer', version: '1.0.0' },
  tools: [{ name: 'ask', inputSchema: { type: 'object', properties: {} } }],
  // Asked a moment later than the other: while the person is typing their ticket.
  call: `(m, ask, reply) => setTimeout(() => ask({ mode: 'form', message: 'Deploy where?', requestedSchema: {
    type: 'object', properties: { target: { type: 'string', title: 'Target', default: 'production' } } } }).then(${reply('deploy')}), 1500)`,
});

const model = await parallelModel([
  { name: 'tickets__ask', arguments: {} },
  { name: 'deployer__ask', arguments: {} },
]);
const data = mkdtempSync(join(tmpdir(), 'elicitkit-audit-stolen-'));
process.env.ELICITKIT_DATA = data;
process.env.ELICITKIT_QUESTION_TIMEOUT_MS = '60000';
process.env.ELICITKIT_SERVERS = JSON.stringify([
  { name: 'tickets', command: [process.execPath, '-e', TICKET], revision: '2025-11-25' },
  { name: 'deployer', command: [process.execPath, '-e', DEPLOY], revision: '2025-11-25' },
]);
process.env.OPENAI_BASE_URL = model.baseURL;
process.env.OPENAI_API_KEY = 'k';
process.env.ELICITKIT_MODEL = 'm-1';

const { getChatInfo, postChat, postAnswer } = await import('./chat-client');
const { GET: getTools } = await import('../app/api/tools/route');
const { resetState, state } = await import('../lib/state');
const { ChatPage } = await import('../components/chat-page');

afterAll(async () => {
  cleanup();
  vi.unstubAllGlobals();
  await resetState();
  await model.close();
  rmSync(data, { recursive: true, force: true });
});

it('a question arriving while the person answers another does not take over the dialog', async () => {
  let cookie = '';
  const answers: { id: string; body: string }[] = [];
  const realFetch = globalThis.fetch;
  vi.stubGlobal('fetch', async (url: string, init?: RequestInit) => {
    if (typeof url !== 'string' || !url.startsWith('/api/')) return realFetch(url, init);
    const headers = new Headers(init?.headers);
    if (cookie) headers.set('cookie', cookie);
    const request = new Request(`http://localhost${url}`, {
      method: init?.method ?? 'GET',
      headers,
      ...(init?.body ? { body: init.body as string } : {}),
      ...(init?.signal ? { signal: init.signal } : {}),
    });
    if (url === '/api/chat/info') {
      const response = await getChatInfo(request);
      const set = response.headers.get('set-cookie');
      if (set) cookie = set.split(';')[0] as string;
      return response;
    }
    if (url === '/api/tools') return getTools(request);
    if (url === '/api/chat') return postChat(request);
    const id = decodeURIComponent(url.split('/').at(-1) as string);
    answers.push({ id, body: init?.body as string });
    return postAnswer(request, { params: Promise.resolve({ id }) });
  });
  render(createElement(ChatPage, { initialLocale: 'en' }));
  const user = userEvent.setup();
  const composer = await screen.findByRole('textbox', { name: /message/i }, { timeout: 20_000 });
  await waitFor(() => expect((screen.getByRole('button', { name: 'Send' }) as HTMLButtonElement).disabled).toBe(false));
  await user.type(composer, 'Deploy it, under the right ticket.');
  await act(() => user.click(screen.getByRole('button', { name: 'Send' })));

  // The ticket question is up: the person starts typing the ticket.
  const ticket = await screen.findByLabelText(/Ticket/, {}, { timeout: 20_000 });
  await user.type(ticket, 'REL-10');
  // Meanwhile the other server asks.
  await waitFor(
    async () => {
      const open = (await state().registry.list((await import('../lib/chats')).chatKey(cookie.split('=')[1] as string)))
        .filter((e) => !e.settlement)
        .map((e) => (e.data as { prompt: { message: string } }).prompt.message);
      expect(open).toContain('Deploy where?');
    },
    { timeout: 20_000 },
  );
  await new Promise((resolve) => setTimeout(resolve, 200));
  // The person finishes the ticket and presses Enter to send it.
  await user.keyboard('01{Enter}');
  // Its one answer posted (whichever question it went to), however slowly the page runs.
  await waitFor(() => expect(answers.length).toBeGreaterThan(0), { timeout: 20_000 });
  const sent = answers.map((a) => ({
    question: a.id,
    body: a.body,
  }));
  const deployAnswered = await Promise.all(
    sent.map(async (a) => (await state().registry.get(a.question))?.data as { prompt: { message: string } }),
  );
  expect(
    sent.map((a, i) => `${deployAnswered[i]?.prompt.message} ← ${a.body}`),
    'the Enter meant for the ticket answered the other question, unseen',
  ).toEqual([
    `Which change ticket covers this? ← ${JSON.stringify({ action: 'accept', content: { ticket: 'REL-1001' }, applyDefaults: false })}`,
  ]);
}, 60_000);
