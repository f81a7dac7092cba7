/**
 * The chat cookie is the chat: whoever holds it answers its questions. Served over https (behind a
 * TLS proxy, as ELICITKIT_ALLOWED_HOSTS deployments are), it was set without `Secure`, so the
 * browser sent it along on any plain http request to the host — the first one before a redirect to
 * https — readable by anyone on the way. Now it is `Secure` whenever the page came over https; on
 * plain http (loopback, the default) it is as before. Real route handlers.
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
    expect(cookie).toMatch(/^ek_chat=[A-Za-z0-9_-]+; Path=\/; HttpOnly; SameSite=Strict; Secure$/);
    const { csrf } = (await opened.json()) as { csrf: string };
    const closed = await postClose(
      new Request(url.replace('/info', '/close'), {
        method: 'POST',
        headers: { cookie: cookie.split(';')[0] ?? '', 'content-type': 'text/plain', ...headers },
        body: JSON.stringify({ csrf }),
      }),
    );
    expect(closed.status).toBe(204);
    expect(closed.headers.getSetCookie()).toEqual(['ek_chat=; Path=/; HttpOnly; SameSite=Strict; Max-Age=0; Secure']);
  });

  it('stays as it was on plain http', async () => {
    const [cookie] = (
      await info('http://localhost:3000/api/chat/info', { 'x-forwarded-proto': 'http' })
    ).headers.getSetCookie();
    expect(cookie).toMatch(/^ek_chat=[A-Za-z0-9_-]+; Path=\/; HttpOnly; SameSite=Strict$/);
  });
});
