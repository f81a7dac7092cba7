/**
 * A 2025-11-25 server whose one call asks two questions in turn. The page shows each with the
 * chat's whole question time (10 minutes), but the chat's MCP request for the call timed out at
 * question time + 60 s counted from the call's start, waiting for the person included: a person
 * who took 9 minutes on the first question had 2 minutes, not 10, for the second — it was withdrawn
 * under them (410), and the call ended as a timeout after they had answered the first. The call's
 * deadline now counts the server's time only (`serverDeadline`, as the CLI's `--timeout-ms`), and
 * a server that keeps the call past it is still told as a timeout. Real chat and answer routes, a
 * real stdio MCP server (raw JSON-RPC lines); the clock is Vitest's (timers and Date only).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { rawServer } from './raw-server';

const FORM = { type: 'object', properties: { ok: { type: 'boolean', title: 'Go ahead' } }, required: ['ok'] };
const SERVER = rawServer({
  tools: [
    { name: 'two_steps', inputSchema: { type: 'object', properties: {} } },
    { name: 'silent', inputSchema: { type: 'object', properties: {} } },
  ],
  call: `async (m, ask, reply) => {
    if (m.params.name === 'silent') return;
    const first = await ask({ mode: 'form', message: 'Step one?', requestedSchema: ${JSON.stringify(FORM)} });
    const second = await ask({ mode: 'form', message: 'Step two?', requestedSchema: ${JSON.stringify(FORM)} });
    reply({ content: [{ type: 'text', text: 'one ' + JSON.stringify(first.result) + ' two ' + JSON.stringify(second.result) }] });
  }`,
});

const data = mkdtempSync(join(tmpdir(), 'elicitkit-audit-two-steps-'));
process.env.ELICITKIT_DATA = data;
delete process.env.ELICITKIT_QUESTION_TIMEOUT_MS; // the default: 10 minutes
process.env.ELICITKIT_SERVERS = JSON.stringify([
  { name: 'ops', command: [process.execPath, '-e', SERVER], revision: '2025-11-25' },
]);
for (const name of ['OPENAI_API_KEY', 'OPENAI_BASE_URL', 'ELICITKIT_MODEL']) delete process.env[name];

const { newBrowser, postChat, answer } = await import('./chat-client');
const { resetState, state } = await import('../lib/state');

afterAll(async () => {
  vi.useRealTimers();
  await resetState();
  rmSync(data, { recursive: true, force: true });
});

const MINUTE = 60_000;

/** A new browser's turn `text` (message `id`) sent to the chat route, on Vitest's clock (timers and Date). */
async function turnOnFakeClock(id: string, text: string) {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
  const b = await newBrowser();
  const response = await postChat(
    new Request('http://localhost/api/chat', {
      method: 'POST',
      headers: { cookie: b.cookie, 'x-elicitkit-csrf': b.csrf, 'content-type': 'application/json' },
      body: JSON.stringify({ messages: [{ id, role: 'user', parts: [{ type: 'text', text }] }] }),
    }),
  );
  expect(response.status).toBe(200);
  return { b, response };
}

describe('a call that asks two questions in turn', () => {
  it('leaves the second its whole time: the call does not time out while the person answers', async () => {
    const { b, response } = await turnOnFakeClock('m1', '/two_steps');
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    const decoder = new TextDecoder();
    const chunks: Record<string, unknown>[] = [];
    let buffer = '';
    let ended = false;
    const pump = (async () => {
      for (;;) {
        const read = await reader.read();
        if (read.done) break;
        buffer += decoder.decode(read.value, { stream: true });
        let at = buffer.indexOf('\n\n');
        while (at !== -1) {
          const json = buffer.slice(0, at).replace(/^data: /, '');
          buffer = buffer.slice(at + 2);
          if (json !== '[DONE]') chunks.push(JSON.parse(json) as Record<string, unknown>);
          at = buffer.indexOf('\n\n');
        }
      }
      ended = true;
    })();
    const openQuestion = async (message: string) => {
      await vi.waitFor(
        () => {
          const found = chunks.find(
            (c) =>
              c.type === 'data-elicitation' &&
              (c.data as { status: string; prompt: { message: string } }).status === 'open' &&
              (c.data as { prompt: { message: string } }).prompt.message === message,
          );
          if (!found) throw new Error(`no open "${message}" yet: ${JSON.stringify(chunks)}`);
          return found;
        },
        { timeout: 20_000, interval: 20 },
      );
      const found = chunks.find(
        (c) => c.type === 'data-elicitation' && (c.data as { prompt: { message: string } }).prompt.message === message,
      );
      return found?.data as { id: string; expiresAt: number };
    };

    const one = await openQuestion('Step one?');
    // The person reads, checks, and answers within the question's time.
    await vi.advanceTimersByTimeAsync(9 * MINUTE);
    expect((await answer(b, one.id, { action: 'accept', content: { ok: true }, applyDefaults: false })).status).toBe(
      200,
    );
    const two = await openQuestion('Step two?');
    expect(two.expiresAt - Date.now(), 'the second question is shown with 10 minutes').toBeGreaterThan(9.9 * MINUTE);
    // Three minutes into the second question's ten.
    await vi.advanceTimersByTimeAsync(3 * MINUTE);
    await new Promise((resolve) => setImmediate(resolve));
    const settled = (await state().registry.get(two.id))?.settlement;
    expect(settled, 'the second question was taken away with 7 of its 10 minutes left').toBeUndefined();
    const sent = await answer(b, two.id, { action: 'accept', content: { ok: true }, applyDefaults: false });
    expect(sent.status, 'the person answered within the time the page showed').toBe(200);
    await vi.waitFor(() => expect(ended).toBe(true), { timeout: 20_000 });
    await pump;
    const output = chunks.find((c) => c.type === 'tool-output-available') as { output?: { text?: string } } | undefined;
    expect(output?.output?.text).toContain('two {"action":"accept"');
  }, 60_000);

  it('a server that keeps the call past its time, asking nothing, is still timed out, and said so', async () => {
    const { response } = await turnOnFakeClock('m2', '/silent');
    const text = (async () => new Response(response.body).text())();
    // Connected, and the call sent (the connection's own deadline is another matter).
    await vi.waitFor(
      () => {
        if (![...state().local.values()].some((chat) => chat.calls.size > 0)) throw new Error('no call running yet');
      },
      { timeout: 20_000, interval: 20 },
    );
    // Question time (10 minutes) and 60 s, of the server's own.
    await vi.advanceTimersByTimeAsync(11 * MINUTE + 1_000);
    vi.useRealTimers();
    const stream = await text;
    expect(stream).toContain('tool-output');
    expect(stream).toContain('"type":"tool-output-error"');
    expect(stream).toContain('Request timed out');
  }, 60_000);
});
