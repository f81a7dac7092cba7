/**
 * The turn's stream breaks while a question is open (the network drops, the person stops the turn):
 * the server withdraws the question with its call, but the rewrite that says so can no longer
 * reach the page, whose last word on it is "open". The page must not keep offering it — the dialog
 * stayed up, the person filled it in, and only then heard 410 "withdrawn" — and its line in the
 * chat says it is no longer open. Real chat route with the bundled opsdesk; the page's messages
 * are what its stream delivered, drawn by the real <Message> and the dialog's useOpenQuestion.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createElement } from 'react';
import { renderToString } from 'react-dom/server';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { ask } from './browser';

const data = mkdtempSync(join(tmpdir(), 'elicitkit-broken-stream-'));
process.env.ELICITKIT_DATA = data;
process.env.ELICITKIT_QUESTION_TIMEOUT_MS = '60000';
for (const name of ['OPENAI_API_KEY', 'OPENAI_BASE_URL', 'ELICITKIT_MODEL', 'ELICITKIT_SERVERS'])
  delete process.env[name];

const { newBrowser, answer, postChat } = await import('./chat-client');
const { resetState, state } = await import('../lib/state');
const { stopOpsdesk } = await import('../lib/opsdesk');
const { Message } = await import('../components/message');
const { useOpenQuestion } = await import('../components/use-open-question');
const { PAGE_TEXTS } = await import('../components/texts');
type ChatMessage = import('../lib/wire').ChatMessage;

afterAll(async () => {
  await resetState();
  await stopOpsdesk();
  rmSync(data, { recursive: true, force: true });
});

/** Draws the id of the question the page's dialog shows. */
function Probe({ messages, busy }: { messages: ChatMessage[]; busy: boolean }) {
  return createElement('output', null, useOpenQuestion(messages, busy).shown?.id ?? 'none');
}

/** The question the page's dialog would show for `messages`, by id. */
function dialogFor(messages: ChatMessage[], busy: boolean): string {
  return renderToString(createElement(Probe, { messages, busy })).replace(/<\/?output>/g, '');
}

describe('a question whose turn stream broke', () => {
  it('is no longer offered in the dialog, and its line says it is no longer open', async () => {
    const b = await newBrowser();
    const stop = new AbortController();
    // The page's turn request, aborted as a dropped connection or the stop button aborts it.
    const stoppable = (request: Request) => postChat(new Request(request, { signal: stop.signal }));
    const refuse = async () => new Response(null, { status: 500 });
    const q = await ask(
      { getChatInfo: refuse, postChat: stoppable, postAnswer: refuse },
      b,
      '/deploy_service service=order-service',
    );
    const messages = [
      {
        id: 'a1',
        role: 'assistant',
        parts: [{ type: 'data-elicitation', id: q.id, data: q.data }],
      },
    ] as unknown as ChatMessage[];
    // While the stream runs the dialog offers it.
    expect(dialogFor(messages, true)).toBe(q.id);
    stop.abort();
    await q.rest.catch(() => undefined);
    await vi.waitFor(async () =>
      expect((await state().registry.get(q.id))?.settlement).toEqual({ reason: 'withdrawn' }),
    );
    expect((await answer(b, q.id, { action: 'accept', content: { env: 'dev' } })).status).toBe(410);
    // What the page holds still says "open": the stream that would have said otherwise is gone.
    expect(dialogFor(messages, false), 'the dialog still offers a withdrawn question').toBe('none');
    const line = renderToString(
      createElement(Message, { message: messages[0] as ChatMessage, texts: PAGE_TEXTS.en, running: false }),
    );
    expect(line).toContain('data-status="gone"');
    expect(line).toContain(PAGE_TEXTS.en.questionStatus.gone);
  });
});
