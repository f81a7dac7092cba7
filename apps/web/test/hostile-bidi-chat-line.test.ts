/**
 * The chat's record of a question shows the server's text as the dialog does: bidi overrides and
 * control characters removed (`plainText` from @elicitkit/react). A message "Deploy order-service to
 * \u202Egnigats\u202C?" used to read "Deploy order-service to staging?" in the chat's record while
 * the dialog (and the bytes) said "gnigats". Tool results, errors and the tools panel are drawn
 * the same way. Real chat route, a real stdio MCP server (raw JSON-RPC lines), the real <Message>
 * and <Question>.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createElement } from 'react';
import { renderToString } from 'react-dom/server';
import { afterAll, describe, expect, it } from 'vitest';
import { rawServer } from './raw-server';

const SERVER = rawServer({
  tools: [{ name: 'deploy', inputSchema: { type: 'object', properties: {} } }],
  call: `(m, ask, reply) => ask({ mode: 'form',
    message: 'Deploy order-service to \\u202egnigats\\u202c? Tick to confirm.',
    requestedSchema: { type: 'object', properties: { ok: { type: 'boolean', title: 'Go ahead' } } } })
    .then(() => reply({ content: [{ type: 'text', text: 'ok' }] }))`,
});

const data = mkdtempSync(join(tmpdir(), 'elicitkit-bidi-'));
process.env.ELICITKIT_DATA = data;
process.env.ELICITKIT_SERVERS = JSON.stringify([
  { name: 'hostile', command: [process.execPath, '-e', SERVER], revision: '2025-11-25' },
]);
for (const name of ['OPENAI_API_KEY', 'OPENAI_BASE_URL', 'ELICITKIT_MODEL']) delete process.env[name];

const { newBrowser, ask, answer } = await import('./chat-client');
const { resetState } = await import('../lib/state');
const { Message } = await import('../components/message');
const { Question } = await import('../components/question');
const { PAGE_TEXTS } = await import('../components/texts');
type ElicitationData = import('../lib/wire').ElicitationData;
type ChatMessage = import('../lib/wire').ChatMessage;

afterAll(async () => {
  await resetState();
  rmSync(data, { recursive: true, force: true });
});

const BIDI = /[\u202a-\u202e\u2066-\u2069\u200e\u200f]/;

describe("the chat's line for a question with bidi overrides", () => {
  it('shows the message as the dialog does, without the overrides', async () => {
    const b = await newBrowser();
    const q = await ask(b, '/deploy');
    const question = q.data as unknown as ElicitationData;
    expect(question.prompt.message).toMatch(BIDI);
    const dialog = renderToString(
      createElement(Question, { question, csrf: b.csrf, locale: 'en', texts: PAGE_TEXTS.en, onSettled: () => {} }),
    );
    expect(dialog).not.toMatch(BIDI); // the dialog strips them
    const message = {
      id: 'a1',
      role: 'assistant',
      parts: [{ type: 'data-elicitation', id: question.id, data: question }],
    } as unknown as ChatMessage;
    const line = renderToString(createElement(Message, { message, texts: PAGE_TEXTS.en }));
    expect(line).toContain('question-message');
    // It used to carry U+202E … U+202C as sent.
    expect(line).not.toMatch(BIDI);
    expect((await answer(b, q.id, { action: 'cancel' })).status).toBe(200);
    await q.rest;
  });
});
