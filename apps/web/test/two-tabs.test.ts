/**
 * A chat is the browser's, not one tab's: its cookie names it in every tab, so two tabs of the app
 * are one chat. Closing one tab (its pagehide beacon) must not end the chat the other is using —
 * it withdrew the question the other tab was answering, and its next turn was "No session: load
 * the page first." Only the last page's beacon ends the chat, withdrawing what is still open; one
 * that never says goodbye is left to the idle sweep. Real route handlers with the bundled opsdesk.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { type Browser, beacon, toolOutput } from './browser';

const data = mkdtempSync(join(tmpdir(), 'elicitkit-two-tabs-'));
process.env.ELICITKIT_DATA = data;
process.env.ELICITKIT_QUESTION_TIMEOUT_MS = '60000';
for (const name of ['OPENAI_API_KEY', 'OPENAI_BASE_URL', 'ELICITKIT_MODEL', 'ELICITKIT_SERVERS'])
  delete process.env[name];

const { newBrowser, ask, answer, getChatInfo, postChat, postAnswer } = await import('./chat-client');
const { POST: postClose } = await import('../app/api/chat/close/route');
const { resetState, state } = await import('../lib/state');
const { stopOpsdesk } = await import('../lib/opsdesk');
const routes = { getChatInfo, postChat, postAnswer, postClose };

afterAll(async () => {
  await resetState();
  await stopOpsdesk();
  rmSync(data, { recursive: true, force: true });
});

/** A second tab of the browser: it sends the same cookie, so it loads the same chat. */
async function secondTab(first: Browser): Promise<Browser> {
  const response = await getChatInfo(
    new Request('http://localhost/api/chat/info', { headers: { cookie: first.cookie } }),
  );
  expect(response.status).toBe(200);
  expect(response.headers.get('set-cookie')).toBeNull();
  const { csrf, page } = (await response.json()) as { csrf: string; page: string };
  expect(csrf).toBe(first.csrf);
  expect(page).not.toBe(first.page);
  return { ...first, page };
}

describe('two tabs of one chat', () => {
  it('closing one leaves the other its chat and its open question', async () => {
    const one = await newBrowser();
    const two = await secondTab(one);
    const q = await ask(one, '/deploy_service service=order-service');
    const closed = await beacon(routes, two);
    expect(closed.status).toBe(204);
    expect(closed.headers.get('set-cookie'), 'the shared cookie was cleared').toBeNull();
    expect((await state().registry.get(q.id))?.settlement, 'the other tab’s question was withdrawn').toBeUndefined();
    expect((await answer(one, q.id, { action: 'accept', content: { env: 'dev' } })).status).toBe(200);
    expect(toolOutput(await q.rest)).toMatchObject({ output: { status: 'done' } });
    // The last tab's beacon ends the chat.
    const last = await ask(one, '/deploy_service service=order-service');
    expect((await beacon(routes, one)).status).toBe(204);
    await last.rest;
    expect((await state().registry.get(last.id))?.settlement).toEqual({ reason: 'withdrawn' });
    expect(await state().chats.has(one.cookie.split('=')[1] ?? '')).toBe(false);
  });

  it('a page that opens its chat again with its name (mounted again) is one page: its one beacon ends the chat', async () => {
    const one = await newBrowser();
    for (let i = 0; i < 2; i++) {
      const again = await getChatInfo(
        new Request('http://localhost/api/chat/info', {
          headers: { cookie: one.cookie, 'x-elicitkit-page': one.page },
        }),
      );
      expect(((await again.json()) as { page: string }).page).toBe(one.page);
    }
    const q = await ask(one, '/deploy_service service=order-service');
    expect((await beacon(routes, one)).status).toBe(204);
    await q.rest;
    expect((await state().registry.get(q.id))?.settlement).toEqual({ reason: 'withdrawn' });
    expect(await state().chats.has(one.cookie.split('=')[1] ?? '')).toBe(false);
  });

  it('a page that says goodbye twice is counted gone once: the other tab keeps its chat', async () => {
    const one = await newBrowser();
    const two = await secondTab(one);
    const q = await ask(one, '/deploy_service service=order-service');
    // A page restored from the back/forward cache reloads: its pagehide beacon comes again, with
    // the same token and name (or a script sends it again).
    for (let i = 0; i < 3; i++) expect((await beacon(routes, two)).status).toBe(204);
    // A beacon naming no page, or one the chat never gave, ends nothing either.
    expect((await beacon(routes, two, two.csrf, two.cookie, null)).status).toBe(400);
    expect((await beacon(routes, two, two.csrf, two.cookie, 'x'.repeat(65))).status).toBe(400);
    expect((await beacon(routes, two, two.csrf, two.cookie, 'made-up')).status).toBe(204);
    expect((await state().registry.get(q.id))?.settlement, 'the other tab’s question was withdrawn').toBeUndefined();
    expect((await answer(one, q.id, { action: 'accept', content: { env: 'dev' } })).status).toBe(200);
    expect(toolOutput(await q.rest)).toMatchObject({ output: { status: 'done' } });
    // The tab still showing it closes it, once.
    const closed = await beacon(routes, one);
    expect(closed.status).toBe(204);
    expect(closed.headers.getSetCookie()).not.toEqual([]);
    expect(await state().chats.has(one.cookie.split('=')[1] ?? '')).toBe(false);
  });
});
