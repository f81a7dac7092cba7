/**
 * The chat cookie is the chat: whoever holds it answers its questions. Served over https (behind a
 * TLS proxy, as ELICITKIT_ALLOWED_HOSTS deployments are), it was set without `Secure`, so the
 * browser sent it along on any plain http request to the host — the first one before a redirect to
 * https — readable by anyone on the way. Now it is `Secure` whenever the page came over https; on
 * plain http (loopback, the default) it is as before. Real route handlers.
 *
 * Over https it is also `__Host-ek_chat`: without the prefix a sibling subdomain (a cookie with
 * `Domain=` the parent) or any plain-http response to the host could set `ek_chat` in the person's
 * browser — the id of a chat the attacker opened (session fixation: the person's answers go to the
 * attacker's chat) — and it was taken as the chat. Over https only the prefixed name names a chat.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const data = mkdtempSync(join(tmpdir(), 'elicitkit-chat-cookie-'));
process.env.ELICITKIT_DATA = data;
for (const name of ['OPENAI_API_KEY', 'OPENAI_BASE_URL', 'ELICITKIT_MODEL', 'ELICITKIT_SERVERS'])
  delete process.env[name];

const { GET: getChatInfo } = await import('../app/api/chat/info/route');
const { POST: postClose } = await import('../app/api/chat/close/route');
const { POST: postIdentity } = await import('../app/api/chat/identity/route');
const { resetState } = await import('../lib/state');
afterAll(async () => {
  await resetState();
  rmSync(data, { recursive: true, force: true });
});

const info = (url: string, headers: Record<string, string> = {}) =>
  getChatInfo(new Request(url, { headers: { 'x-forwarded-for': '127.0.0.1', ...headers } }));

describe('the chat cookie', () => {
  it.each([
    ['https here', 'https://chat.example.com/api/chat/info', {}],
    ['https at the proxy', 'http://chat.example.com/api/chat/info', { 'x-forwarded-proto': 'https' }],
  ])('is Secure for a page served over %s, and so is its clearing', async (_label, url, headers) => {
    const opened = await info(url, headers);
    const [cookie = ''] = opened.headers.getSetCookie();
    expect(cookie).toMatch(/^__Host-ek_chat=[A-Za-z0-9_-]+; Path=\/; HttpOnly; SameSite=Strict; Secure$/);
    const { csrf, page } = (await opened.json()) as { csrf: string; page: string };
    const closed = await postClose(
      new Request(url.replace('/info', '/close'), {
        method: 'POST',
        headers: { cookie: cookie.split(';')[0] ?? '', 'content-type': 'text/plain', ...headers },
        body: JSON.stringify({ csrf, page }),
      }),
    );
    expect(closed.status).toBe(204);
    expect(closed.headers.getSetCookie()).toEqual([
      '__Host-ek_chat=; Path=/; HttpOnly; SameSite=Strict; Max-Age=0; Secure',
    ]);
  });

  it.each([
    ['ek_chat', 'https://chat.example.com', {}],
    ['ek_session', 'https://chat.example.com', {}],
    ['ek_chat', 'http://chat.example.com', { 'x-forwarded-proto': 'https' }],
  ])(
    'over https, a chat id tossed in as %s names no chat: a new one is opened and the tossed one cleared',
    async (name, origin, headers) => {
      // The attacker's own chat, opened over https: its id and token are theirs.
      const theirs = await info(`${origin}/api/chat/info`, headers);
      const id = /^__Host-ek_chat=([A-Za-z0-9_-]+)/.exec(theirs.headers.getSetCookie()[0] ?? '')?.[1] ?? '';
      const { csrf } = (await theirs.json()) as { csrf: string };
      expect(id).not.toBe('');
      // Set in the person's browser under an unprefixed name, then sent with their page's requests.
      const tossed = `${name}=${id}`;
      const write = await postIdentity(
        new Request(`${origin}/api/chat/identity`, {
          method: 'POST',
          headers: { cookie: tossed, 'x-elicitkit-csrf': csrf, 'content-type': 'application/json', ...headers },
          body: JSON.stringify({ user: 'bob' }),
        }),
      );
      expect(write.status).toBe(401);
      const page = await info(`${origin}/api/chat/info`, { cookie: tossed, ...headers });
      expect(page.status).toBe(200);
      const cookies = page.headers.getSetCookie();
      const fresh = /^__Host-ek_chat=([A-Za-z0-9_-]+);/.exec(cookies[0] ?? '')?.[1];
      expect(fresh).toMatch(/^[A-Za-z0-9_-]{32}$/);
      expect(fresh).not.toBe(id);
      expect(((await page.json()) as { csrf: string }).csrf).not.toBe(csrf);
      expect(cookies.slice(1)).toEqual([`${name}=; Path=/; HttpOnly; SameSite=Strict; Max-Age=0; Secure`]);
    },
  );

  it('stays as it was on plain http', async () => {
    const [cookie] = (
      await info('http://localhost:3000/api/chat/info', { 'x-forwarded-proto': 'http' })
    ).headers.getSetCookie();
    expect(cookie).toMatch(/^ek_chat=[A-Za-z0-9_-]+; Path=\/; HttpOnly; SameSite=Strict$/);
  });
});
