/**
 * A model's tool-call arguments were never checked for depth. The chat caps everything it carries
 * at MAX_JSON_DEPTH (100) — arguments typed in it are refused past it before anything is sent —
 * but a model (steered by a hostile tool result, say) that sent arguments nested 250 levels deep
 * had the call sent to the server as it was (opsdesk ran deploy_service and asked its question),
 * and left in the page's history (the AI SDK's own reading of the stream, what useChat keeps and
 * localStorage restores) a tool part deeper than the chat route reads, so every later turn of that
 * conversation was refused 400, even after a reload; nested 20,000 deep, the turn ended as
 * "Maximum call stack size exceeded" (the SDK's parse, and its JSON.stringify of each step's calls).
 * Now the model's stream is read as it comes (lib/model.ts): past the bound the arguments' text
 * stops and the call is refused unread, in a sentence. Real route handlers, the bundled opsdesk, a
 * real OpenAI-compatible endpoint on loopback.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readUIMessageStream, type UIMessage, type UIMessageChunk } from 'ai';
import { afterAll, describe, expect, it } from 'vitest';

/** The arguments the model sends next (raw JSON text: a stub cannot JSON.stringify 20,000 levels). */
let nextArguments = '{}';
let step = 0;
const model = createServer((req, res) => {
  let body = '';
  req.setEncoding('utf8');
  req.on('data', (part: string) => {
    body += part;
  });
  req.on('end', () => {
    step++;
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    const chunk = (delta: object, finish: string | null) =>
      `data: ${JSON.stringify({ id: 'c1', object: 'chat.completion.chunk', created: 0, model: 'm-1', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
    // After a tool's result (or refusal) the model stops.
    if (body.includes('"role":"tool"')) {
      res.end(`${chunk({ role: 'assistant', content: 'Stopped.' }, null)}${chunk({}, 'stop')}data: [DONE]\n\n`);
      return;
    }
    const call = [
      { index: 0, id: `call_${step}`, type: 'function', function: { name: 'deploy_service', arguments: 'ARGS' } },
    ];
    const first = chunk({ role: 'assistant', tool_calls: call }, null).replace('"ARGS"', JSON.stringify(nextArguments));
    res.end(`${first}${chunk({}, 'tool_calls')}data: [DONE]\n\n`);
  });
});
await new Promise<void>((resolve) => model.listen(0, '127.0.0.1', resolve));

const data = mkdtempSync(join(tmpdir(), 'elicitkit-web-deep-model-args-'));
process.env.ELICITKIT_DATA = data;
process.env.ELICITKIT_QUESTION_TIMEOUT_MS = '60000';
delete process.env.ELICITKIT_SERVERS;
process.env.OPENAI_BASE_URL = `http://127.0.0.1:${(model.address() as AddressInfo).port}/v1`;
process.env.OPENAI_API_KEY = 'k';
process.env.ELICITKIT_MODEL = 'm-1';

const { newBrowser, answer, postChat } = await import('./chat-client');
const { resetState } = await import('../lib/state');
const { stopOpsdesk } = await import('../lib/opsdesk');

afterAll(async () => {
  await resetState();
  await stopOpsdesk();
  await new Promise<void>((resolve) => model.close(() => resolve()));
  rmSync(data, { recursive: true, force: true });
});

type Browser = Awaited<ReturnType<typeof newBrowser>>;

const nested = (depth: number) => `{"service":"order-service","note":${'['.repeat(depth)}${']'.repeat(depth)}}`;

function post(b: Browser, messages: unknown[]): Promise<Response> {
  return postChat(
    new Request('http://localhost/api/chat', {
      method: 'POST',
      headers: { cookie: b.cookie, 'x-elicitkit-csrf': b.csrf, 'content-type': 'application/json' },
      body: JSON.stringify({ messages }),
    }),
  );
}

/**
 * Runs a turn to its end as the page reads it; a question it asks is cancelled (so the turn ends
 * either way) and recorded. Returns the stream's chunks, as text too.
 */
async function runTurn(
  b: Browser,
  messages: unknown[],
): Promise<{ chunks: UIMessageChunk[]; text: string; asked: string[] }> {
  const response = await post(b, messages);
  expect(response.status).toBe(200);
  const reader = (response.body as ReadableStream<Uint8Array>)
    .pipeThrough(new TextDecoderStream() as unknown as TransformStream<Uint8Array, string>)
    .getReader();
  let text = '';
  const asked: string[] = [];
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    text += value;
    for (const m of text.matchAll(/"type":"data-elicitation","id":"([^"]+)"/g)) {
      const id = m[1] as string;
      if (!asked.includes(id)) {
        asked.push(id);
        await answer(b, id, { action: 'cancel' });
      }
    }
  }
  const chunks = text
    .split('\n\n')
    .map((e) => e.replace(/^data: /, ''))
    .filter((e) => e && e !== '[DONE]')
    .map((e) => JSON.parse(e) as UIMessageChunk);
  return { chunks, text, asked };
}

/** The assistant message the page keeps from a turn's chunks (the AI SDK's own reading, as useChat's). */
async function pageMessage(chunks: UIMessageChunk[]): Promise<UIMessage | undefined> {
  let last: UIMessage | undefined;
  const stream = new ReadableStream<UIMessageChunk>({
    start(controller) {
      for (const c of chunks) controller.enqueue(c);
      controller.close();
    },
  });
  for await (const message of readUIMessageStream({ stream })) last = message;
  return last;
}

describe('tool-call arguments from the model nested deeper than the chat carries', () => {
  it('are not sent to the server, and do not wedge the conversation: the next turn is taken', async () => {
    const b = await newBrowser();
    nextArguments = nested(250);
    const user = { id: 'u1', role: 'user', parts: [{ type: 'text', text: 'deploy order-service' }] };
    const first = await runTurn(b, [user]);
    expect.soft(first.asked, 'the 250-deep call reached opsdesk, which asked its question').toEqual([]);
    const assistant = await pageMessage(first.chunks);
    nextArguments = '{}';
    const next = await post(b, [
      user,
      assistant,
      { id: 'u2', role: 'user', parts: [{ type: 'text', text: '/list_deployments' }] },
    ]);
    expect(
      next.status,
      `the page's own history of that turn is refused for every later turn: ${await next.clone().text()}`,
    ).toBe(200);
    await next.text();
  });

  it('20,000 levels deep do not end the turn as a stack overflow', async () => {
    const b = await newBrowser();
    nextArguments = nested(20_000);
    const { text, asked } = await runTurn(b, [{ id: 'u1', role: 'user', parts: [{ type: 'text', text: 'deploy' }] }]);
    expect(asked).toEqual([]);
    expect(text).not.toContain('Maximum call stack size exceeded');
    expect(text).toContain('arguments that are not valid: they are not JSON the chat can read');
  });
});
