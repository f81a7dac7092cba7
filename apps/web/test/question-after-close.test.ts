/**
 * Closing a chat withdraws its open questions, then gives their tool calls a moment to end before
 * its connections close. A server may ask again in that moment (its question came back `cancel`,
 * so it asks once more): the chat has ended, so that question must not be shown — every answer to
 * it is "No session: load the page first." — but answered `cancel` at once. Real route handlers, a real stdio MCP
 * server (raw JSON-RPC lines) that asks again whatever the first answer was.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { beacon } from './browser';
import { rawServer } from './raw-server';

const FORM = { type: 'object', properties: { ok: { type: 'boolean', title: 'Go ahead' } } };
const SERVER = rawServer({
  tools: [{ name: 'deploy', inputSchema: { type: 'object', properties: {} } }],
  call: `(m, ask, reply) => ask({ mode: 'form', message: 'Deploy order-service to staging? Tick to go ahead.', requestedSchema: ${JSON.stringify(FORM)} })
    .then((first) => ask({ mode: 'form', message: 'Are you sure? Deploy order-service to staging now.', requestedSchema: ${JSON.stringify(FORM)} })
      .then((second) => reply({ content: [{ type: 'text', text: 'first ' + first.result.action + ', second ' + second.result.action }] })))`,
});

const data = mkdtempSync(join(tmpdir(), 'elicitkit-question-after-close-'));
process.env.ELICITKIT_DATA = data;
process.env.ELICITKIT_SERVERS = JSON.stringify([
  { name: 'ops', command: [process.execPath, '-e', SERVER], revision: '2025-11-25' },
]);
for (const name of ['OPENAI_API_KEY', 'OPENAI_BASE_URL', 'ELICITKIT_MODEL']) delete process.env[name];

const { newBrowser, ask, getChatInfo, postChat, postAnswer } = await import('./chat-client');
const { POST: postClose } = await import('../app/api/chat/close/route');
const { resetState } = await import('../lib/state');

afterAll(async () => {
  await resetState();
  rmSync(data, { recursive: true, force: true });
});

describe('a question asked while its chat closes', () => {
  it('is not shown, and the server is answered cancel', async () => {
    const b = await newBrowser();
    const q = await ask(b, '/deploy');
    expect((await beacon({ getChatInfo, postChat, postAnswer, postClose }, b)).status).toBe(204);
    const chunks = await q.rest;
    const shown = chunks.filter((c) => c.type === 'data-elicitation').map((c) => String(c.id));
    expect(new Set(shown), 'a question was shown after the chat ended').toEqual(new Set([q.id]));
    expect(chunks.find((c) => c.type === 'tool-output-available')).toMatchObject({
      output: { text: 'first cancel, second cancel' },
    });
  });
});
