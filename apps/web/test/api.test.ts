/**
 * The answer endpoint through its real route handlers, with a real chat turn behind it: the chat
 * route calls opsdesk (a stdio child) and streams the question as a data part; the tests then
 * answer it over POST /api/elicitations/{id} in every way the endpoint must refuse and accept.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MAX_ANSWER_LENGTH } from '@elicitkit/form';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { answer as answerOf, ask as askOf, type Browser, newBrowser as newBrowserOf, type Routes } from './browser';

const data = mkdtempSync(join(tmpdir(), 'elicitkit-web-api-'));
process.env.ELICITKIT_DATA = data;
process.env.ELICITKIT_QUESTION_TIMEOUT_MS = '60000';
// No model: the chat runs on slash commands, and the model check has nothing to call.
for (const name of ['OPENAI_API_KEY', 'OPENAI_BASE_URL', 'ELICITKIT_MODEL']) delete process.env[name];

const { GET: getChatInfo } = await import('../app/api/chat/info/route');
const { POST: postChat } = await import('../app/api/chat/route');
const { POST: postAnswer } = await import('../app/api/elicitations/[id]/route');
const { POST: postModelCheck } = await import('../app/api/model/check/route');
const { resetState } = await import('../lib/state');
const { stopOpsdesk } = await import('../lib/opsdesk');

const routes: Routes = { getChatInfo, postChat, postAnswer };
const newBrowser = () => newBrowserOf(routes);
const ask = (b: Browser, text: string) => askOf(routes, b, text);
const answer = (b: Browser, id: string, body: unknown, headers: Record<string, string> = {}) =>
  answerOf(routes, b, id, body, headers);

let alice: Browser;
let mallory: Browser;
beforeAll(async () => {
  alice = await newBrowser();
  mallory = await newBrowser();
}, 60_000);
afterAll(async () => {
  await resetState();
  await stopOpsdesk();
  rmSync(data, { recursive: true, force: true });
});

describe('POST /api/elicitations/{id}', () => {
  it('delivers a valid answer once; a replay is 409; the chat shows the outcome', async () => {
    const q = await ask(alice, '/deploy_service service=order-service');
    expect(q.data).toMatchObject({
      server: 'opsdesk',
      status: 'open',
      prompt: { mode: 'form', message: 'Which environment should order-service v2.3.1 be deployed to?' },
    });
    const ok = await answer(alice, q.id, { action: 'accept', content: { env: 'dev' } });
    expect(ok.status).toBe(200);
    const replay = await answer(alice, q.id, { action: 'accept', content: { env: 'staging' } });
    expect(replay.status).toBe(409);
    const chunks = await q.rest;
    expect(
      chunks.find((c) => c.type === 'data-elicitation' && (c.data as { status: string }).status === 'answered'),
    ).toMatchObject({ data: { action: 'accept' } });
    expect(chunks.find((c) => c.type === 'tool-output-available')).toMatchObject({
      output: { status: 'done', text: expect.stringContaining('to dev') },
    });
  });

  it('refuses a second answer with 409 even when it would not fit the form', async () => {
    const q = await ask(alice, '/deploy_service service=order-service');
    expect((await answer(alice, q.id, { action: 'decline' })).status).toBe(200);
    const again = await answer(alice, q.id, { action: 'accept', content: { env: 'qa' } });
    expect(again.status).toBe(409);
    expect(await again.json()).toEqual({ error: 'This question was already answered.' });
    expect((await answer(alice, q.id, [])).status).toBe(409);
    await q.rest;
  });

  it('binds the question to its chat: another session is refused (403), the owner still answers', async () => {
    const q = await ask(alice, '/deploy_service service=user-service');
    const other = await answer(mallory, q.id, { action: 'accept', content: { env: 'prod' } });
    expect(other.status).toBe(403);
    const noCookie = await postAnswer(
      new Request(`http://localhost/api/elicitations/${q.id}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"action":"decline"}',
      }),
      { params: Promise.resolve({ id: q.id }) },
    );
    expect(noCookie.status).toBe(403);
    expect((await answer(alice, q.id, { action: 'decline' })).status).toBe(200);
    const chunks = await q.rest;
    expect(chunks.find((c) => c.type === 'tool-output-available')).toMatchObject({ output: { status: 'declined' } });
  });

  it('refuses a missing or wrong CSRF token (403) and keeps the question open', async () => {
    const q = await ask(alice, '/deploy_service service=search-service');
    expect((await answer(alice, q.id, { action: 'decline' }, { 'x-elicitkit-csrf': 'forged' })).status).toBe(403);
    const bare = await postAnswer(
      new Request(`http://localhost/api/elicitations/${q.id}`, {
        method: 'POST',
        headers: { cookie: alice.cookie, 'content-type': 'application/json' },
        body: '{"action":"decline"}',
      }),
      { params: Promise.resolve({ id: q.id }) },
    );
    expect(bare.status).toBe(403);
    expect((await answer(alice, q.id, { action: 'cancel' })).status).toBe(200);
    await q.rest;
  });

  it('validates on the server (400 with issues) and lets the person try again', async () => {
    const q = await ask(alice, '/deploy_service service=payment-service');
    const bad = await answer(alice, q.id, { action: 'accept', content: { env: 'qa' } });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ issues: [{ path: ['env'], code: 'not_in_options' }] });
    // Content that is not an object is not "nothing given": no default stands in for it.
    for (const content of [null, 'dev', ['dev'], 0]) {
      const notAnObject = await answer(alice, q.id, { action: 'accept', content });
      expect(notAnObject.status, JSON.stringify(content)).toBe(400);
      expect(await notAnObject.json()).toEqual({
        error: '"content" must be an object: the fields of the form and their values.',
      });
    }
    // A key the answer does not take is refused, not ignored ("contents" would leave the defaults).
    const extra = await answer(alice, q.id, { action: 'accept', content: { env: 'dev' }, extra: 1 });
    expect(extra.status).toBe(400);
    expect((await answer(alice, q.id, { action: 'accept', content: { env: 'dev' } })).status).toBe(200);
    await q.rest;
  });

  it('takes an answer as final with applyDefaults false: a default the person cleared is not filled in', async () => {
    // A chat of its own: the app asks a chat at most 10 questions a minute.
    const carol = await newBrowser();
    const q = await ask(carol, '/deploy_service service=order-service env=prod');
    const asShown = await answer(carol, q.id, {
      action: 'accept',
      content: { ticket: 'REL-1001' },
      applyDefaults: false,
    });
    expect(asShown.status).toBe(400);
    expect(await asShown.json()).toMatchObject({ issues: [{ path: ['confirmed'], code: 'required' }] });
    const unclear = await answer(carol, q.id, { action: 'accept', content: { ticket: 'REL-1001' }, applyDefaults: 1 });
    expect(unclear.status).toBe(400);
    expect(await unclear.json()).toEqual({ error: '"applyDefaults" must be true or false.' });
    // Left out, the defaults fill what a script left out: confirmed false, which the tool refuses.
    expect((await answer(carol, q.id, { action: 'accept', content: { ticket: 'REL-1001' } })).status).toBe(200);
    const chunks = await q.rest;
    expect(chunks.find((c) => c.type === 'tool-output-available')).toMatchObject({
      output: { text: expect.not.stringContaining('Deployed') },
    });
  });

  it.each([
    ['not JSON', 'nope', 400],
    ['no action', '{}', 400],
    ['content on a decline', '{"action":"decline","content":{"env":"dev"}}', 400],
    ['an array', '[]', 400],
  ])('refuses %s with 400', async (_label, body, status) => {
    const q = await ask(alice, '/deploy_service service=order-service');
    expect((await answer(alice, q.id, body)).status).toBe(status);
    expect((await answer(alice, q.id, { action: 'cancel' })).status).toBe(200);
    await q.rest;
  });

  it('refuses an oversize body (413) without reading it all', async () => {
    // Past any answer a form takes (MAX_ANSWER_LENGTH characters of JSON, 3 bytes each at most).
    const q = await ask(alice, '/deploy_service service=order-service');
    const huge = JSON.stringify({ action: 'accept', content: { env: 'x'.repeat(3 * MAX_ANSWER_LENGTH + 4096) } });
    expect((await answer(alice, q.id, huge)).status).toBe(413);
    expect((await answer(alice, q.id, { action: 'cancel' })).status).toBe(200);
    await q.rest;
  });

  it('answers 404 for an unknown id, and 415 for a body that is not JSON', async () => {
    expect((await answer(alice, 'no-such-question', { action: 'cancel' })).status).toBe(404);
    expect((await answer(alice, 'no-such-question', 'x', { 'content-type': 'text/plain' })).status).toBe(415);
    // The media type is read whole: a parameter naming JSON does not make a body JSON.
    for (const type of ['text/plain; x=application/json', 'application/jsonp', 'application/json-seq'])
      expect((await answer(alice, 'no-such-question', '{}', { 'content-type': type })).status, type).toBe(415);
  });

  it('takes JSON whatever the case of its media type (RFC 9110), with or without a charset', async () => {
    // A chat of its own: the app asks a chat at most 10 questions a minute.
    const dave = await newBrowser();
    for (const type of ['Application/JSON', 'application/json;charset=UTF-8', ' application/json ; charset=utf-8']) {
      const q = await ask(dave, '/deploy_service service=order-service');
      expect((await answer(dave, q.id, { action: 'cancel' }, { 'content-type': type })).status, type).toBe(200);
      await q.rest;
    }
  });
});

describe('POST /api/chat', () => {
  it('needs the session and its CSRF token', async () => {
    const body = JSON.stringify({ messages: [] });
    const none = await postChat(
      new Request('http://localhost/api/chat', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body,
      }),
    );
    expect(none.status).toBe(401);
    const forged = await postChat(
      new Request('http://localhost/api/chat', {
        method: 'POST',
        headers: { cookie: alice.cookie, 'x-elicitkit-csrf': 'x', 'content-type': 'application/json' },
        body,
      }),
    );
    expect(forged.status).toBe(403);
  });
});

describe('POST /api/model/check', () => {
  const check = (headers: Record<string, string>) =>
    postModelCheck(new Request('http://localhost/api/model/check', { method: 'POST', headers }));

  it('needs the session (401) and its CSRF token (403) before anything is called', async () => {
    const none = await check({});
    expect(none.status).toBe(401);
    expect(await none.json()).toEqual({ error: 'No session: load the page first.' });
    const forged = await check({ cookie: alice.cookie, 'x-elicitkit-csrf': mallory.csrf });
    expect(forged.status).toBe(403);
    expect(await forged.json()).toEqual({
      error: 'Missing or wrong CSRF token: reload the page (another tab may have changed the chat).',
    });
  });

  it("reports the chat's model set-up with the right token (no model configured here)", async () => {
    const ok = await check({ cookie: alice.cookie, 'x-elicitkit-csrf': alice.csrf });
    expect(ok.status).toBe(200);
    expect(await ok.json()).toMatchObject({ ok: false, kind: 'not-configured' });
  });
});

describe('GET /api/chat/info', () => {
  const info = (cookie?: string) =>
    getChatInfo(new Request('http://localhost/api/chat/info', { headers: cookie ? { cookie } : {} }));

  it('names a new chat in the ek_chat cookie, and finds it again by that cookie', async () => {
    const opened = await info();
    const [cookie] = opened.headers.getSetCookie();
    expect(cookie).toMatch(/^ek_chat=[A-Za-z0-9_-]+; Path=\/; HttpOnly; SameSite=Strict$/);
    const again = await info((cookie ?? '').split(';')[0]);
    expect(again.headers.getSetCookie()).toEqual([]);
    expect((await again.json()).csrf).toBe((await opened.json()).csrf);
  });

  it('still reads the deprecated ek_session cookie and renames it; the deprecated routes still answer', async () => {
    const id = alice.cookie.replace(/^ek_chat=/, '');
    const legacy = `ek_session=${id}`;
    const renamed = await info(legacy);
    expect(renamed.status).toBe(200);
    expect((await renamed.json()).csrf).toBe(alice.csrf);
    expect(renamed.headers.getSetCookie()).toEqual([
      `ek_chat=${id}; Path=/; HttpOnly; SameSite=Strict`,
      'ek_session=; Path=/; HttpOnly; SameSite=Strict; Max-Age=0',
    ]);
    const { GET: getSession } = await import('../app/api/session/route');
    const old = await getSession(new Request('http://localhost/api/session', { headers: { cookie: legacy } }));
    expect((await old.json()).csrf).toBe(alice.csrf);
  });
});
