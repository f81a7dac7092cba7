/**
 * A call that ended by the person's own doing (declined, cancelled, no answer in time…) reads in
 * the chat as a sentence for the person; the server's text, written for the model ("Do not ask
 * again…"), stays folded under it. A result the person should read as the server wrote it (done,
 * rejected) is shown as it is.
 */
import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { Message } from '../components/message';
import { PAGE_TEXTS } from '../components/texts';
import { LOCALES } from '../lib/locale';
import type { ChatMessage, ToolOutput } from '../lib/wire';

const MODEL_TEXT =
  'The user declined to provide env, so deploy_service did nothing. Do not ask again unless the user brings it up.';

function card(output: ToolOutput, locale: (typeof LOCALES)[number] = 'en'): string {
  const message = {
    id: 'm1',
    role: 'assistant',
    parts: [
      {
        type: 'dynamic-tool',
        toolName: 'deploy_service',
        toolCallId: 'c1',
        state: 'output-available',
        input: { service: 'order-service' },
        output,
      },
    ],
  } as unknown as ChatMessage;
  return renderToStaticMarkup(createElement(Message, { message, texts: PAGE_TEXTS[locale] }));
}

describe("a tool call's result in the chat", () => {
  it('declined: the person reads their own sentence; the model’s text is folded under it', () => {
    for (const locale of LOCALES) {
      const html = card({ text: MODEL_TEXT, status: 'declined', isError: false }, locale);
      const personal = PAGE_TEXTS[locale].personal.declined ?? '';
      expect(html).toContain(`<p class="personal">${personal}</p>`);
      expect(html).toMatch(/<details class="told-model"><summary>[^<]+<\/summary><pre>The user declined/);
      // Not shown open: the model's instructions are not the person's to read first.
      expect(html).not.toContain('<details class="told-model" open');
    }
  });

  it('every status that is the person’s has a sentence in every language', () => {
    for (const locale of LOCALES)
      for (const status of ['declined', 'cancelled', 'timeout', 'unsupported', 'pending'] as const)
        expect(PAGE_TEXTS[locale].personal[status], `${locale} ${status}`).toBeTruthy();
  });

  it('pending promises nothing the server will not do: the call has ended, and it goes on only when asked again', () => {
    // Nothing runs a tool's own work once the person finishes the page (the server's pending text
    // says so too): "it takes effect once you do" told the person the rest would follow by itself.
    expect(PAGE_TEXTS.en.personal.pending).toMatch(/call has ended[\s\S]*asked for again/);
    expect(PAGE_TEXTS.zh.personal.pending).toMatch(/调用已结束[\s\S]*再次发起/);
  });

  it('done and rejected are shown as the server wrote them, and a status of another server’s too', () => {
    for (const [status, text] of [
      ['done', 'Deployed order-service v2.3.1 to dev (#7).'],
      ['rejected', 'bob may not deploy order-service.'],
      ['queued', 'Queued behind 3 others.'],
    ] as const) {
      const html = card({ text, status, isError: status === 'rejected' });
      expect(html).toContain(`<pre>${text}</pre>`);
      expect(html).not.toContain('told-model');
    }
  });
});
