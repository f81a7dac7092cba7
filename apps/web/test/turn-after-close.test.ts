/**
 * A chat closed while a model turn runs in it — its page's beacon arriving before the server sees
 * the turn's request go (or a proxy keeping that request open), or another replica's close —
 * withdraws its open question. The turn's stream may still run, and the model goes on to its next
 * step: a tool it calls then must not open a fresh MCP connection for the ended chat (nothing
 * would ever close it) nor show a question nobody may answer (every answer is "No session: load the page first."). Real
 * route handlers, the bundled opsdesk, a real OpenAI-compatible endpoint
 * (`scripted-model.ts`) that calls deploy_service at every step until it has called it twice.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { beacon } from './browser';
import { scriptedModel } from './scripted-model';

const model = await scriptedModel({ name: 'deploy_service', arguments: { service: 'order-service' } });

const data = mkdtempSync(join(tmpdir(), 'elicitkit-web-turn-after-close-'));
process.env.ELICITKIT_DATA = data;
process.env.ELICITKIT_QUESTION_TIMEOUT_MS = '60000';
delete process.env.ELICITKIT_SERVERS;
process.env.OPENAI_BASE_URL = model.baseURL;
process.env.OPENAI_API_KEY = 'k';
process.env.ELICITKIT_MODEL = 'm-1';

const { newBrowser, answer, getChatInfo, postChat, postAnswer } = await import('./chat-client');
const { POST: postClose } = await import('../app/api/chat/close/route');
const { chatOf, resetState, state } = await import('../lib/state');
const { stopOpsdesk } = await import('../lib/opsdesk');

afterAll(async () => {
  await resetState();
  await stopOpsdesk();
  await model.close();
  rmSync(data, { recursive: true, force: true });
});

/** The UI stream's chunks, one at a time; undefined once it ends. */
function sse(response: Response): () => Promise<Record<string, unknown> | undefined> {
  const reader = (response.body as ReadableStream<Uint8Array>)
    .pipeThrough(new TextDecoderStream() as unknown as TransformStream<Uint8Array, string>)
    .getReader();
  let buffer = '';
  return async () => {
    for (;;) {
      const end = buffer.indexOf('\n\n');
      if (end !== -1) {
        const json = buffer.slice(0, end).replace(/^data: /, '');
        buffer = buffer.slice(end + 2);
        return json === '[DONE]' ? undefined : (JSON.parse(json) as Record<string, unknown>);
      }
      const { done, value } = await reader.read();
      if (done) return undefined;
      buffer += value;
    }
  };
}

const openQuestion = (c: Record<string, unknown>) =>
  c.type === 'data-elicitation' && (c.data as { status?: string }).status === 'open'
    ? String((c.data as { id: string }).id)
    : undefined;

describe('a model turn still running when its chat is closed', () => {
  it('opens no connection and shows no question for the ended chat', async () => {
    const b = await newBrowser();
    const chat = await chatOf(new Request('http://localhost/', { headers: { cookie: b.cookie } }));
    if (!chat) throw new Error('no chat');
    const response = await postChat(
      new Request('http://localhost/api/chat', {
        method: 'POST',
        headers: { cookie: b.cookie, 'x-elicitkit-csrf': b.csrf, 'content-type': 'application/json' },
        body: JSON.stringify({ messages: [{ id: 'm1', role: 'user', parts: [{ type: 'text', text: 'deploy' }] }] }),
      }),
    );
    const next = sse(response);
    let first: string | undefined;
    while (!first) {
      const c = await next();
      if (!c) throw new Error('the turn ended without a question');
      first = openQuestion(c);
    }
    // The page's beacon ends the chat and withdraws the question; the turn's request goes on.
    expect((await beacon({ getChatInfo, postChat, postAnswer, postClose }, b)).status).toBe(204);
    // The turn goes on to the model's next step, which calls the tool again.
    const after: Record<string, unknown>[] = [];
    for (let c = await next(); c; c = await next()) {
      after.push(c);
      const late = openQuestion(c);
      if (late === undefined) continue;
      const refused = await answer(b, late, { action: 'accept', content: { env: 'dev' } });
      await state().registry.withdraw(late);
      while (await next());
      expect.fail(`a question was shown for the ended chat; its answer got ${refused.status}`);
    }
    expect(chat.connections.size, 'an MCP connection was opened for the ended chat').toBe(0);
    const errors = after.filter((c) => c.type === 'tool-output-error');
    expect(errors).toEqual([expect.objectContaining({ errorText: expect.stringContaining('This chat has ended') })]);
  });
});
