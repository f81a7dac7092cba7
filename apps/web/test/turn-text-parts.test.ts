/**
 * A turn's text parts carry text. A part `{"type": "text", "text": ["/execute_sql", " sql=…"]}` passed
 * the route's check (a type and nothing more) and its `text` was read with `join`, so a list ran as
 * the command "/execute_sql, sql=…" and an object as "[object Object]"; with a model, the part went
 * to the endpoint as it was and its refusal was explained as the endpoint's configuration. Now a
 * text part whose `text` is not a string is refused (400) before anything runs, and the chat takes
 * its next turn. Real chat route with the bundled opsdesk.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const data = mkdtempSync(join(tmpdir(), 'elicitkit-text-parts-'));
process.env.ELICITKIT_DATA = data;
for (const name of ['OPENAI_API_KEY', 'OPENAI_BASE_URL', 'ELICITKIT_MODEL', 'ELICITKIT_SERVERS'])
  delete process.env[name];

const { newBrowser, postChat, turn } = await import('./chat-client');
const { resetState } = await import('../lib/state');
const { stopOpsdesk } = await import('../lib/opsdesk');
afterAll(async () => {
  await resetState();
  await stopOpsdesk();
  rmSync(data, { recursive: true, force: true });
});

describe('a text part whose text is not a string', () => {
  it.each([
    ['a list', ['/list_deployments']],
    ['an object', { text: '/list_deployments' }],
    ['a number', 7],
    ['null', null],
    ['missing', undefined],
  ])('is refused (400), nothing runs, and the chat takes its next turn: %s', async (_label, text) => {
    const b = await newBrowser();
    const sent = await postChat(
      new Request('http://localhost/api/chat', {
        method: 'POST',
        headers: { cookie: b.cookie, 'x-elicitkit-csrf': b.csrf, 'content-type': 'application/json' },
        body: JSON.stringify({ messages: [{ id: 'm1', role: 'user', parts: [{ type: 'text', text }] }] }),
      }),
    );
    expect(await sent.json()).toEqual({
      error:
        'Each of "messages" must be an object with a "role" and "parts", a list of objects with a "type" (and a text part\'s "text" a string).',
    });
    expect(sent.status).toBe(400);
    expect((await turn(b, '/list_deployments')).find((c) => c.type === 'tool-output-available')).toBeDefined();
  });
});
