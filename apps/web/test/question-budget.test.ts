/**
 * docs/web.md — "A chat is asked at most 10 questions a minute by one server: past that a question
 * is declined without being shown (`rate-limit`)". The budget is the chat's, per configured server:
 * a stdio server that spends its ten questions and exits is reconnected on the chat's next use, and
 * a switch of identity reconnects too — neither may buy ten more. Real chat route, a real stdio MCP
 * server (raw JSON-RPC lines).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { rawServer } from './raw-server';

// Each call asks ten questions at once and replies once all are answered; after `restarts` the
// process exits. Each process calls itself by a new version, as a server that renames itself on a
// restart would, so a budget kept per server identity would not hold either.
const SERVER = rawServer({
  serverInfo: { name: 'chatty', version: 'VERSION' },
  tools: ['restarts', 'steady'].map((name) => ({ name, inputSchema: { type: 'object', properties: {} } })),
  call: `(m, ask, reply) => {
    const asks = [];
    for (let i = 1; i <= 10; i++)
      asks.push(ask({ mode: 'form', message: 'Question ' + i,
        requestedSchema: { type: 'object', properties: { ok: { type: 'boolean', title: 'OK?' } } } }));
    Promise.all(asks).then(() => {
      reply({ content: [{ type: 'text', text: 'asked' }] });
      if (m.params.name === 'restarts') setImmediate(() => process.exit(0));
    });
  }`,
}).replace('"VERSION"', 'String(process.pid)');

const data = mkdtempSync(join(tmpdir(), 'elicitkit-question-budget-'));
process.env.ELICITKIT_DATA = data;
process.env.ELICITKIT_SERVERS = JSON.stringify([
  { name: 'chatty-server', command: [process.execPath, '-e', SERVER], revision: '2025-11-25' },
]);
for (const name of ['OPENAI_API_KEY', 'OPENAI_BASE_URL', 'ELICITKIT_MODEL']) delete process.env[name];

const { newBrowser, answer, postChat } = await import('./chat-client');
const { resetState, switchChatUser, state } = await import('../lib/state');
type Browser = Awaited<ReturnType<typeof newBrowser>>;

afterAll(async () => {
  await resetState();
  rmSync(data, { recursive: true, force: true });
});

/** Runs a turn to its end, cancelling every question the page is shown; returns its chunks. */
async function turnAnsweringAll(b: Browser, text: string): Promise<Record<string, unknown>[]> {
  const response = await postChat(
    new Request('http://localhost/api/chat', {
      method: 'POST',
      headers: { cookie: b.cookie, 'x-elicitkit-csrf': b.csrf, 'content-type': 'application/json' },
      body: JSON.stringify({ messages: [{ id: 'm1', role: 'user', parts: [{ type: 'text', text }] }] }),
    }),
  );
  expect(response.status).toBe(200);
  const reader = (response.body as ReadableStream<Uint8Array>)
    .pipeThrough(new TextDecoderStream() as unknown as TransformStream<Uint8Array, string>)
    .getReader();
  const chunks: Record<string, unknown>[] = [];
  let buffer = '';
  for (;;) {
    const read = await reader.read();
    if (read.done) return chunks;
    buffer += read.value;
    for (let cut = buffer.indexOf('\n\n'); cut !== -1; cut = buffer.indexOf('\n\n')) {
      const event = buffer.slice(0, cut).replace(/^data: /, '');
      buffer = buffer.slice(cut + 2);
      if (event === '[DONE]') continue;
      const chunk = JSON.parse(event) as Record<string, unknown>;
      chunks.push(chunk);
      const d = chunk.data as { id?: string; status?: string } | undefined;
      if (chunk.type === 'data-elicitation' && d?.status === 'open')
        expect((await answer(b, String(d.id), { action: 'cancel' })).status).toBe(200);
    }
  }
}

const shown = (chunks: Record<string, unknown>[]) =>
  chunks.filter((c) => c.type === 'data-elicitation' && (c.data as { status: string }).status === 'open').length;
const refused = (chunks: Record<string, unknown>[]) => chunks.filter((c) => c.type === 'data-refusal');
const chatOf = (b: Browser) => state().local.get(b.cookie.replace(/^ek_chat=/, ''));

describe("the chat's question budget per server", () => {
  it('still holds after the server restarts (as a new version): the 11th question within the minute is not shown', async () => {
    const b = await newBrowser();
    expect(shown(await turnAnsweringAll(b, '/restarts'))).toBe(10);
    // The process exits; the chat forgets that connection and the next call starts a new process.
    await vi.waitFor(() => expect(chatOf(b)?.connections.size).toBe(0));
    const second = await turnAnsweringAll(b, '/restarts');
    expect(shown(second), 'questions shown in the same minute after the server restarted').toBe(0);
    expect(refused(second)).toHaveLength(10);
    expect(refused(second)[0]).toMatchObject({
      data: { server: 'chatty-server', reason: 'rate-limit', limit: { max: 10, perMs: 60_000 } },
    });
  });

  it('still holds after the chat switches identity (its connections reopen)', async () => {
    const b = await newBrowser();
    expect(shown(await turnAnsweringAll(b, '/steady')), "another chat's spent budget is not this one's").toBe(10);
    expect(chatOf(b)?.connections.size).toBe(1);
    const old = chatOf(b);
    if (!old) throw new Error('no chat');
    // A new chat for the new identity: the old one's connections are closed, its budget carried.
    const next = await switchChatUser(old, 'bob');
    if (!next) throw new Error('not switched');
    expect(old.connections.size).toBe(0);
    const bob = { ...b, cookie: `ek_chat=${next.id}`, csrf: next.csrf };
    expect(chatOf(bob)?.connections.size).toBe(0);
    const second = await turnAnsweringAll(bob, '/steady');
    expect(shown(second), 'questions shown in the same minute after the identity switch').toBe(0);
    expect(refused(second)).toHaveLength(10);
  });
});
