/**
 * Two tool calls of one model turn on one server, each asking: a question the person lets expire
 * and one they cancel. The call whose last question expired reaches the model as `timeout` ("you
 * may offer to run it again"); the one whose question the person cancelled stays `cancelled`.
 * Both questions arrive at once and each one's time runs from then: with the first left to expire,
 * the second has none left when its turn comes, and both time out. Each question is held by both calls (a 2025-11-25 request says nothing of which
 * call it serves), and "any expired question of the chat since the call began" once told the
 * cancelled call it had timed out. Real route handlers, the bundled opsdesk, a real
 * OpenAI-compatible endpoint whose first step calls deploy_service twice at once.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parallelModel } from './scripted-model';

const model = await parallelModel([
  { name: 'deploy_service', arguments: { service: 'order-service' } },
  { name: 'deploy_service', arguments: { service: 'user-service' } },
]);
const data = mkdtempSync(join(tmpdir(), 'elicitkit-web-timeout-parallel-'));
process.env.ELICITKIT_DATA = data;
process.env.ELICITKIT_QUESTION_TIMEOUT_MS = '1500';
delete process.env.ELICITKIT_SERVERS;
process.env.OPENAI_BASE_URL = model.baseURL;
process.env.OPENAI_API_KEY = 'k';
process.env.ELICITKIT_MODEL = 'm-1';

const { newBrowser, answer, postChat } = await import('./chat-client');
const { resetState } = await import('../lib/state');
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
  data?: { id: string; status?: string; prompt?: { message: string } };
  output?: { status?: string; text?: string };
};

/**
 * One turn: each question as it opens is either left to expire or cancelled by the person
 * (`cancel(n)`: whether the n-th question, from 0, is cancelled); the tool results by call id. A
 * second question is cancelled once the first call has its result, as a person takes a moment to
 * read it (cancelled at once, it may settle before that result arrives: whose it is, no 2025
 * request says).
 */
async function turnWith(cancel: (n: number) => boolean, last: Map<string, string | undefined> = new Map()) {
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
  const outputs = new Map<string, { status?: string; text?: string }>();
  const opened: string[] = [];
  let toCancel: string | undefined;
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
      if (chunk.type === 'data-elicitation' && chunk.data?.status === 'open' && !opened.includes(chunk.data.id)) {
        opened.push(chunk.data.id);
        if (cancel(opened.length - 1)) toCancel = chunk.data.id;
      }
      // Each question's last state, by id: one whose time ran out while it waited may never read open.
      if (chunk.type === 'data-elicitation' && chunk.data) last.set(chunk.data.id, chunk.data.status);
      if (chunk.type === 'tool-output-available' && chunk.toolCallId && chunk.output)
        outputs.set(chunk.toolCallId, chunk.output);
      if (toCancel !== undefined && (opened.length === 1 || outputs.size > 0)) {
        const res = await answer(b, toCancel, { action: 'cancel' });
        expect(res.status).toBe(200);
        toCancel = undefined;
      }
    }
  }
  expect(new Set([...opened, ...last.keys()]).size).toBe(2);
  return outputs;
}

describe('two calls of one turn, a question left to expire and one cancelled', () => {
  // Both questions arrived at once, and each one's time runs from then (the server's runs from
  // when it asked): the second, its turn come once the first expired, has none left. It is shown
  // expired — no answer can be taken for it — and both calls time out, neither told the person
  // cancelled. (Was: shown with its whole time again, and cancelled here by the person.)
  it('the first left to expire: the second, asked with it, is shown expired; both time out', async () => {
    const last = new Map<string, string | undefined>();
    const outputs = await turnWith(() => false, last);
    expect([...outputs.values()].map((o) => o.status)).toEqual(['timeout', 'timeout']);
    expect([...last.values()]).toEqual(['expired', 'expired']);
  }, 30_000);

  it('the first cancelled, the second left to expire: the person’s cancel, then timeout', async () => {
    const outputs = await turnWith((n) => n === 0);
    expect([...outputs.values()].map((o) => o.status).sort()).toEqual(['cancelled', 'timeout']);
  }, 30_000);
});
