/**
 * Every refusal of the chat's routes that a person may read is in the page's language: a turn's
 * body that is not the page's shape (an old tab, an extension, a proxy rewriting it), the tools
 * panel without a chat, a chat refused for too many open, the close beacon's answers. Each route
 * called in-process with a Chinese page's header (or only its browser's Accept-Language).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { rawServer } from './raw-server';

const data = mkdtempSync(join(tmpdir(), 'elicitkit-refusals-zh-'));
process.env.ELICITKIT_DATA = data;
process.env.ELICITKIT_SERVERS = JSON.stringify([
  { name: 'quiet', command: [process.execPath, '-e', rawServer({ tools: [] })], revision: '2025-11-25' },
]);
process.env.ELICITKIT_MAX_CHATS_PER_ADDRESS = '1';
process.env.ELICITKIT_MAX_CHATS = '3';
for (const name of ['OPENAI_API_KEY', 'OPENAI_BASE_URL', 'ELICITKIT_MODEL']) delete process.env[name];

const { newBrowser, getChatInfo, postChat } = await import('./chat-client');
const { GET: getTools } = await import('../app/api/tools/route');
const { POST: postClose } = await import('../app/api/chat/close/route');
const { resetState } = await import('../lib/state');

afterAll(async () => {
  await resetState();
  for (const name of ['ELICITKIT_MAX_CHATS_PER_ADDRESS', 'ELICITKIT_MAX_CHATS']) delete process.env[name];
  rmSync(data, { recursive: true, force: true });
});

const ZH = { 'x-elicitkit-locale': 'zh' };
/** Han characters: the refusal is Chinese, not English with a Chinese name in it. */
const HAN = /\p{Script=Han}/u;

const b = await newBrowser('10.0.0.1');

async function postTurn(body: string, headers: Record<string, string> = ZH) {
  const response = await postChat(
    new Request('http://localhost/api/chat', {
      method: 'POST',
      headers: { cookie: b.cookie, 'x-elicitkit-csrf': b.csrf, 'content-type': 'application/json', ...headers },
      body,
    }),
  );
  if (response.status === 200) return { status: 200, error: await response.text() };
  return { status: response.status, error: ((await response.json()) as { error: string }).error };
}

describe("a turn's body that is not the page's shape, on a Chinese page", () => {
  it('no "messages" array: 400 in Chinese (and English on an English page)', async () => {
    for (const body of ['{}', '[]', '{"messages":{}}', 'null']) {
      const { status, error } = await postTurn(body);
      expect(status).toBe(400);
      expect(error).toMatch(HAN);
      expect(error).toContain('"messages"');
    }
    expect((await postTurn('{}', { 'x-elicitkit-locale': 'en' })).error).toBe(
      'The body must be an object whose "messages" is an array.',
    );
  });

  it('a message without role or parts, a part without a type, a text that is not a string: 400 in Chinese', async () => {
    for (const messages of [
      [null],
      [{ role: 'user' }],
      [{ role: 'user', parts: [null] }],
      [{ role: 'user', parts: [{ text: 'x' }] }],
      [{ role: 'user', parts: [{ type: 'text', text: 5 }] }],
    ]) {
      const { status, error } = await postTurn(JSON.stringify({ messages }));
      expect(status).toBe(400);
      expect(error).toMatch(HAN);
    }
  });

  it('half a character in what the person typed: 400 in Chinese, the turn free for the next', async () => {
    const messages = [{ id: 'u1', role: 'user', parts: [{ type: 'text', text: 'deploy \ud800 now' }] }];
    const { status, error } = await postTurn(JSON.stringify({ messages }));
    expect(status).toBe(400);
    expect(error).toMatch(HAN);
    expect(error).toContain('UTF-16');
    // The refusal ended the turn it took: the next is not refused as running.
    const next = await postTurn(JSON.stringify({ messages: [{ id: 'u2', role: 'user', parts: [] }] }));
    expect(next.status).toBe(200);
  });

  it("readJson's own refusals follow the page too (415, 400)", async () => {
    const wrongType = await postChat(
      new Request('http://localhost/api/chat', {
        method: 'POST',
        headers: { cookie: b.cookie, 'x-elicitkit-csrf': b.csrf, 'content-type': 'text/plain', ...ZH },
        body: '{}',
      }),
    );
    expect(wrongType.status).toBe(415);
    expect(((await wrongType.json()) as { error: string }).error).toMatch(HAN);
    expect((await postTurn('{')).error).toMatch(HAN);
  });
});

describe('the other routes a Chinese page reads', () => {
  it('the tools panel without a chat: 401 in Chinese', async () => {
    const response = await getTools(new Request('http://localhost/api/tools', { headers: ZH }));
    expect(response.status).toBe(401);
    expect(((await response.json()) as { error: string }).error).toMatch(HAN);
  });

  it('too many chats from one address, and the server full: 429 in Chinese', async () => {
    const info = (address: string) =>
      getChatInfo(
        new Request('http://localhost/api/chat/info', {
          headers: { 'x-forwarded-for': address, 'accept-language': 'zh-CN,zh;q=0.9' },
        }),
      );
    const own = await info('10.0.0.1');
    expect(own.status).toBe(429);
    const byAddress = ((await own.json()) as { error: string }).error;
    expect(byAddress).toMatch(HAN);
    expect(byAddress).toContain('1');
    expect((await info('10.0.0.2')).status).toBe(200);
    expect((await info('10.0.0.3')).status).toBe(200);
    const full = await info('10.0.0.4');
    expect(full.status).toBe(429);
    expect(((await full.json()) as { error: string }).error).toMatch(HAN);
  });

  it("the close beacon's refusals follow the browser's language (a beacon sends no custom header)", async () => {
    const beacon = (headers: Record<string, string>, body: string) =>
      postClose(
        new Request('http://localhost/api/chat/close', {
          method: 'POST',
          headers: { 'content-type': 'text/plain;charset=UTF-8', 'accept-language': 'zh-CN', ...headers },
          body,
        }),
      );
    const cases = [
      { response: await beacon({}, JSON.stringify({ csrf: b.csrf })), status: 403 },
      { response: await beacon({ cookie: b.cookie }, JSON.stringify({ csrf: 'wrong' })), status: 403 },
      { response: await beacon({ cookie: b.cookie, 'content-type': 'application/xml' }, '{}'), status: 415 },
      { response: await beacon({ cookie: b.cookie }, '{'), status: 400 },
    ];
    for (const { response, status } of cases) {
      expect(response.status).toBe(status);
      expect(((await response.json()) as { error: string }).error).toMatch(HAN);
    }
  });
});
