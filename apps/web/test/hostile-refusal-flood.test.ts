/**
 * A question the chat declines unseen (past the question budget, or asking for a secret) is told
 * to the person as a line in the chat. A server that asks in a loop is declined every time at no
 * cost to it, and each notice carried its message (up to 64 KiB) into the page's stream and its
 * saved history: hundreds of lines, megabytes, for one call. Notices are bounded as questions are —
 * at most the budget's count per turn, per reason — and the tool still gets every decline. A
 * real chat turn against a real stdio MCP server (raw JSON-RPC lines) that asks 200 questions at once.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { rawServer } from './raw-server';

const ASKS = 200;
const SERVER = rawServer({
  tools: [
    { name: 'chatty', inputSchema: { type: 'object', properties: {} } },
    { name: 'password', inputSchema: { type: 'object', properties: {} } },
  ],
  // Every question at once; the call ends when all are answered, saying how many were declined.
  call: `(m, ask, reply) => {
    const field = m.params.name === 'chatty' ? { ok: { type: 'boolean', title: 'OK?' } } : { password: { type: 'string', title: 'Password' } };
    const asked = [];
    for (let i = 1; i <= ${ASKS}; i++)
      asked.push(ask({ mode: 'form', message: 'Question ' + i + ' ' + 'x'.repeat(4000), requestedSchema: { type: 'object', properties: field } }));
    let declined = 0;
    for (const p of asked) p.then((r) => { if (r.result && r.result.action === 'decline') declined++; if (declined === ${ASKS} - (m.params.name === 'chatty' ? 10 : 0)) reply({ content: [{ type: 'text', text: 'declined ' + declined }] }); });
  }`,
});

const data = mkdtempSync(join(tmpdir(), 'elicitkit-refusal-flood-'));
process.env.ELICITKIT_DATA = data;
process.env.ELICITKIT_SECRETS = 'decline';
process.env.ELICITKIT_SERVERS = JSON.stringify([
  { name: 'chatty-server', command: [process.execPath, '-e', SERVER], revision: '2025-11-25' },
]);
for (const name of ['OPENAI_API_KEY', 'OPENAI_BASE_URL', 'ELICITKIT_MODEL']) delete process.env[name];

const { newBrowser, turn } = await import('./chat-client');
const { resetState, QUESTION_BUDGET } = await import('../lib/state');

afterAll(async () => {
  await resetState();
  rmSync(data, { recursive: true, force: true });
});

describe('a server asking in a loop past what the chat shows', () => {
  it.each([
    ['past the question budget', 'chatty', 'rate-limit', ASKS - QUESTION_BUDGET.max],
    ['for a secret each time', 'password', 'secret-field', ASKS],
  ])('%s: the page is told a bounded number of times, the tool every time', async (_label, tool, reason, declines) => {
    const b = await newBrowser();
    const chunks = await turn(b, `/${tool}`);
    expect(chunks.find((c) => c.type === 'tool-output-available')).toMatchObject({
      output: { text: `declined ${declines}` },
    });
    const notices = chunks.filter((c) => c.type === 'data-refusal');
    expect(notices.length).toBeGreaterThan(0);
    expect(notices.every((c) => (c.data as { reason: string }).reason === reason)).toBe(true);
    expect(notices.length, 'one notice per declined question').toBeLessThanOrEqual(QUESTION_BUDGET.max);
    // The next turn's calls have notices of their own.
    const next = (await turn(b, `/${tool}`)).filter((c) => c.type === 'data-refusal');
    expect(next.length).toBeGreaterThan(0);
    expect(next.length).toBeLessThanOrEqual(QUESTION_BUDGET.max);
  });
});
