/**
 * The demo identity picker through its real route: the chosen user reaches the app's one opsdesk
 * (the chat's MCP session carries that user's token), so its permissions apply; bad requests are refused.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { adoptChat } from './browser';

const data = mkdtempSync(join(tmpdir(), 'elicitkit-web-identity-'));
process.env.ELICITKIT_DATA = data;

const { newBrowser, turn } = await import('./chat-client');
const { POST: postIdentity } = await import('../app/api/chat/identity/route');
const { resetState } = await import('../lib/state');
const { stopOpsdesk } = await import('../lib/opsdesk');
const { auditTrail } = await import('../lib/audit');
afterAll(async () => {
  await resetState();
  await stopOpsdesk();
  rmSync(data, { recursive: true, force: true });
});

type Browser = Awaited<ReturnType<typeof newBrowser>>;

/** Chooses as the page does: a change is a new chat, which the browser then holds (`adoptChat`). */
const choose = async (b: Browser, body: unknown, csrf = b.csrf) =>
  adoptChat(
    b,
    await postIdentity(
      new Request('http://localhost/api/chat/identity', {
        method: 'POST',
        headers: { cookie: b.cookie, 'x-elicitkit-csrf': csrf, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      }),
    ),
  );

/** The whole stream of a `/list_deployments` turn, as text. */
async function listDeployments(b: Browser): Promise<string> {
  return JSON.stringify(await turn(b, '/list_deployments'));
}

describe('the demo identity picker', () => {
  it('acts as bob (search-service only) after choosing him, and as the local owner again after null', async () => {
    const b = await newBrowser();
    expect(await listDeployments(b)).toContain('order-service');
    expect((await choose(b, { user: 'bob' })).status).toBe(200);
    const asBob = await listDeployments(b);
    expect(asBob).toContain('search-service');
    expect(asBob).not.toContain('order-service');
    expect((await choose(b, { user: null })).status).toBe(200);
    expect(await listDeployments(b)).toContain('order-service');
  });

  it('as bob, a deploy of order-service is refused without a question, and the refusal is in the audit', async () => {
    const b = await newBrowser();
    expect((await choose(b, { user: 'bob' })).status).toBe(200);
    const stream = JSON.stringify(await turn(b, '/deploy_service service=order-service'));
    expect(stream).toContain('"status":"rejected"');
    expect(stream).not.toContain('data-elicitation');
    const trail = await auditTrail();
    expect(trail?.requests.filter((r) => r.username === 'bob')).toEqual([]);
    expect(trail?.refusals.at(-1)).toMatchObject({
      tool: 'deploy_service',
      username: 'bob',
      revision: '2026-07-28',
      message: expect.stringContaining('order-service'),
    });
  });

  it('refuses an unknown user (400) and a missing CSRF token (403), and changes nothing', async () => {
    const b = await newBrowser();
    expect((await choose(b, { user: 'mallory' })).status).toBe(400);
    expect((await choose(b, { user: '__proto__' })).status).toBe(400);
    expect((await choose(b, { user: 'bob' }, 'forged')).status).toBe(403);
    expect(await listDeployments(b)).toContain('order-service');
  });

  it("refuses a body it cannot read in the page's language, and changes nothing", async () => {
    const b = await newBrowser();
    const post = (contentType: string, body: string) =>
      postIdentity(
        new Request('http://localhost/api/chat/identity', {
          method: 'POST',
          headers: {
            cookie: b.cookie,
            'x-elicitkit-csrf': b.csrf,
            'content-type': contentType,
            'x-elicitkit-locale': 'zh',
          },
          body,
        }),
      );
    for (const [contentType, body, status, error] of [
      ['text/plain', '{"user":"bob"}', 415, '请发送 JSON（content-type: application/json）。'],
      ['application/json', '{"user":', 400, '请求体不是有效的 JSON。'],
      ['application/json', JSON.stringify({ user: 'bob', pad: 'x'.repeat(2000) }), 413, '请求体超过 1024 字节。'],
    ] as const) {
      const refused = await post(contentType, body);
      expect([refused.status, await refused.json()], body.slice(0, 20)).toEqual([status, { error }]);
    }
    expect(await listDeployments(b)).toContain('order-service');
  });
});
