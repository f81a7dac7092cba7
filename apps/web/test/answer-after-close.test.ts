/**
 * docs/web.md, "How answers travel": answers are refused with "410 also when the question was
 * withdrawn because its tool call or its chat ended". Once the chat has ended (its page's beacon,
 * or the idle sweep), its own page — e.g. one restored from the back-forward cache with its dialog
 * still up — is told the question was withdrawn, not "No session."; to any other request an ended
 * chat reveals nothing (403, as for no chat). Real route handlers with the bundled opsdesk.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { beacon } from './browser';

const data = mkdtempSync(join(tmpdir(), 'elicitkit-after-close-'));
process.env.ELICITKIT_DATA = data;
for (const name of ['OPENAI_API_KEY', 'OPENAI_BASE_URL', 'ELICITKIT_MODEL', 'ELICITKIT_SERVERS'])
  delete process.env[name];

const { newBrowser, ask, answer, getChatInfo, postChat, postAnswer } = await import('./chat-client');
const { POST: postClose } = await import('../app/api/chat/close/route');
const { resetState, state } = await import('../lib/state');
const { stopOpsdesk } = await import('../lib/opsdesk');
type Browser = Awaited<ReturnType<typeof newBrowser>>;

const routes = { getChatInfo, postChat, postAnswer, postClose };

afterAll(async () => {
  await resetState();
  await stopOpsdesk();
  rmSync(data, { recursive: true, force: true });
});

/** A chat whose page closed with a question open: the chat, and the question its closing withdrew. */
async function closedWithQuestion(): Promise<{ b: Browser; id: string }> {
  const b = await newBrowser();
  const q = await ask(b, '/deploy_service service=order-service');
  expect((await beacon(routes, b)).status).toBe(204);
  await q.rest;
  expect((await state().registry.get(q.id))?.settlement).toEqual({ reason: 'withdrawn' });
  return { b, id: q.id };
}

const ACCEPT = { action: 'accept', content: { env: 'dev' } };
/** What a request without a chat is told, whatever the question: nothing about it. */
const NO_SESSION = 'No session: load the page first.';

describe('an answer to a question whose chat has ended', () => {
  it("from the chat's own page is refused with 410, as the docs say", async () => {
    const { b, id } = await closedWithQuestion();
    const late = await answer(b, id, ACCEPT);
    expect(late.status, `answer after the chat ended: ${JSON.stringify(await late.clone().json())}`).toBe(410);
    expect(await late.json()).toEqual({ error: expect.stringContaining('withdrawn') });
  });

  it("without the chat's CSRF token reveals nothing (403, the same words as for no chat, in the page's language)", async () => {
    const { b, id } = await closedWithQuestion();
    for (const csrf of ['', 'forged', (await newBrowser()).csrf]) {
      const late = await answer({ ...b, csrf }, id, ACCEPT);
      expect(late.status).toBe(403);
      expect(await late.json()).toEqual({ error: NO_SESSION });
      const zh = await answer({ ...b, csrf }, id, ACCEPT, { 'x-elicitkit-locale': 'zh' });
      expect(zh.status).toBe(403);
      expect(await zh.json()).toEqual({ error: '没有会话：请先加载页面。' });
    }
  });

  it('tells an ended chat nothing about a question that is not its own, nor an unknown id', async () => {
    const { b } = await closedWithQuestion();
    const other = await closedWithQuestion();
    for (const id of [other.id, 'no-such-question']) {
      const late = await answer(b, id, ACCEPT);
      expect(late.status, id).toBe(403);
      expect(await late.json()).toEqual({ error: NO_SESSION });
    }
    // The other chat's own page is still told about its own.
    expect((await answer(other.b, other.id, ACCEPT)).status).toBe(410);
  });

  it('a question the person answered before the chat ended says so (409)', async () => {
    const b = await newBrowser();
    const q = await ask(b, '/deploy_service service=order-service');
    expect((await answer(b, q.id, { action: 'decline' })).status).toBe(200);
    await q.rest;
    expect((await beacon(routes, b)).status).toBe(204);
    expect((await answer(b, q.id, ACCEPT)).status).toBe(409);
  });
});
