/**
 * JSON is UTF-8 (RFC 8259), and an answer's bytes are what the person sent: bytes that are not
 * UTF-8 were decoded with U+FFFD in their place and the answer taken — a username typed as
 * "bo\xFFb" was registered as "bo\uFFFDb", something nobody sent. Now such a body is refused (400,
 * saying why) and the question stays open. Real chat route with the bundled opsdesk.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const data = mkdtempSync(join(tmpdir(), 'elicitkit-answer-encoding-'));
process.env.ELICITKIT_DATA = data;
process.env.ELICITKIT_QUESTION_TIMEOUT_MS = '60000';
for (const name of ['OPENAI_API_KEY', 'OPENAI_BASE_URL', 'ELICITKIT_MODEL', 'ELICITKIT_SERVERS'])
  delete process.env[name];

const { newBrowser, ask, answer, postAnswer, postChat, turn } = await import('./chat-client');
const { resetState } = await import('../lib/state');
const { stopOpsdesk } = await import('../lib/opsdesk');
afterAll(async () => {
  await resetState();
  await stopOpsdesk();
  rmSync(data, { recursive: true, force: true });
});

/** `text` as UTF-8 with the byte 0xFF (never part of UTF-8) where `<FF>` stands. */
function withBadByte(text: string): Uint8Array<ArrayBuffer> {
  const [before = '', after = ''] = text.split('<FF>');
  const enc = new TextEncoder();
  return new Uint8Array([...enc.encode(before), 0xff, ...enc.encode(after)]);
}

describe('a body that is not UTF-8', () => {
  it('is refused as an answer (400), and the question stays open', async () => {
    const b = await newBrowser();
    const q = await ask(b, '/register_user');
    const body = withBadByte('{"action":"accept","content":{"username":"bo<FF>b","email":"bob@example.com"}}');
    const sent = await postAnswer(
      new Request(`http://localhost/api/elicitations/${q.id}`, {
        method: 'POST',
        headers: { cookie: b.cookie, 'x-elicitkit-csrf': b.csrf, 'content-type': 'application/json' },
        body,
      }),
      { params: Promise.resolve({ id: q.id }) },
    );
    expect(sent.status).toBe(400);
    expect(await sent.json()).toEqual({ error: 'The body is not valid UTF-8 (JSON must be).' });
    expect((await answer(b, q.id, { action: 'cancel' })).status).toBe(200);
    await q.rest;
  });

  // Every JSON body the app reads is read the same way: a turn's command was run with U+FFFD in it.
  it('is refused as a chat turn too (400), and the chat takes its next turn', async () => {
    const b = await newBrowser();
    const line = '/execute_sql sql="SELECT <FF>"';
    const body = withBadByte(
      JSON.stringify({ messages: [{ id: 'm1', role: 'user', parts: [{ type: 'text', text: line }] }] }),
    );
    const sent = await postChat(
      new Request('http://localhost/api/chat', {
        method: 'POST',
        headers: { cookie: b.cookie, 'x-elicitkit-csrf': b.csrf, 'content-type': 'application/json' },
        body,
      }),
    );
    expect(sent.status).toBe(400);
    expect(await sent.json()).toEqual({ error: 'The body is not valid UTF-8 (JSON must be).' });
    expect((await turn(b, '/list_deployments')).find((c) => c.type === 'tool-output-available')).toBeDefined();
  });
});
