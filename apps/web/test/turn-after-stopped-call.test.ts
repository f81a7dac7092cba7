// @vitest-environment jsdom
/**
 * A model turn stopped (the Stop button) or cut (the connection dropped) while its tool call runs —
 * typically while the call's question is open — leaves that call in the page's conversation as a
 * `dynamic-tool` part in state `input-available` (shown "Stopped: no result."): a call with no
 * result, sent with every later message. The AI SDK refused such a history
 * (`MissingToolResultsError`) before any endpoint was asked, and OpenAI-style endpoints refuse it
 * too, so every later turn of the tab failed with "check OPENAI_BASE_URL…" until a reload. Now the
 * route tells the model of any call shown without its result as interrupted (one whose input was
 * still arriving never ran, and is left out). The page's own hook (`useChatHistory`) in jsdom, its
 * fetch answered by the real route handler (an abort errors the body, as fetch does), the bundled
 * opsdesk, and an OpenAI-compatible stub that, like OpenAI, refuses a tool call left without its
 * result.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { act, cleanup, waitFor } from '@testing-library/react';
import { afterAll, expect, it, vi } from 'vitest';

interface WireMessage {
  role: string;
  content?: unknown;
  tool_calls?: { id: string }[];
  tool_call_id?: string;
}

/** Every request the model endpoint was sent. */
const requests: WireMessage[][] = [];
const model = createServer((req, res) => {
  let body = '';
  req.setEncoding('utf8');
  req.on('data', (part: string) => {
    body += part;
  });
  req.on('end', () => {
    const messages = (JSON.parse(body) as { messages: WireMessage[] }).messages;
    requests.push(messages);
    // As OpenAI's chat completions: every tool call must be answered by a tool message.
    const answered = new Set(messages.filter((m) => m.role === 'tool').map((m) => m.tool_call_id));
    const missing = messages
      .flatMap((m) => m.tool_calls ?? [])
      .map((c) => c.id)
      .filter((id) => !answered.has(id));
    if (missing.length > 0) {
      res.writeHead(400, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          error: {
            message: `An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: ${missing.join(', ')}`,
            type: 'invalid_request_error',
            param: 'messages',
            code: null,
          },
        }),
      );
      return;
    }
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    const chunk = (delta: object, finish: string | null) =>
      `data: ${JSON.stringify({ id: 'c1', object: 'chat.completion.chunk', created: 0, model: 'm-1', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
    const last = messages.at(-1);
    if (last?.role === 'user' && JSON.stringify(last.content).includes('deploy')) {
      const call = [
        {
          index: 0,
          id: `call_${requests.length}`,
          type: 'function',
          function: { name: 'deploy_service', arguments: '{"service":"order-service"}' },
        },
      ];
      res.end(`${chunk({ role: 'assistant', tool_calls: call }, null)}${chunk({}, 'tool_calls')}data: [DONE]\n\n`);
      return;
    }
    res.end(`${chunk({ role: 'assistant', content: 'Hi.' }, null)}${chunk({}, 'stop')}data: [DONE]\n\n`);
  });
});
await new Promise<void>((resolve) => model.listen(0, '127.0.0.1', resolve));

const data = mkdtempSync(join(tmpdir(), 'elicitkit-web-stopped-call-'));
process.env.ELICITKIT_DATA = data;
process.env.ELICITKIT_QUESTION_TIMEOUT_MS = '60000';
delete process.env.ELICITKIT_SERVERS;
process.env.OPENAI_BASE_URL = `http://127.0.0.1:${(model.address() as AddressInfo).port}/v1`;
process.env.OPENAI_API_KEY = 'k';
process.env.ELICITKIT_MODEL = 'm-1';

const { newBrowser, pageFetch, postChat } = await import('./chat-client');
const { resetState } = await import('../lib/state');
const { stopOpsdesk } = await import('../lib/opsdesk');
const { renderChatHook } = await import('./chat-hook');

afterAll(async () => {
  cleanup();
  vi.unstubAllGlobals();
  await resetState();
  await stopOpsdesk();
  await new Promise<void>((resolve) => model.close(() => resolve()));
  rmSync(data, { recursive: true, force: true });
});

it('after a turn stopped while its tool call waited on a question, the next messages get the model’s reply', async () => {
  const b = await newBrowser();
  let questionShown = false;
  const realFetch = globalThis.fetch;
  // The page's fetch: its API requests go to the real route handler with the browser's cookie; an
  // abort errors the body the page reads, as fetch does (the model endpoint is fetched for real).
  vi.stubGlobal(
    'fetch',
    pageFetch(b, {
      fallback: realFetch,
      onChunk: (value) => {
        if (new TextDecoder().decode(value).includes('"data-elicitation"')) questionShown = true;
      },
    }),
  );

  const chat = renderChatHook(b.csrf);
  await waitFor(() => expect(chat()?.chatId).toBeTruthy());

  // The model calls deploy_service, which asks its question; the person stops the turn.
  void act(async () => {
    await chat()?.sendMessage({ text: 'deploy order-service' });
  });
  await waitFor(() => expect(questionShown).toBe(true), { timeout: 20_000 });
  await act(async () => {
    await chat()?.stop();
  });
  await waitFor(() => expect(chat()?.busy).toBe(false), { timeout: 20_000 });

  for (const text of ['hello', 'hello again']) {
    await act(async () => {
      await chat()?.sendMessage({ text });
    });
    await waitFor(() => expect(chat()?.busy).toBe(false), { timeout: 20_000 });
    expect(chat()?.error?.message, `"${text}" after the stopped turn failed`).toBeUndefined();
    const reply = chat()?.messages.at(-1);
    expect(reply?.role).toBe('assistant');
    expect(JSON.stringify(reply?.parts)).toContain('Hi.');
  }
  // The model was told of it: the call answered by a tool message.
  const told = requests.at(-1)?.find((m) => m.role === 'tool');
  expect(JSON.stringify(told?.content)).toContain('interrupted before its result came');
}, 60_000);

it('a history posted with calls left without their results: the model hears of the started one as interrupted, not of the other', async () => {
  const b = await newBrowser();
  const call = (toolCallId: string, state: string) => ({
    type: 'dynamic-tool',
    toolName: 'deploy_service',
    toolCallId,
    state,
    input: { service: 'order-service' },
  });
  const messages = [
    { id: 'u1', role: 'user', parts: [{ type: 'text', text: 'deploy order-service' }] },
    {
      id: 'a1',
      role: 'assistant',
      parts: [call('call_started', 'input-available'), call('call_streaming', 'input-streaming')],
    },
    { id: 'u2', role: 'user', parts: [{ type: 'text', text: 'hello' }] },
  ];
  const before = requests.length;
  const response = await postChat(
    new Request('http://localhost/api/chat', {
      method: 'POST',
      headers: { cookie: b.cookie, 'x-elicitkit-csrf': b.csrf, 'content-type': 'application/json' },
      body: JSON.stringify({ messages }),
    }),
  );
  expect(response.status).toBe(200);
  expect(await response.text()).toContain('Hi.');
  expect(requests.length).toBe(before + 1);
  const sent = requests.at(-1) ?? [];
  expect(sent.flatMap((m) => m.tool_calls ?? []).map((c) => c.id)).toEqual(['call_started']);
  const told = sent.find((m) => m.role === 'tool');
  expect(told?.tool_call_id).toBe('call_started');
  expect(JSON.stringify(told?.content)).toContain('interrupted before its result came');
}, 60_000);
