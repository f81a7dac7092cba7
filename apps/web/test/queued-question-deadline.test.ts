/**
 * Two tool calls of one model turn on one server, each asking. A connection's questions are shown
 * one at a time, and opsdesk times each from when it asked (the page's time + 30 s). Was: the page
 * gave the second question its whole time from when it was shown, once the first was answered —
 * with the first open 30 s or more, the person answered the second within the time the page showed,
 * was told it was taken ("answered accept"), and the call had already ended "no answer arrived
 * within …": their answer went nowhere. The page now counts each question's time from when it
 * arrived (`timeoutFrom: 'received'`): the second has what is left of it. Real route handlers, the
 * bundled opsdesk, a real OpenAI-compatible endpoint whose first step calls deploy_service twice.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { parallelModel } from './scripted-model';

const model = await parallelModel([
  { name: 'deploy_service', arguments: { service: 'order-service' } },
  { name: 'deploy_service', arguments: { service: 'user-service' } },
]);
const data = mkdtempSync(join(tmpdir(), 'elicitkit-web-queued-deadline-'));
process.env.ELICITKIT_DATA = data;
process.env.ELICITKIT_QUESTION_TIMEOUT_MS = '8000';
delete process.env.ELICITKIT_SERVERS;
process.env.OPENAI_BASE_URL = model.baseURL;
process.env.OPENAI_API_KEY = 'k';
process.env.ELICITKIT_MODEL = 'm-1';

const { newBrowser, answer, postChat } = await import('./chat-client');
const { resetState, state } = await import('../lib/state');
const { stopOpsdesk } = await import('../lib/opsdesk');

afterAll(async () => {
  await resetState();
  await stopOpsdesk();
  await model.close();
  rmSync(data, { recursive: true, force: true });
});

type Chunk = {
  type: string;
  toolCallId?: string;
  data?: { id: string; status?: string };
  output?: { status?: string };
};

it('the question shown second, once the first was answered 3 s on, has what is left of its 8 s; both calls deploy', async () => {
  const b = await newBrowser();
  const response = await postChat(
    new Request('http://localhost/api/chat', {
      method: 'POST',
      headers: { cookie: b.cookie, 'x-elicitkit-csrf': b.csrf, 'content-type': 'application/json' },
      body: JSON.stringify({ messages: [{ id: 'm1', role: 'user', parts: [{ type: 'text', text: 'deploy both' }] }] }),
    }),
  );
  const reader = (response.body as ReadableStream<Uint8Array>)
    .pipeThrough(new TextDecoderStream() as unknown as TransformStream<Uint8Array, string>)
    .getReader();
  const opened: string[] = [];
  const outputs: string[] = [];
  const spans: number[] = [];
  let buffer = '';
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    buffer += value;
    for (let end = buffer.indexOf('\n\n'); end !== -1; end = buffer.indexOf('\n\n')) {
      const json = buffer.slice(0, end).replace(/^data: /, '');
      buffer = buffer.slice(end + 2);
      if (json === '[DONE]') continue;
      const chunk = JSON.parse(json) as Chunk;
      if (chunk.type === 'tool-output-available') outputs.push(String(chunk.output?.status));
      if (chunk.type !== 'data-elicitation' || chunk.data?.status !== 'open' || opened.includes(chunk.data.id))
        continue;
      const id = chunk.data.id;
      opened.push(id);
      const entry = await state().registry.get(id);
      spans.push((entry?.expiresAt ?? 0) - (entry?.openedAt ?? 0));
      // Both calls asked at once: the person takes 3 s over the first question, then answers the second at once.
      if (opened.length === 1) await new Promise((resolve) => setTimeout(resolve, 3_000));
      expect((await answer(b, id, { action: 'accept', content: { env: 'staging' } })).status).toBe(200);
    }
  }
  expect(opened).toHaveLength(2);
  // The first: about its whole 8 s; the second: at most 5 s of them left (its whole 8 s before).
  expect(spans[0]).toBeGreaterThan(6_000);
  expect(spans[1]).toBeLessThanOrEqual(5_000);
  expect(outputs).toEqual(['done', 'done']);
}, 60_000);
