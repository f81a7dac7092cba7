/**
 * The password page over opsdesk's real HTTP listener (and stdio's own one), against a hostile browser: a body over the
 * page's limit is refused with the page's own 413 (not a 500 with the adapter's words), and the
 * link still works after it — a refused request loses nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callTool } from '../../../../test/support/mcp.js';
import { accept, pendingOf, wireRound } from '../../../../test/support/modern-wire.js';
import { setPasswordOnPage } from '../../test/cases.js';
import { peek, stdioClient, tempDataDir } from '../../test/harness.js';
import { type HttpServing, serveHttp } from '../serve-http.js';

let data: ReturnType<typeof tempDataDir>;
let served: HttpServing;
beforeAll(async () => {
  data = tempDataDir();
  served = await serveHttp({ dataDir: data.dir, locale: 'en', port: 0, urlWaitMs: 100 });
});
afterAll(async () => {
  await served.close();
  data.remove();
});

async function passwordLink(username: string): Promise<string> {
  const h = { headers: { authorization: `Bearer ${served.ownerToken('pagetester')}` } };
  const call = { name: 'register_user', arguments: {} };
  const { requestState } = pendingOf(await wireRound(served.url, call, h));
  const round = await wireRound(
    served.url,
    {
      ...call,
      inputResponses: { account: accept({ username, email: `${username}@example.com`, newsletter: false }) },
      requestState,
    },
    h,
  );
  return (round.result as { inputRequests: { password: { params: { url: string } } } }).inputRequests.password.params
    .url;
}

describe('the password page over HTTP', () => {
  it('a body over 64 KiB: 413 with the page, and the link still sets the password afterwards', async () => {
    const url = await passwordLink('bigbody');
    const form = await fetch(url);
    const csrf = /name="csrf" value="([^"]+)"/.exec(await form.text())?.[1] ?? '';
    const cookie = (form.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
    const huge = new URLSearchParams({ csrf, password: 'x'.repeat(70_000), confirm: 'x'.repeat(70_000) });
    const refused = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie, origin: new URL(url).origin },
      body: huge.toString(),
    });
    expect(refused.status).toBe(413);
    expect(refused.headers.get('content-type')).toContain('text/html');
    expect(await refused.text()).toContain('This request was refused.');
    expect(peek(data.dir, "SELECT 1 FROM users WHERE username = 'bigbody'")).toHaveLength(0);

    expect((await setPasswordOnPage(url)).status).toBe(200);
    expect(peek(data.dir, "SELECT 1 FROM users WHERE username = 'bigbody'")).toHaveLength(1);
  });
});

describe('the password page under stdio serving', () => {
  it('a body over 64 KiB: 413 with the page', async () => {
    const dir = tempDataDir();
    let status: number | undefined;
    let type: string | null = null;
    const conn = await stdioClient(dir.dir, {
      revision: '2025-11-25',
      script: [
        { action: 'accept', content: { username: 'bigstdio', email: 'big@example.com', newsletter: false } },
        async (params) => {
          const refused = await fetch(String(params.url), {
            method: 'POST',
            headers: { 'content-type': 'application/x-www-form-urlencoded' },
            body: `password=${'x'.repeat(70_000)}`,
          });
          status = refused.status;
          type = refused.headers.get('content-type');
          return { action: 'decline' };
        },
      ],
    });
    try {
      expect((await callTool(conn.client, 'register_user', {})).status).toBe('declined');
      expect(status).toBe(413);
      expect(type).toContain('text/html');
    } finally {
      await conn.close();
      dir.remove();
    }
  }, 60_000);
});
