// @vitest-environment jsdom
import { attach } from '@elicitkit/client';
import type { FormSchema } from '@elicitkit/form';
import { act, screen, within } from '@testing-library/react';
import { userEvent } from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { connect, REVISIONS } from '../../client/test/servers.js';
import { formPrompt, urlPrompt } from '../test/prompts.js';
import { ask } from '../test/react-driver.js';
import { createDomRenderer } from './dom-renderer.js';
import { LABELS_EN } from './labels.js';
import { LABELS_ZH } from './labels-zh.js';

const SCHEMA: FormSchema = {
  type: 'object',
  properties: { ticket: { type: 'string', title: 'Release ticket', minLength: 4 } },
  required: ['ticket'],
};
const URL = 'https://opsdesk.example.com/password/abc';

afterEach(() => {
  document.body.replaceChildren();
});

describe('createDomRenderer', () => {
  it('declares both modes, answers live, and draws nothing for an already withdrawn question', async () => {
    const container = document.createElement('div');
    const renderer = createDomRenderer({ container, window: { open: vi.fn() } });
    expect(renderer.modes).toEqual({ form: true, url: true });
    expect(renderer.interactive).toBe(true);
    // Its form shows the defaults, so attach must not put back one the person cleared.
    expect(renderer.prefillsDefaults).toBe(true);
    expect(await renderer.renderForm(formPrompt(SCHEMA), AbortSignal.abort())).toEqual({ action: 'cancel' });
    expect(await renderer.renderUrl(urlPrompt(URL), AbortSignal.abort())).toEqual({ action: 'cancel' });
    expect(container.childElementCount).toBe(0);
  });

  it('answers with validated content and gives focus back to the page', async () => {
    const before = document.body.appendChild(document.createElement('button'));
    before.focus();
    const question = ask((renderer, signal) => renderer.renderForm(formPrompt(SCHEMA), signal));
    expect(question.dialog.contains(document.activeElement)).toBe(true);
    await question.user.type(within(question.dialog).getByLabelText('Release ticket'), 'REL-1001{Enter}');
    expect(await question.answer()).toEqual({ action: 'accept', content: { ticket: 'REL-1001' } });
    expect(document.activeElement).toBe(before);
  });

  it('tears the question down when it is withdrawn mid-answer', async () => {
    const question = ask((renderer, signal) => renderer.renderForm(formPrompt(SCHEMA), signal));
    await question.user.type(within(question.dialog).getByLabelText('Release ticket'), 'REL');
    act(() => question.controller.abort());
    expect(await question.answer()).toEqual({ action: 'cancel' });
    expect(screen.queryByRole('dialog')).toBeNull();
  });

  it.each(REVISIONS)(
    'through attach on %s, a double click sends one accept and the link opens once, after the click',
    async (revision) => {
      const container = document.body.appendChild(document.createElement('div'));
      const open = vi.fn(() => null);
      const renderer = createDomRenderer({ container, window: { open } });
      const connection = await connect(revision, (client) => attach(client, { renderer }));
      try {
        const received = connection.ask({
          mode: 'url',
          message: 'Set your password on the page.',
          url: URL,
          ...(revision === '2025-11-25' ? { elicitationId: 'e-1' } : {}),
        });
        const dialog = await screen.findByRole('dialog');
        const button = within(dialog).getByRole('button', { name: LABELS_EN.open });
        await userEvent.setup({ delay: null }).dblClick(button);
        expect(await received).toEqual({ action: 'accept' });
        expect(open).toHaveBeenCalledExactlyOnceWith(URL, '_blank', 'noopener,noreferrer');
      } finally {
        await connection.close();
      }
    },
  );

  it('after an accepted link, says to finish on the page until the server says it is done, and Close ends it', async () => {
    const container = document.body.appendChild(document.createElement('div'));
    const renderer = createDomRenderer({ container, window: { open: vi.fn(() => null) } });
    const connection = await connect('2025-11-25', (client) => attach(client, { renderer }));
    const user = userEvent.setup({ delay: null });
    const status = () => within(container).queryByRole('status')?.textContent;
    try {
      for (const id of ['e-1', 'e-2']) {
        const received = connection.ask({ mode: 'url', message: 'Set your password.', url: URL, elicitationId: id });
        await user.click(within(await screen.findByRole('dialog')).getByRole('button', { name: LABELS_EN.open }));
        expect(await received).toEqual({ action: 'accept' });
      }
      await act(async () => {}); // the notices are drawn by their own roots, outside any event
      expect(
        within(container)
          .getAllByRole('status')
          .map((s) => s.textContent),
      ).toEqual([LABELS_EN.waitingOnPage('opsdesk.example.com'), LABELS_EN.waitingOnPage('opsdesk.example.com')]);
      await connection.complete('unknown');
      await act(() => connection.complete('e-1'));
      expect(
        within(container)
          .getAllByRole('status')
          .map((s) => s.textContent),
      ).toEqual([LABELS_EN.finishedOnPage('opsdesk.example.com'), LABELS_EN.waitingOnPage('opsdesk.example.com')]);
      // The server may never say: the person closes the notice themselves.
      for (const close of within(container).getAllByRole('button', { name: LABELS_EN.close })) await user.click(close);
      expect(status()).toBeUndefined();
      await act(() => connection.complete('e-2'));
      expect(container.childElementCount).toBe(0);
    } finally {
      await connection.close();
    }
  });

  it('has an opener that opens with noopener each link it is given', async () => {
    const open = vi.fn(() => null);
    const renderer = createDomRenderer({ container: document.createElement('div'), window: { open } });
    await renderer.opener?.(URL);
    await renderer.opener?.('https://example.com/other');
    expect(open.mock.calls).toEqual([
      [URL, '_blank', 'noopener,noreferrer'],
      ['https://example.com/other', '_blank', 'noopener,noreferrer'],
    ]);
  });

  it('has an opener that refuses, with a clear error, a link that is not a web page', async () => {
    const open = vi.fn(() => null);
    const renderer = createDomRenderer({ container: document.createElement('div'), window: { open } });
    await expect(async () => renderer.opener?.('javascript:alert(document.cookie)')).rejects.toThrow(
      /only https and http links are opened/,
    );
    expect(open).not.toHaveBeenCalled();
  });

  it('defaults to the window of its container', async () => {
    const open = vi.spyOn(window, 'open').mockReturnValue(null);
    const renderer = createDomRenderer({ container: document.body });
    await renderer.opener?.(URL);
    expect(open).toHaveBeenCalledExactlyOnceWith(URL, '_blank', 'noopener,noreferrer');
    open.mockRestore();
  });

  it('refuses a container that belongs to no window', () => {
    const detached = document.implementation.createHTMLDocument('').createElement('div');
    expect(() => createDomRenderer({ container: detached })).toThrow(/needs a window/);
  });

  it('rejects, and cleans up, when drawing fails', async () => {
    const container = document.body.appendChild(document.createElement('div'));
    const labels = {
      ...LABELS_EN,
      asks: () => {
        throw new Error('broken labels');
      },
    };
    const renderer = createDomRenderer({ container, labels, window: { open: vi.fn() } });
    const answer = renderer.renderForm(formPrompt(SCHEMA), new AbortController().signal);
    await expect(answer).rejects.toThrow('broken labels');
    expect(container.childElementCount).toBe(0);
  });

  it('draws with the labels it is given, each question in its own element', async () => {
    const container = document.body.appendChild(document.createElement('div'));
    const renderer = createDomRenderer({ container, labels: LABELS_ZH, window: { open: vi.fn() } });
    const first = new AbortController();
    const second = new AbortController();
    act(() => {
      void renderer.renderForm(formPrompt(SCHEMA), first.signal);
      void renderer.renderUrl(urlPrompt(URL), second.signal);
    });
    expect(container.childElementCount).toBe(2);
    expect(screen.getByRole('dialog', { name: 'Ops Desk 请求你填写' })).toBeTruthy();
    expect(screen.getByRole('dialog', { name: 'Ops Desk 请求你打开一个链接' })).toBeTruthy();
    act(() => first.abort());
    act(() => second.abort());
    expect(container.childElementCount).toBe(0);
  });
});
