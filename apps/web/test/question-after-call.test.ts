/**
 * A question whose tool call has ended can no longer be answered (docs/web.md: "410 also when the
 * question was withdrawn because its tool call or its chat ended"). A 2025-11-25 server may leave
 * an `elicitation/create` outstanding when its call ends — a second question asked alongside the
 * first, a call that failed or was stopped — and the person must not be told their confirmation
 * was taken for a call that is over. Real chat route, a real stdio MCP server (raw JSON-RPC lines).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { ask as askThrough } from './browser';
import { rawServer } from './raw-server';

const FORM = (message: string) =>
  `{ mode: 'form', message: ${JSON.stringify(message)}, requestedSchema: { type: 'object', properties: { confirmed: { type: 'boolean', title: 'I confirm' } }, required: ['confirmed'] } }`;

// `deploy` and `fail` ask two questions at once (the client shows them one after the other) and
// end as soon as the first is answered — with a result, or with a JSON-RPC error — leaving the
// second asked. `hang` asks one and never ends by itself.
const SERVER = rawServer({
  tools: ['deploy', 'fail', 'hang'].map((name) => ({ name, inputSchema: { type: 'object', properties: {} } })),
  call: `(m, ask, reply) => {
    if (m.params.name === 'hang') return ask(${FORM('Wait forever?')});
    const end = m.params.name === 'fail'
      ? () => send({ jsonrpc: '2.0', id: m.id, error: { code: -32603, message: 'The deploy broke.' } })
      : () => reply({ content: [{ type: 'text', text: 'The call is over.' }] });
    ask(${FORM('Deploy to staging?')}).then(end);
    ask(${FORM('Deploy to PRODUCTION?')});
  }`,
});

const data = mkdtempSync(join(tmpdir(), 'elicitkit-after-call-'));
process.env.ELICITKIT_DATA = data;
process.env.ELICITKIT_SERVERS = JSON.stringify([
  { name: 'ops', command: [process.execPath, '-e', SERVER], revision: '2025-11-25' },
]);
for (const name of ['OPENAI_API_KEY', 'OPENAI_BASE_URL', 'ELICITKIT_MODEL']) delete process.env[name];

const { newBrowser, ask, answer, postChat } = await import('./chat-client');
const { resetState, state } = await import('../lib/state');
const { claimQuestion, endCall, startCall } = await import('../lib/call-questions');
type Chat = import('../lib/state').Chat;

afterAll(async () => {
  await resetState();
  rmSync(data, { recursive: true, force: true });
});

type Part = { id: string; data: { status: string; prompt: { message: string } } };

/** The last state the stream gave the question asked with `message`. */
function lastPart(chunks: Record<string, unknown>[], message: string): Part | undefined {
  const parts = chunks.filter((c) => c.type === 'data-elicitation') as unknown as Part[];
  const id = parts.find((p) => p.data.prompt.message === message)?.id;
  return parts.filter((p) => p.id === id).at(-1);
}

describe('a question left open when its tool call ended', () => {
  it('is withdrawn with a call that returned: the page is told, and an answer is refused with 410', async () => {
    const b = await newBrowser();
    const first = await ask(b, '/deploy');
    expect(first.data).toMatchObject({ prompt: { message: 'Deploy to staging?' } });
    expect((await answer(b, first.id, { action: 'cancel' })).status).toBe(200);
    const chunks = await first.rest; // the turn has ended: its call returned
    expect(chunks.find((c) => c.type === 'tool-output-available')).toMatchObject({
      output: { text: 'The call is over.' },
    });
    const second = lastPart(chunks, 'Deploy to PRODUCTION?');
    expect(second, 'the second question was never shown').toBeDefined();
    expect(second?.data.status, 'the page is left showing the question as open').toBe('withdrawn');
    expect((await state().registry.get(second?.id ?? ''))?.settlement).toEqual({ reason: 'withdrawn' });
    const late = await answer(b, second?.id ?? '', { action: 'accept', content: { confirmed: true } });
    expect(late.status, 'a confirmation for a call that has ended was taken').toBe(410);
  });

  it('is withdrawn with a call that failed', async () => {
    const b = await newBrowser();
    const first = await ask(b, '/fail');
    expect((await answer(b, first.id, { action: 'decline' })).status).toBe(200);
    const chunks = await first.rest;
    expect(chunks.find((c) => c.type === 'tool-output-error')).toMatchObject({ errorText: 'The deploy broke.' });
    const second = lastPart(chunks, 'Deploy to PRODUCTION?');
    expect(second?.data.status).toBe('withdrawn');
    const late = await answer(b, second?.id ?? '', { action: 'accept', content: { confirmed: true } });
    expect(late.status).toBe(410);
  });

  it('is withdrawn with a call that was stopped (the turn aborted)', async () => {
    const b = await newBrowser();
    const stop = new AbortController();
    // The page's turn request, aborted as a closed tab or a stopped turn aborts it.
    const stoppable = (request: Request) => postChat(new Request(request, { signal: stop.signal }));
    const refuse = async () => new Response(null, { status: 500 });
    const q = await askThrough({ getChatInfo: refuse, postChat: stoppable, postAnswer: refuse }, b, '/hang');
    stop.abort();
    await q.rest.catch(() => undefined);
    await vi.waitFor(async () =>
      expect((await state().registry.get(q.id))?.settlement).toEqual({ reason: 'withdrawn' }),
    );
    expect((await answer(b, q.id, { action: 'accept', content: { confirmed: true } })).status).toBe(410);
  });
});

describe('which tool call a question belongs to', () => {
  // A 2025-11-25 request does not say which call it serves: every call running on its server holds it.
  const chat = () => ({ calls: new Set() }) as unknown as Chat;
  const pending = () => new Promise<never>(() => {});

  it('a question is withdrawn only once no call that may have asked it runs', () => {
    const c = chat();
    const a = startCall(c, 'ops', pending());
    const b = startCall(c, 'ops', pending());
    expect(claimQuestion(c, 'ops', 'q1')).toBe(true);
    expect(endCall(c, a), 'the other call may still be waiting for it').toEqual([]);
    expect(claimQuestion(c, 'ops', 'q2')).toBe(true);
    expect(endCall(c, b)).toEqual(['q1', 'q2']);
  });

  it("another server's call does not hold it", () => {
    const c = chat();
    const ops = startCall(c, 'ops', pending());
    startCall(c, 'files', pending());
    expect(claimQuestion(c, 'ops', 'q1')).toBe(true);
    expect(endCall(c, ops)).toEqual(['q1']);
  });

  it('a question asked when no call of its server runs is not shown', () => {
    const c = chat();
    startCall(c, 'files', pending());
    expect(claimQuestion(c, 'ops', 'q1')).toBe(false);
    const ended = startCall(c, 'ops', pending());
    endCall(c, ended);
    expect(claimQuestion(c, 'ops', 'q2')).toBe(false);
  });
});
