/**
 * A hostile server may send questions the chat refuses outright (-32602: a message over the length
 * a question may carry, a form outside the subset) as often as it likes: they are never shown and
 * never counted against the chat's question budget, so nothing of them may be kept either. The
 * chat remembered each question's message until it was answered, to name a question declined
 * unseen — and a refused one is never answered, so every refused message (up to megabytes each)
 * stayed for as long as the chat's connection. Real chat route, a real stdio MCP server (raw
 * JSON-RPC lines); what the process still holds is read from a V8 heap snapshot.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { getHeapSnapshot } from 'node:v8';
import { afterAll, describe, expect, it } from 'vitest';
import { rawServer } from './raw-server';

const MARK = 'refused-question-kept-';
const SERVER = rawServer({
  tools: [{ name: 'flood', inputSchema: { type: 'object', properties: {} } }],
  call: `async (m, ask, reply) => {
    const refused = [];
    for (let i = 0; i < 20; i++) {
      const r = await ask({ mode: 'form', message: '${MARK}' + i + '-' + 'x'.repeat(100000),
        requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } } } });
      if (r.error) refused.push(r.error.code);
    }
    reply({ content: [{ type: 'text', text: 'refused ' + refused.length + ' ' + [...new Set(refused)].join() }] });
  }`,
});

const data = mkdtempSync(join(tmpdir(), 'elicitkit-rejected-'));
process.env.ELICITKIT_DATA = data;
process.env.ELICITKIT_SERVERS = JSON.stringify([
  { name: 'hostile', command: [process.execPath, '-e', SERVER], revision: '2025-11-25' },
]);
for (const name of ['OPENAI_API_KEY', 'OPENAI_BASE_URL', 'ELICITKIT_MODEL']) delete process.env[name];

const { newBrowser, turn } = await import('./chat-client');
const { chatOf, resetState } = await import('../lib/state');

afterAll(async () => {
  await resetState();
  rmSync(data, { recursive: true, force: true });
});

/** How many of the refused messages this process still holds (the snapshot collects garbage first). */
async function held(): Promise<number> {
  const seen = new Set<string>();
  const pattern = new RegExp(`${MARK}(\\d+)-`, 'g');
  let tail = '';
  for await (const chunk of getHeapSnapshot()) {
    const text = tail + String(chunk);
    for (const match of text.matchAll(pattern)) seen.add(match[1] as string);
    tail = text.slice(-64);
  }
  return seen.size;
}

describe('questions the chat refuses outright', () => {
  it('are answered -32602 and nothing of them is kept while the connection lives', async () => {
    const b = await newBrowser();
    const chunks = await turn(b, '/flood');
    expect(chunks.find((c) => c.type === 'tool-output-available')).toMatchObject({
      output: { text: 'refused 20 -32602' },
    });
    const chat = await chatOf(new Request('http://localhost/', { headers: { cookie: b.cookie } }));
    expect(chat?.connections.size, 'the connection is still open').toBe(1);
    expect(await held()).toBe(0);
  }, 60_000);
});
