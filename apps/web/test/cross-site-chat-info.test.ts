/**
 * Any web page the person visits could lock them out of the chat: `GET /api/chat/info` opens a chat
 * for a request without the chat cookie, counted against the client address's cap, and a cross-site
 * `<img src="http://localhost:3000/api/chat/info">` × 20 is exactly such a request (the
 * SameSite=Strict cookie is not sent, the Host is ours). The proxy refuses what the browser labels
 * `Sec-Fetch-Site: cross-site` on the API; the person's own page still opens its chat. Real proxy
 * (`proxy.ts`, run first as Next.js runs it) and real route handler.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const data = mkdtempSync(join(tmpdir(), 'elicitkit-xsite-'));
process.env.ELICITKIT_DATA = data;
delete process.env.ELICITKIT_SERVERS;
delete process.env.ELICITKIT_MAX_CHATS_PER_ADDRESS;
delete process.env.ELICITKIT_ALLOWED_HOSTS;
for (const name of ['OPENAI_API_KEY', 'OPENAI_BASE_URL', 'ELICITKIT_MODEL']) delete process.env[name];

const { proxy } = await import('../proxy');
const { GET: getChatInfo } = await import('../app/api/chat/info/route');
const { resetState } = await import('../lib/state');
afterAll(async () => {
  await resetState();
  rmSync(data, { recursive: true, force: true });
});

/** A request as the app sees it: the proxy first, then the route. */
async function serve(headers: Record<string, string>): Promise<Response> {
  const request = new Request('http://localhost:3000/api/chat/info', {
    headers: { host: 'localhost:3000', 'x-forwarded-for': '127.0.0.1', ...headers },
  });
  return proxy(request) ?? getChatInfo(request);
}

/** What Chrome sends for `<img src="http://localhost:3000/api/chat/info">` on https://evil.example. */
const IMG_FROM_ELSEWHERE = {
  'sec-fetch-site': 'cross-site',
  'sec-fetch-mode': 'no-cors',
  'sec-fetch-dest': 'image',
  referer: 'https://evil.example/',
};

/** What the chat page's own `fetch('/api/chat/info')` sends. */
const OWN_PAGE = { 'sec-fetch-site': 'same-origin', 'sec-fetch-mode': 'cors', 'sec-fetch-dest': 'empty' };

/**
 * The same from a page of another origin on the same site: another port of localhost (any local
 * dev server, a preview of downloaded HTML), or a sibling subdomain behind the proxy. Ports do not
 * make a site, so the browser labels it `same-site` and sends SameSite=Strict cookies along.
 */
const FETCH_FROM_ANOTHER_PORT = {
  'sec-fetch-site': 'same-site',
  'sec-fetch-mode': 'no-cors',
  'sec-fetch-dest': 'empty',
  referer: 'http://localhost:8080/',
};

describe('GET /api/chat/info from another site', () => {
  it.each([
    ['another site', IMG_FROM_ELSEWHERE],
    ['another origin of the same site', FETCH_FROM_ANOTHER_PORT],
  ])("cannot use up the person's chats from %s: their own page still opens one", async (_label, from) => {
    await resetState();
    const opened: number[] = [];
    for (let i = 0; i < 25; i++) opened.push((await serve(from)).status);
    // Every one of the first 20 used to open a chat (200) on the person's address.
    const own = await serve(OWN_PAGE);
    expect(own.status, `requests from elsewhere answered ${opened.join(',')}`).toBe(200);
  });
});
