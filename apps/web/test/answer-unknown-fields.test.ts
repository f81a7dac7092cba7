/**
 * An answer's body is `{"action", "content"?, "applyDefaults"?}`, and a key it does not take is
 * refused, not ignored. Ignored, a misspelt key changed the answer: `"contents"` left the answer
 * empty, so the form's defaults stood in for every field and the question was consumed with values
 * nobody sent; `"applydefaults": false` put back a default the sender had cleared. Now such a body is
 * a 400 naming the key, and the question stays open for the right one. Real chat route, a real stdio
 * MCP server (raw JSON-RPC lines) that reports the answer it got.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { rawServer } from './raw-server';

// Every field has a default: an answer with no content is a whole answer once defaults are applied.
const SERVER = rawServer({
  tools: [{ name: 'scale', inputSchema: { type: 'object', properties: {} } }],
  call: `(m, ask, reply) => {
    ask({ mode: 'form', message: 'How many replicas, where?', requestedSchema: { type: 'object', properties: {
      replicas: { type: 'integer', title: 'Replicas', default: 3 },
      env: { type: 'string', title: 'Environment', enum: ['staging', 'prod'], default: 'prod' },
      note: { type: 'string', title: 'Note', default: 'routine' } } } })
      .then((r) => reply({ content: [{ type: 'text', text: JSON.stringify(r.result) }] }));
  }`,
});

const data = mkdtempSync(join(tmpdir(), 'elicitkit-answer-keys-'));
process.env.ELICITKIT_DATA = data;
process.env.ELICITKIT_QUESTION_TIMEOUT_MS = '60000';
process.env.ELICITKIT_SERVERS = JSON.stringify([
  { name: 'ops', command: [process.execPath, '-e', SERVER], revision: '2025-11-25' },
]);
for (const name of ['OPENAI_API_KEY', 'OPENAI_BASE_URL', 'ELICITKIT_MODEL']) delete process.env[name];

const { newBrowser, ask, answer } = await import('./chat-client');
const { resetState, state } = await import('../lib/state');
afterAll(async () => {
  await resetState();
  rmSync(data, { recursive: true, force: true });
});

const output = (chunks: Record<string, unknown>[]) =>
  (chunks.find((c) => c.type === 'tool-output-available') as { output?: { text?: string } } | undefined)?.output?.text;

describe('an answer with a key it does not take', () => {
  it.each([
    [
      '"contents" for "content": the defaults would stand in for the answer',
      { action: 'accept', contents: { replicas: 1, env: 'staging' } },
      'The answer has a field it does not take: "contents". An answer is {"action", "content"?, "applyDefaults"?}.',
    ],
    [
      '"applydefaults": a cleared default would be put back',
      { action: 'accept', content: { replicas: 1, env: 'staging' }, applydefaults: false },
      'The answer has a field it does not take: "applydefaults". An answer is {"action", "content"?, "applyDefaults"?}.',
    ],
    [
      'several, and __proto__',
      JSON.parse('{"action":"accept","__proto__":{"content":{}},"a":1,"b":2,"c":3,"d":4,"e":5}'),
      'The answer has fields it does not take: "__proto__", "a", "b", "c", "d" and 1 more. An answer is {"action", "content"?, "applyDefaults"?}.',
    ],
  ])('is refused (400), and the question stays open: %s', async (_label, body, error) => {
    const b = await newBrowser();
    const q = await ask(b, '/scale');
    const sent = await answer(b, q.id, body);
    expect(await sent.json()).toEqual({ error });
    expect(sent.status).toBe(400);
    expect((await state().registry.get(q.id))?.settlement).toBeUndefined();
    // The answer meant, sent right, is taken as sent: the note cleared, not filled back.
    const taken = await answer(b, q.id, {
      action: 'accept',
      content: { replicas: 1, env: 'staging' },
      applyDefaults: false,
    });
    expect(taken.status).toBe(200);
    expect(output(await q.rest)).toBe('{"action":"accept","content":{"replicas":1,"env":"staging"}}');
  });

  it('is refused whatever the action (a decline with a typo too), and a list is not an answer', async () => {
    const b = await newBrowser();
    const q = await ask(b, '/scale');
    const typo = await answer(b, q.id, { action: 'decline', reason: 'no' });
    expect(typo.status).toBe(400);
    const list = await answer(b, q.id, [{ action: 'accept' }]);
    expect(await list.json()).toEqual({ error: 'The answer must be a JSON object.' });
    expect((await state().registry.get(q.id))?.settlement).toBeUndefined();
    expect((await answer(b, q.id, { action: 'decline' })).status).toBe(200);
    expect(output(await q.rest)).toBe('{"action":"decline"}');
  });
});
