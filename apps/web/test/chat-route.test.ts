/**
 * POST /api/chat through its real route handler against hostile input: a body that is JSON but
 * not an object, or whose messages are not messages (null, no parts, a part without a type), gets
 * a clear 400 (not a thrown TypeError), and two turns posted at the same moment
 * in one chat start one turn — the other is 409, and the running turn keeps its stream (its
 * question still reaches the page and its answer still lands).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ask as askOf, type Browser, newBrowser as newBrowserOf, type Routes } from './browser';

const data = mkdtempSync(join(tmpdir(), 'elicitkit-web-chat-route-'));
process.env.ELICITKIT_DATA = data;
process.env.ELICITKIT_QUESTION_TIMEOUT_MS = '60000';
for (const name of ['OPENAI_API_KEY', 'OPENAI_BASE_URL', 'ELICITKIT_MODEL']) delete process.env[name];

const { GET: getChatInfo } = await import('../app/api/chat/info/route');
const { POST: postChat } = await import('../app/api/chat/route');
const { POST: postAnswer } = await import('../app/api/elicitations/[id]/route');
const { POST: postIdentity } = await import('../app/api/chat/identity/route');
const { resetState } = await import('../lib/state');
const { stopOpsdesk } = await import('../lib/opsdesk');

const routes: Routes = { getChatInfo, postChat, postAnswer };

let b: Browser;
beforeAll(async () => {
  b = await newBrowserOf(routes);
}, 60_000);
afterAll(async () => {
  await resetState();
  await stopOpsdesk();
  rmSync(data, { recursive: true, force: true });
});

const post = (body: string) =>
  postChat(
    new Request('http://localhost/api/chat', {
      method: 'POST',
      headers: { cookie: b.cookie, 'x-elicitkit-csrf': b.csrf, 'content-type': 'application/json' },
      body,
    }),
  );
const turnBody = (text: string) =>
  JSON.stringify({ messages: [{ id: 'm1', role: 'user', parts: [{ type: 'text', text }] }] });

const cancel = (id: string) =>
  postAnswer(
    new Request(`http://localhost/api/elicitations/${id}`, {
      method: 'POST',
      headers: { cookie: b.cookie, 'x-elicitkit-csrf': b.csrf, 'content-type': 'application/json' },
      body: JSON.stringify({ action: 'cancel' }),
    }),
    { params: Promise.resolve({ id }) },
  );

/** The UI stream's chunks, one at a time; undefined once it ends. */
function sse(response: Response): { next(): Promise<Record<string, unknown> | undefined> } {
  const reader = (response.body as ReadableStream<Uint8Array>)
    .pipeThrough(new TextDecoderStream() as unknown as TransformStream<Uint8Array, string>)
    .getReader();
  let buffer = '';
  return {
    async next() {
      for (;;) {
        const end = buffer.indexOf('\n\n');
        if (end !== -1) {
          const json = buffer.slice(0, end).replace(/^data: /, '');
          buffer = buffer.slice(end + 2);
          if (json === '[DONE]') return undefined;
          return JSON.parse(json) as Record<string, unknown>;
        }
        const { done, value } = await reader.read();
        if (done) return undefined;
        buffer += value;
      }
    },
  };
}

describe('POST /api/chat', () => {
  it('a body nested past what a chat carries is a 400 that says so, and the chat takes the next turn', async () => {
    // Written by hand: JSON.stringify itself overflows on such a value.
    const nested = (depth: number) =>
      `{"messages":[{"role":"assistant","parts":[{"type":"data-x","data":${'['.repeat(depth)}1${']'.repeat(depth)}}]},{"role":"user","parts":[{"type":"text","text":"/x"}]}]}`;
    for (const depth of [2_000, 50_000]) {
      const response = await post(nested(depth));
      expect(response.status).toBe(400);
      expect(await response.json()).toEqual({ error: 'The body nests objects and arrays deeper than 200 levels.' });
    }
    // Within it, the turn runs (here: a command the chat does not know, said in its stream).
    const within = await post(nested(150));
    expect(within.status).toBe(200);
    await within.text();
  });

  it.each([
    'null',
    '[]',
    '"a turn"',
    '7',
    '{"messages":"hi"}',
    '{"messages":[null]}',
    '{"messages":[{"role":"user"}]}',
    '{"messages":[{"role":"user","parts":[null]}]}',
    '{"messages":[{"role":"user","parts":[{"text":"/deploy_service"}]}]}',
  ])('a body of %s is a 400 with a reason', async (body) => {
    const response = await post(body);
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ error: expect.stringContaining('"messages"') });
  });

  it('two turns posted at once: one runs, the other is 409; the running one is not disturbed', async () => {
    const [one, two] = await Promise.all([
      post(turnBody('/deploy_service service=order-service')),
      post(turnBody('/deploy_service service=payment-service')),
    ]);
    const statuses = [one.status, two.status].sort();
    expect(statuses).toEqual([200, 409]);
    const running = one.status === 200 ? one : two;
    const other = one.status === 200 ? two : one;
    await other.body?.cancel();
    // While it runs, the identity cannot change under it.
    const switched = await postIdentity(
      new Request('http://localhost/api/chat/identity', {
        method: 'POST',
        headers: { cookie: b.cookie, 'x-elicitkit-csrf': b.csrf, 'content-type': 'application/json' },
        body: JSON.stringify({ user: 'bob' }),
      }),
    );
    expect(switched.status).toBe(409);
    // The running turn's question reaches its stream, and cancelling it ends the turn.
    const chunks = sse(running);
    let id: string | undefined;
    while (!id) {
      const c = await chunks.next();
      if (!c) break;
      if (c.type === 'data-elicitation') id = String((c.data as { id: string }).id);
    }
    expect(id).toBeDefined();
    expect((await cancel(String(id))).status).toBe(200);
    while (await chunks.next());
  }, 120_000);

  it('after a refused turn the chat still takes the next one', async () => {
    const q = await askOf(routes, b, '/deploy_service service=order-service');
    expect(q.data).toMatchObject({ status: 'open' });
    expect((await cancel(q.id)).status).toBe(200);
    await q.rest;
  }, 120_000);
});
