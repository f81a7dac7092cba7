/**
 * A question the chat declines without showing it — past its rate limit (10 a minute per server),
 * or a form asking for a secret under ELICITKIT_SECRETS=decline — is shown in the chat as what it
 * was and why it was not shown; the tool's result then does not read "You declined". A real chat
 * turn against a real stdio MCP server (raw JSON-RPC lines), the chat stream assembled into its
 * message by the AI SDK as the page does, and the real <Message>.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readUIMessageStream, type UIMessageChunk } from 'ai';
import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { afterAll, describe, expect, it } from 'vitest';
import { rawServer } from './raw-server';

const ASKS = 11;
const declined = (text: string) =>
  `({ content: [{ type: 'text', text: ${JSON.stringify(text)} }], structuredContent: { status: 'declined' } })`;
const SERVER = rawServer({
  tools: [
    { name: 'chatty', inputSchema: { type: 'object', properties: {} } },
    { name: 'password', inputSchema: { type: 'object', properties: {} } },
  ],
  // chatty: eleven questions at once, the call ends at the first decline. password: one form asking for a password.
  call: `(m, ask, reply) => {
    let done = false; const fail = (r) => { if (!done && r.error) { done = true; reply({ content: [{ type: 'text', text: 'error ' + r.error.message }], isError: true }); } };
    const end = (r) => { if (!done && r.result && r.result.action === 'decline') { done = true; reply(${declined('The user declined.')}); } };
    if (m.params.name === 'chatty')
      for (let i = 1; i <= ${ASKS}; i++)
        ask({ mode: 'form', message: 'Question ' + i,
          requestedSchema: { type: 'object', properties: { ok: { type: 'boolean', title: 'OK?' } } } }).then((r) => { fail(r); end(r); });
    else
      ask({ mode: 'form', message: 'Sign in to the registry.',
        requestedSchema: { type: 'object', properties: { password: { type: 'string', title: 'Password' } } } }).then((r) => { fail(r); end(r); });
  }`,
});

const data = mkdtempSync(join(tmpdir(), 'elicitkit-unseen-'));
process.env.ELICITKIT_DATA = data;
process.env.ELICITKIT_SECRETS = 'decline';
process.env.ELICITKIT_SERVERS = JSON.stringify([
  { name: 'chatty-server', command: [process.execPath, '-e', SERVER], revision: '2025-11-25' },
]);
for (const name of ['OPENAI_API_KEY', 'OPENAI_BASE_URL', 'ELICITKIT_MODEL']) delete process.env[name];

const { newBrowser, turn } = await import('./chat-client');
const { resetState } = await import('../lib/state');
const { Message } = await import('../components/message');
const { PAGE_TEXTS } = await import('../components/texts');
type ChatMessage = import('../lib/wire').ChatMessage;

afterAll(async () => {
  await resetState();
  rmSync(data, { recursive: true, force: true });
});

/** The assistant message the page builds from a turn's chunks. */
async function assembled(chunks: Record<string, unknown>[]): Promise<ChatMessage> {
  const stream = new ReadableStream<UIMessageChunk>({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(chunk as UIMessageChunk);
      controller.close();
    },
  });
  let last: ChatMessage | undefined;
  for await (const message of readUIMessageStream<ChatMessage>({ stream })) last = message;
  if (!last) throw new Error('the turn made no message');
  return last;
}

function html(message: ChatMessage, locale: 'en' | 'zh' = 'en'): string {
  return renderToStaticMarkup(createElement(Message, { message, texts: PAGE_TEXTS[locale], running: false }));
}

describe('a question the chat declines without showing it', () => {
  it('past the rate limit: the chat says which question, and why it was not shown', async () => {
    const b = await newBrowser();
    const chunks = await turn(b, '/chatty');
    const refusals = chunks.filter((c) => c.type === 'data-refusal');
    expect(refusals).toEqual([
      {
        type: 'data-refusal',
        data: {
          server: 'chatty-server',
          message: `Question ${ASKS}`,
          reason: 'rate-limit',
          limit: { max: 10, perMs: 60_000 },
        },
      },
    ]);
    const page = html(await assembled(chunks));
    expect(page).toContain('data-refusal="rate-limit"');
    expect(page).toContain(`Question ${ASKS}`);
    expect(page).toContain('asked more than 10 questions within a minute');
    // The result is the chat's decline, not the person's.
    expect(page).toContain(PAGE_TEXTS.en.declinedUnseen);
    expect(page).not.toContain(PAGE_TEXTS.en.personal.declined);
  });

  it('a secret the chat does not take: shown as declined for the person, in each language', async () => {
    const b = await newBrowser();
    const chunks = await turn(b, '/password');
    expect(chunks.filter((c) => c.type === 'data-elicitation')).toEqual([]);
    const message = await assembled(chunks);
    for (const locale of ['en', 'zh'] as const) {
      const page = html(message, locale);
      expect(page).toContain('data-refusal="secret-field"');
      expect(page).toContain('Sign in to the registry.');
      expect(page).toContain(PAGE_TEXTS[locale].refused({ server: '', message: '', reason: 'secret-field' }));
      expect(page).toContain(PAGE_TEXTS[locale].declinedUnseen);
      expect(page).not.toContain(PAGE_TEXTS[locale].personal.declined);
    }
  });

  it('a question the person declined still reads as theirs', () => {
    const message = {
      id: 'm1',
      role: 'assistant',
      parts: [
        {
          type: 'dynamic-tool',
          toolName: 't',
          toolCallId: 'c1',
          state: 'output-available',
          input: {},
          output: { text: 'x', status: 'declined', isError: false },
        },
        {
          type: 'data-refusal',
          data: { server: 's', message: 'Q2', reason: 'rate-limit', limit: { max: 10, perMs: 60_000 } },
        },
        {
          type: 'data-elicitation',
          data: {
            id: 'q1',
            server: 's',
            status: 'answered',
            action: 'decline',
            prompt: { mode: 'form', message: 'Q1', fields: [] },
            publishedAt: 0,
            expiresAt: 1,
          },
        },
      ],
    } as unknown as ChatMessage;
    const page = html(message);
    expect(page).toContain(PAGE_TEXTS.en.personal.declined);
    expect(page).not.toContain(PAGE_TEXTS.en.declinedUnseen);
  });
});
