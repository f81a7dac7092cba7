/**
 * The password page's route (`servePasswordPage`) on both listeners that serve it: `serve --http`'s
 * port, and the page's own port under `serve --stdio` (a real child process, the page opened by a
 * password question). Raw requests on a loopback socket where a browser could not send them, as a
 * hostile page or client does.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callTool } from '../../../../test/support/mcp.js';
import { accept, pendingOf, wireRound } from '../../../../test/support/modern-wire.js';
import { setPasswordOnPage } from '../../test/cases.js';
import { peek, stdioClient, tempDataDir } from '../../test/harness.js';
import { rawRequest } from '../../test/raw-http.js';
import { type HttpServing, serveHttp } from '../serve-http.js';

/** A listener serving the password page: its loopback port, and how to stop it. */
interface PageListener {
  port: number;
  close(): Promise<void>;
}

async function overHttp(): Promise<PageListener> {
  const data = tempDataDir();
  const served = await serveHttp({ dataDir: data.dir, locale: 'en', port: 0 });
  return {
    port: served.port,
    async close() {
      await served.close();
      data.remove();
    },
  };
}

async function overStdio(): Promise<PageListener> {
  const data = tempDataDir();
  const conn = await stdioClient(data.dir, {
    revision: '2025-11-25',
    script: [
      { action: 'accept', content: { username: 'pagetester', email: 'page@example.com', newsletter: false } },
      { action: 'decline' },
    ],
  });
  // The page listens once a password question first needs it.
  expect((await callTool(conn.client, 'register_user', {})).status).toBe('declined');
  return {
    port: Number(new URL(String(conn.seen[1]?.url)).port),
    async close() {
      await conn.close();
      data.remove();
    },
  };
}

const LINK_PATH = '/register/abcdefghijklmnopqrstuvwxyz';

describe.each([
  ['serve --http', overHttp],
  ['serve --stdio (the page’s own port)', overStdio],
])('the password page route on %s', (_listener, start) => {
  let listener: PageListener;
  beforeAll(async () => {
    listener = await start();
  }, 60_000);
  afterAll(async () => {
    await listener.close();
  });

  it('a request whose Host no URL can hold is a 400, the Host never echoed', async () => {
    for (const host of ['[bad', 'a b']) {
      const reply = await rawRequest(listener.port, `GET ${LINK_PATH} HTTP/1.1\r\nHost: ${host}\r\n`);
      expect(reply.status).toBe('HTTP/1.1 400 Bad Request');
      expect(reply.body).not.toContain(host);
    }
  });

  it('a body over 64 KiB: 413 with the page (not a 500 in the adapter’s words)', async () => {
    const refused = await fetch(`http://127.0.0.1:${listener.port}${LINK_PATH}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: `password=${'x'.repeat(70_000)}`,
    });
    expect(refused.status).toBe(413);
    expect(refused.headers.get('content-type')).toContain('text/html');
    expect(await refused.text()).toContain('This request was refused.');
  });

  it('a Host that is not loopback is refused (DNS rebinding)', async () => {
    const reply = await rawRequest(listener.port, `GET ${LINK_PATH} HTTP/1.1\r\nHost: evil.example\r\n`);
    expect(reply.status).toMatch(/^HTTP\/1\.1 403 /);
  });

  it('a link that is none is the page’s 404; any other path a plain 404', async () => {
    const base = `http://127.0.0.1:${listener.port}`;
    const notALink = await fetch(`${base}/register/short`);
    expect(notALink.status).toBe(404);
    expect(await notALink.text()).toContain('This link is not valid.');
    const elsewhere = await fetch(`${base}/elsewhere`);
    expect(elsewhere.status).toBe(404);
    expect(await elsewhere.text()).toBe('Not found');
  });
});

describe('the password page route over serve --http, with a live link', () => {
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
    const h = { headers: { authorization: `Bearer ${await served.ownerToken('pagetester')}` } };
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
