/**
 * What the chat says about what a person typed is in the chat's language: a command naming no
 * tool, a line with no model to read it, and an answer the answer route refuses (shown in the
 * page's dialog or chat: 404, 409, 410, 400) were English in a Chinese chat. Real routes, a real
 * stdio MCP server (raw JSON-RPC lines).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { rawServer } from './raw-server';

const SERVER = rawServer({
  tools: [{ name: 'scale', inputSchema: { type: 'object', properties: {} } }],
  call: `(m, ask, reply) => {
    ask({ mode: 'form', message: 'How far?', requestedSchema: { type: 'object', properties: {
      ratio: { type: 'number', title: 'Ratio' } }, required: ['ratio'] } })
      .then((r) => reply({ content: [{ type: 'text', text: 'answer ' + JSON.stringify(r.result) }] }));
  }`,
});

const data = mkdtempSync(join(tmpdir(), 'elicitkit-chat-language-'));
process.env.ELICITKIT_DATA = data;
process.env.ELICITKIT_QUESTION_TIMEOUT_MS = '60000';
process.env.ELICITKIT_SERVERS = JSON.stringify([
  { name: 'ops', command: [process.execPath, '-e', SERVER], revision: '2025-11-25' },
]);
for (const name of ['OPENAI_API_KEY', 'OPENAI_BASE_URL', 'ELICITKIT_MODEL']) delete process.env[name];

const { newBrowser, ask, answer, postChat, textOf, turn } = await import('./chat-client');
const { POST: postIdentity } = await import('../app/api/chat/identity/route');
const { resetState } = await import('../lib/state');
afterAll(async () => {
  await resetState();
  rmSync(data, { recursive: true, force: true });
});

const b = await newBrowser();
const ZH = { 'x-elicitkit-locale': 'zh' };
/** Han characters, and no run of three Latin letters outside quoted names: the sentence is Chinese. */
const chinese = (text: string) =>
  /\p{Script=Han}/u.test(text) && !/[A-Za-z]{3,}/.test(text.replace(/"[^"]*"|“[^”]*”|\/?\w+__\w+|scale|nosuch/g, ''));

async function said(text: string): Promise<string> {
  return textOf(await turn(b, text, ZH));
}

describe('a Chinese chat', () => {
  it('says a command names no tool in Chinese, naming the tools', async () => {
    const text = await said('/nosuch');
    expect(text).toContain('nosuch');
    expect(text).toContain('scale');
    expect(chinese(text), text).toBe(true);
  });

  it('says there is no model in Chinese', async () => {
    const text = await said('deploy order-service');
    // The variables, the example server and the example command are names, not English.
    const names =
      /OPENAI_API_KEY|OPENAI_BASE_URL|ELICITKIT_MODEL|Ollama|OpenAI|\/deploy_service service=order-service/g;
    expect(chinese(text.replace(names, '')), text).toBe(true);
  });

  it("tells an answer's refusals in Chinese: invalid, already answered, unknown", async () => {
    const q = await ask(b, '/scale', ZH);
    const bad = await answer(b, q.id, { action: 'maybe' }, ZH);
    expect(bad.status).toBe(400);
    const badText = ((await bad.json()) as { error: string }).error;
    expect(chinese(badText.replace(/accept|decline|cancel|action/g, '')), badText).toBe(true);
    const typed = await answer(b, q.id, '{"action":"accept","content":{"ratio":-0}}', ZH);
    expect(typed.status).toBe(400);
    const typedText = ((await typed.json()) as { error: string }).error;
    expect(typedText).toContain('$.content.ratio');
    expect(chinese(typedText.replace('$.content.ratio', '').replace('JSON', '')), typedText).toBe(true);
    expect((await answer(b, q.id, { action: 'cancel' }, ZH)).status).toBe(200);
    await q.rest;
    const again = await answer(b, q.id, { action: 'cancel' }, ZH);
    expect(again.status).toBe(409);
    const againText = ((await again.json()) as { error: string }).error;
    expect(chinese(againText), againText).toBe(true);
    const unknown = await answer(b, 'no-such-question', { action: 'cancel' }, ZH);
    expect(unknown.status).toBe(404);
    const unknownText = ((await unknown.json()) as { error: string }).error;
    expect(chinese(unknownText), unknownText).toBe(true);
  });

  it('says why a second turn or an identity change is refused in Chinese', async () => {
    const q = await ask(b, '/scale', ZH);
    const second = await postChat(
      new Request('http://localhost/api/chat', {
        method: 'POST',
        headers: { cookie: b.cookie, 'x-elicitkit-csrf': b.csrf, 'content-type': 'application/json', ...ZH },
        body: JSON.stringify({ messages: [{ id: 'm2', role: 'user', parts: [{ type: 'text', text: '/scale' }] }] }),
      }),
    );
    expect(second.status).toBe(409);
    const secondText = ((await second.json()) as { error: string }).error;
    expect(chinese(secondText), secondText).toBe(true);
    // No opsdesk here: the picker does not apply, said in Chinese.
    const chosen = await postIdentity(
      new Request('http://localhost/api/chat/identity', {
        method: 'POST',
        headers: { cookie: b.cookie, 'x-elicitkit-csrf': b.csrf, 'content-type': 'application/json', ...ZH },
        body: JSON.stringify({ user: 'bob' }),
      }),
    );
    expect(chosen.status).toBe(404);
    const chosenText = ((await chosen.json()) as { error: string }).error;
    expect(chinese(chosenText.replace('opsdesk', '')), chosenText).toBe(true);
    expect((await answer(b, q.id, { action: 'cancel' }, ZH)).status).toBe(200);
    await q.rest;
  });

  it('says a stale or missing token in Chinese, and to reload', async () => {
    const stale = await postChat(
      new Request('http://localhost/api/chat', {
        method: 'POST',
        headers: {
          cookie: b.cookie,
          'x-elicitkit-csrf': 'from-another-chat',
          'content-type': 'application/json',
          ...ZH,
        },
        body: JSON.stringify({ messages: [{ id: 'm3', role: 'user', parts: [{ type: 'text', text: '/scale' }] }] }),
      }),
    );
    expect(stale.status).toBe(403);
    const text = ((await stale.json()) as { error: string }).error;
    expect(chinese(text.replace('CSRF', '')), text).toBe(true);
    expect(text).toContain('重新加载');
  });

  it('keeps English for an English chat', async () => {
    const response = await answer(b, 'no-such-question', { action: 'cancel' });
    expect(await response.json()).toEqual({ error: 'There is no question with this id.' });
  });
});
