/**
 * A change of the demo identity (`POST /api/chat/identity`) kept the chat: its cookie, its CSRF
 * token and the key its questions belong to. So a page still showing alice's conversation (another
 * tab, or the same page) went on acting — as bob; a question id from alice's turns was bob's chat's
 * own (told 409/410, its fate, where another chat's is 403); and alice's cookie opened the audit
 * page as bob. Now a change is a new chat: a new id (cookie) and token, the old chat closed (its
 * questions withdrawn, its cookie naming no chat), the page starts a fresh conversation, and the
 * question budget carries over (a switch is no way to a fresh one). Real routes, the embedded
 * opsdesk.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const data = mkdtempSync(join(tmpdir(), 'elicitkit-web-identity-switch-'));
process.env.ELICITKIT_DATA = data;
for (const name of ['OPENAI_API_KEY', 'OPENAI_BASE_URL', 'ELICITKIT_MODEL', 'ELICITKIT_SERVERS'])
  delete process.env[name];

const { newBrowser, ask, answer, turn, postChat } = await import('./chat-client');
const { POST: postIdentity } = await import('../app/api/chat/identity/route');
const { resetState, state } = await import('../lib/state');
const { chatKey } = await import('../lib/chats');
const { stopOpsdesk } = await import('../lib/opsdesk');
const { auditFor } = await import('../lib/audit');
afterAll(async () => {
  await resetState();
  await stopOpsdesk();
  rmSync(data, { recursive: true, force: true });
});

type Browser = Awaited<ReturnType<typeof newBrowser>>;

/** Chooses `user` as the page does; the browser it leaves (a new cookie when one is set), and the response. */
async function choose(b: Browser, user: string | null): Promise<{ response: Response; after: Browser }> {
  const response = await postIdentity(
    new Request('http://localhost/api/chat/identity', {
      method: 'POST',
      headers: { cookie: b.cookie, 'x-elicitkit-csrf': b.csrf, 'content-type': 'application/json' },
      body: JSON.stringify({ user }),
    }),
  );
  const set = response.headers.getSetCookie()[0]?.split(';')[0];
  const body = (await response.clone().json()) as { csrf?: string };
  return { response, after: { ...b, cookie: set ?? b.cookie, csrf: body.csrf ?? b.csrf } };
}

const idOf = (cookie: string) => cookie.replace(/^ek_chat=/, '');

describe('a change of identity in a chat', () => {
  it('is a new chat: new cookie and token; the old one names no chat any more', async () => {
    const alice = (await choose(await newBrowser(), 'alice')).after;
    const { response, after: bob } = await choose(alice, 'bob');
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ user: 'bob' });
    expect(bob.cookie, 'the chat id was kept across identities').not.toBe(alice.cookie);
    expect(bob.csrf).not.toBe(alice.csrf);
    expect(response.headers.getSetCookie()[0]).toMatch(/^ek_chat=[A-Za-z0-9_-]+; Path=\/; HttpOnly; SameSite=Strict$/);
    expect(await state().chats.has(idOf(alice.cookie))).toBe(false);
    // As bob, bob's permissions.
    const asBob = JSON.stringify(await turn(bob, '/list_deployments'));
    expect(asBob).toContain('search-service');
    expect(asBob).not.toContain('order-service');
  });

  it("a page still holding alice's chat cannot act, as anyone", async () => {
    const alice = (await choose(await newBrowser(), 'alice')).after;
    await choose(alice, 'bob');
    // alice's tab posts a turn with alice's cookie and token: it must not run as bob.
    const posted = await postChat(
      new Request('http://localhost/api/chat', {
        method: 'POST',
        headers: { cookie: alice.cookie, 'x-elicitkit-csrf': alice.csrf, 'content-type': 'application/json' },
        body: JSON.stringify({
          messages: [{ id: 'm1', role: 'user', parts: [{ type: 'text', text: '/list_deployments' }] }],
        }),
      }),
    );
    expect(posted.status, 'a page of the old identity ran a turn').toBe(401);
    await posted.body?.cancel();
    // …nor switch the identity again.
    expect((await choose(alice, 'alice')).response.status).toBe(401);
    // …nor read the audit trail as bob.
    const audit = await auditFor(new Request('http://localhost/audit', { headers: { cookie: alice.cookie } }));
    expect(audit.viewer).toBeUndefined();
  });

  it("a question from alice's turn is another chat's for bob: 403, and its fate is not told", async () => {
    const alice = (await choose(await newBrowser(), 'alice')).after;
    const q = await ask(alice, '/deploy_service service=order-service');
    expect((await answer(alice, q.id, { action: 'cancel' })).status).toBe(200);
    await q.rest;
    const { after: bob } = await choose(alice, 'bob');
    const sent = await answer(bob, q.id, { action: 'accept', content: { env: 'dev' } });
    expect(sent.status).toBe(403);
    expect(await sent.json()).toEqual({ error: 'This question belongs to another chat.' });
    // The question's owner is alice's chat, which is gone.
    expect((await state().registry.get(q.id))?.owner).toBe(chatKey(idOf(alice.cookie)));
  });

  it("withdraws the old chat's open questions and refuses the change while a turn runs", async () => {
    const alice = (await choose(await newBrowser(), 'alice')).after;
    const q = await ask(alice, '/deploy_service service=order-service');
    // A turn runs: the change is refused and the chat is kept as it is.
    const during = await choose(alice, 'bob');
    expect(during.response.status).toBe(409);
    expect(during.after.cookie).toBe(alice.cookie);
    expect((await answer(alice, q.id, { action: 'cancel' })).status).toBe(200);
    await q.rest;
  });

  it('refuses a bad body (400) or a forged token (403) and keeps the chat', async () => {
    const b = await newBrowser();
    expect((await choose(b, 'mallory' as never)).response.status).toBe(400);
    expect((await choose({ ...b, csrf: 'forged' }, 'bob')).response.status).toBe(403);
    expect(await state().chats.has(idOf(b.cookie))).toBe(true);
    expect(JSON.stringify(await turn(b, '/list_deployments'))).toContain('order-service');
  });
});
