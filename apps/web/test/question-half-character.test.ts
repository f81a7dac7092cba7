/**
 * A question whose field name or choice holds half a character (a lone UTF-16 surrogate) cannot be answered as sent: the page is told so with the question
 * (`prompt.unanswerable`, each field where it is), an accept is refused in the page's language
 * (never the form's 400 of the answer's half characters, after the person filled it in), and a
 * decline or a cancel reaches the server. A question with half a character only where it is read
 * (its message, a title) stays answerable. Real chat and answer routes, a real stdio MCP server
 * written on the wire.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { rawServer } from './raw-server';

const FFFD = '\uFFFD';
const QUESTIONS: Record<string, object> = {
  name: { type: 'object', properties: { 'ticket\ud800': { type: 'string' } } },
  choice: { type: 'object', properties: { env: { type: 'string', enum: ['dev', 'pr\udc00od'] } }, required: ['env'] },
  titled: {
    type: 'object',
    properties: {
      env: {
        type: 'string',
        oneOf: [
          { const: 'x\ud800', title: 'X' },
          { const: 'y', title: 'Y' },
        ],
      },
    },
  },
  tags: { type: 'object', properties: { tags: { type: 'array', items: { type: 'string', enum: ['a', 'b\ud800'] } } } },
  // Only read: answerable.
  read: { type: 'object', properties: { note: { type: 'string', title: 'N\ud800te', description: 'd\udc00' } } },
};

const data = mkdtempSync(join(tmpdir(), 'elicitkit-question-half-'));
process.env.ELICITKIT_DATA = data;
process.env.ELICITKIT_SERVERS = JSON.stringify([
  {
    name: 'ops',
    command: [
      process.execPath,
      '-e',
      rawServer({
        tools: [{ name: 'ask', inputSchema: { type: 'object', properties: { q: { type: 'string' } } } }],
        call: `(m, ask, reply) => ask({ mode: 'form', message: 'Answer?', requestedSchema: ${JSON.stringify(QUESTIONS)}[m.params.arguments.q] })
          .then((r) => reply({ content: [{ type: 'text', text: 'answered ' + JSON.stringify(r.result ?? r.error) }] }))`,
      }),
    ],
    revision: '2025-11-25',
  },
]);
for (const name of ['OPENAI_API_KEY', 'OPENAI_BASE_URL', 'ELICITKIT_MODEL']) delete process.env[name];

const { answer, ask, newBrowser } = await import('./chat-client');
const { resetState } = await import('../lib/state');

afterAll(async () => {
  await resetState();
  rmSync(data, { recursive: true, force: true });
});

/** What the tool said the server got back, once the turn ended. */
async function told(rest: Promise<Record<string, unknown>[]>): Promise<string> {
  const chunks = await rest;
  const output = chunks.find((c) => c.type === 'tool-output-available') as { output: { text: string } } | undefined;
  return output?.output.text ?? '';
}

describe('a question no answer can carry', () => {
  it.each([
    ['name', { field: `ticket${FFFD}`, where: 'name' }],
    ['choice', { field: 'env', where: 'choice' }],
    ['titled', { field: 'env', where: 'choice' }],
    ['tags', { field: 'tags', where: 'choice' }],
  ])(
    '%s: the page is told where, an accept is refused in its language, a decline reaches the server',
    async (q, where) => {
      const b = await newBrowser();
      const asked = await ask(b, `/ask q=${q}`);
      const prompt = asked.data.prompt as { unanswerable?: unknown[] };
      // Drawn whole (U+FFFD for the half), as every text of a question reaches the page.
      expect(prompt.unanswerable).toEqual([{ reason: 'half-character', ...where }]);
      const zh = await answer(b, asked.id, { action: 'accept', content: {} }, { 'x-elicitkit-locale': 'zh' });
      expect(zh.status).toBe(400);
      expect(await zh.json()).toEqual({
        error: '这个问题无法按原样回答：它在回答必须携带的地方含有半个字符（孤立的 UTF-16 代理项）。请拒绝或取消它。',
      });
      const en = await answer(b, asked.id, { action: 'accept' });
      expect(((await en.json()) as { error: string }).error).toMatch(/^This question cannot be answered as sent/);
      expect((await answer(b, asked.id, { action: 'decline' })).status).toBe(200);
      expect(await told(asked.rest)).toContain('answered {"action":"decline"}');
    },
  );

  it('a cancel reaches the server too', async () => {
    const b = await newBrowser();
    const asked = await ask(b, '/ask q=choice');
    expect((await answer(b, asked.id, { action: 'cancel' })).status).toBe(200);
    expect(await told(asked.rest)).toContain('answered {"action":"cancel"}');
  });

  it('half a character only where it is read (a title, a help text): answerable as ever', async () => {
    const b = await newBrowser();
    const asked = await ask(b, '/ask q=read');
    expect((asked.data.prompt as { unanswerable?: unknown }).unanswerable).toBeUndefined();
    expect((await answer(b, asked.id, { action: 'accept', content: { note: 'fine' } })).status).toBe(200);
    expect(await told(asked.rest)).toContain('answered {"action":"accept","content":{"note":"fine"}}');
  });
});
