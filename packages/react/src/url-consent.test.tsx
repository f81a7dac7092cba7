// @vitest-environment jsdom
import type { UrlPrompt } from '@elicitkit/client';
import { act, cleanup, render, screen, within } from '@testing-library/react';
import { userEvent } from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { urlPrompt } from '../test/prompts.js';
import { LABELS_ZH } from './labels-zh.js';
import { UrlConsent, type UrlConsentProps } from './url-consent.js';

afterEach(() => {
  cleanup();
  vi.restoreAllMocks();
});

function draw(prompt: UrlPrompt, more: Partial<UrlConsentProps> = {}) {
  const handlers = { onOpen: vi.fn(), onDecline: vi.fn(), onCancel: vi.fn() };
  const open = vi.spyOn(window, 'open').mockReturnValue(null);
  const { rerender } = render(<UrlConsent prompt={prompt} {...handlers} {...more} />);
  const redraw = (next: UrlPrompt, also: Partial<UrlConsentProps> = {}) =>
    rerender(<UrlConsent prompt={next} {...handlers} {...more} {...also} />);
  return { ...handlers, open, redraw, user: userEvent.setup({ delay: null }) };
}

/** A promise the test settles, standing for the answer on its way to the server. */
function sending() {
  let settle!: (taken: boolean | undefined) => void;
  let fail!: (error: Error) => void;
  const promise = new Promise<boolean | undefined>((resolve, reject) => {
    settle = resolve;
    fail = reject;
  });
  return { promise, settle, fail };
}

const button = (name: string) => screen.getByRole('button', { name }) as HTMLButtonElement;

const SAFE = 'https://opsdesk.example.com/password/abc';
const shown = () => document.querySelector('.ek-url')?.textContent;
const host = () => document.querySelector('mark.ek-host')?.textContent;

describe('<UrlConsent>', () => {
  it('shows who asks, the full URL with its host highlighted, and focuses Decline', () => {
    draw(urlPrompt(SAFE));
    expect(screen.getByRole('dialog', { name: 'Ops Desk wants you to open a link' })).toBeTruthy();
    expect(shown()).toBe(SAFE);
    expect(host()).toBe('opsdesk.example.com');
    expect(screen.getByText('opsdesk.example.com', { selector: 'strong' })).toBeTruthy();
    expect(screen.queryByRole('link')).toBeNull(); // text, never a clickable (prefetchable) anchor
    expect(screen.queryByRole('alert')).toBeNull();
    expect(document.activeElement).toBe(screen.getByRole('button', { name: 'Decline' }));
  });

  it('highlights the real host after credentials, and warns about every risk', () => {
    draw(urlPrompt('http://paypal.com:secret@xn--pypal-4ve.com:8080/login?token=abc'));
    expect(host()).toBe('xn--pypal-4ve.com:8080');
    const codes = [...within(screen.getByRole('alert')).getAllByRole('listitem')].map((li) => li.dataset.code);
    expect(codes).toEqual(['punycode', 'insecure', 'credentials', 'token']);
    expect(screen.getByRole('alert').textContent).toContain('it may imitate a familiar name');
  });

  it('opens the link only when Open is clicked, with noopener, then reports consent', async () => {
    const { user, open, onOpen } = draw(urlPrompt(SAFE));
    expect(open).not.toHaveBeenCalled();
    await user.click(screen.getByRole('button', { name: 'Open link' }));
    expect(open).toHaveBeenCalledExactlyOnceWith(SAFE, '_blank', 'noopener,noreferrer');
    expect(onOpen).toHaveBeenCalledOnce();
  });

  it.each([
    ['Enter (Decline has the focus)', '{Enter}'],
    ['Esc', '{Escape}'],
  ])('never opens on %s', async (_name, keys) => {
    const { user, open, onDecline, onCancel, onOpen } = draw(urlPrompt(SAFE));
    await user.keyboard(keys);
    expect(onDecline.mock.calls.length + onCancel.mock.calls.length).toBe(1);
    expect(open).not.toHaveBeenCalled();
    expect(onOpen).not.toHaveBeenCalled();
  });

  it.each(['Decline', 'Cancel'])('never opens on %s', async (name) => {
    const { user, open, onDecline, onCancel, onOpen } = draw(urlPrompt(SAFE));
    await user.click(button(name));
    expect((name === 'Decline' ? onDecline : onCancel).mock.calls.length).toBe(1);
    expect(open).not.toHaveBeenCalled();
    expect(onOpen).not.toHaveBeenCalled();
  });

  it('uses the window it is given', async () => {
    const view = { open: vi.fn(() => null) };
    const { user, open } = draw(urlPrompt(SAFE), { view });
    await user.click(screen.getByRole('button', { name: 'Open link' }));
    expect(view.open).toHaveBeenCalledExactlyOnceWith(SAFE, '_blank', 'noopener,noreferrer');
    expect(open).not.toHaveBeenCalled();
  });

  it('keeps the consent when the browser refuses to open a tab', async () => {
    const view = {
      open: vi.fn(() => {
        throw new DOMException('sandboxed', 'SecurityError');
      }),
    };
    const { user, onOpen } = draw(urlPrompt(SAFE), { view });
    await user.click(screen.getByRole('button', { name: 'Open link' }));
    expect(onOpen).toHaveBeenCalledOnce();
  });

  it.each([
    ['https://accounts.example.com.evil.test/login', 'accounts.example.com.evil.test', 'evil.test'],
    ['https://example.com./reset', 'example.com.', 'example.com'],
    ['http://localhost:3000/pw', 'localhost:3000', 'localhost'],
    ['http://[::1]:8080/pw', '[::1]:8080', '[::1]'],
  ])('shows who owns the page at %s: its site on its own line and marked inside the host', (url, hostText, site) => {
    draw({ ...urlPrompt(url), site });
    expect(host()).toBe(hostText);
    expect(document.querySelector('mark.ek-host .ek-site-part')?.textContent).toBe(site);
    expect(screen.getByText(site, { selector: 'strong.ek-site' })).toBeTruthy();
    expect(document.querySelector('.ek-site-line')?.textContent).toBe(`Site (who owns the page): ${site}`);
  });

  it('marks no part of the host as its site when the site does not end it at a label', () => {
    draw({ ...urlPrompt('https://notevil.test/'), site: 'evil.test' });
    expect(document.querySelector('.ek-site-part')).toBeNull();
    expect(host()).toBe('notevil.test');
  });

  it('highlights nothing when the host is not where the prompt says', () => {
    draw({ ...urlPrompt(SAFE), hostIndex: 0 });
    expect(host()).toBeUndefined();
    expect(shown()).toBe(SAFE);
    expect(screen.getByText('opsdesk.example.com', { selector: 'strong' })).toBeTruthy();
  });

  it.each([
    'javascript:alert(document.cookie)',
    'data:text/html,<script>alert(1)</script>',
    'file:///etc/passwd',
    'not a url',
  ])('never opens %s, from a prompt built without the client’s checks, and says why', async (url) => {
    const { user, open, onOpen, onDecline } = draw({ ...urlPrompt(SAFE), url, host: '', hostIndex: 0 });
    expect(shown()).toBe(url);
    expect(screen.getByRole('alert').textContent).toContain('only https and http links are opened');
    const openButton = screen.getByRole('button', { name: 'Open link' }) as HTMLButtonElement;
    expect(openButton.disabled).toBe(true);
    await user.click(openButton);
    expect(open).not.toHaveBeenCalled();
    expect(onOpen).not.toHaveBeenCalled();
    await user.click(screen.getByRole('button', { name: 'Decline' }));
    expect(onDecline).toHaveBeenCalledOnce();
  });

  it('shows a URL from a prompt built without the client’s checks without its bidi controls', () => {
    // The client's URL reading percent-encodes these; a hand-built prompt may carry them raw.
    draw({ ...urlPrompt(SAFE), url: `${SAFE}/\u202egpj.exe` });
    expect(shown()).toBe(`${SAFE}/gpj.exe`);
  });

  it('speaks Chinese, warnings included', () => {
    draw(urlPrompt('http://example.com/reset'), { labels: LABELS_ZH });
    expect(screen.getByRole('dialog', { name: 'Ops Desk 请求你打开一个链接' }).getAttribute('lang')).toBe('zh-CN');
    expect(screen.getByRole('alert').textContent).toContain('不加密的 http');
    expect(screen.getByRole('button', { name: '打开链接' })).toBeTruthy();
    expect(screen.getByText(/在你选择“打开链接”之前/)).toBeTruthy();
  });
});

describe('<UrlConsent>: one answer per link, and the link opens only once the accept is taken', () => {
  // The host keeps the dialog mounted while the answer is on its way (as the web app does).
  it('a double click on Open sends one accept and opens one tab', async () => {
    const { user, open, onOpen } = draw(urlPrompt(SAFE));
    await user.dblClick(button('Open link'));
    expect(onOpen).toHaveBeenCalledOnce();
    expect(open).toHaveBeenCalledExactlyOnceWith(SAFE, '_blank', 'noopener,noreferrer');
  });

  it.each([
    ['Decline', async (user: ReturnType<typeof userEvent.setup>) => user.click(button('Decline'))],
    ['Cancel', async (user: ReturnType<typeof userEvent.setup>) => user.click(button('Cancel'))],
    ['Esc', async (user: ReturnType<typeof userEvent.setup>) => user.keyboard('{Escape}')],
  ])('after %s, Open neither opens nor sends accept', async (_name, first) => {
    const { user, open, onOpen, onDecline, onCancel } = draw(urlPrompt(SAFE));
    await first(user);
    await user.click(button('Open link'));
    await user.keyboard('{Escape}');
    expect(onDecline.mock.calls.length + onCancel.mock.calls.length).toBe(1);
    expect(onOpen).not.toHaveBeenCalled();
    expect(open).not.toHaveBeenCalled();
  });

  it('after Open, Decline, Cancel and Esc send nothing', async () => {
    const { user, onDecline, onCancel, onOpen } = draw(urlPrompt(SAFE));
    await user.click(button('Open link'));
    await user.click(button('Decline'));
    await user.click(button('Cancel'));
    await user.keyboard('{Escape}');
    expect(onOpen).toHaveBeenCalledOnce();
    expect(onDecline).not.toHaveBeenCalled();
    expect(onCancel).not.toHaveBeenCalled();
  });

  it('opens the link only once the accept it is sending was taken', async () => {
    const answer = sending();
    const { user, open, onOpen } = draw(urlPrompt(SAFE), { onOpen: vi.fn(() => answer.promise) });
    await user.click(button('Open link'));
    expect(screen.getByRole('button', { name: 'Sending…' }).hasAttribute('disabled')).toBe(true);
    await user.keyboard('{Escape}');
    await user.click(button('Decline'));
    expect(open).not.toHaveBeenCalled();
    await act(async () => answer.settle(true));
    expect(open).toHaveBeenCalledExactlyOnceWith(SAFE, '_blank', 'noopener,noreferrer');
    expect(onOpen).not.toHaveBeenCalled(); // the spy of draw(), replaced by the sending one
  });

  it.each([
    ['answers false', (answer: ReturnType<typeof sending>) => answer.settle(false)],
    ['rejects', (answer: ReturnType<typeof sending>) => answer.fail(new Error('offline'))],
  ])('never opens the link when sending the accept %s, and can be answered again', async (_how, fail) => {
    const first = sending();
    const onOpen = vi.fn().mockReturnValueOnce(first.promise).mockReturnValueOnce(true);
    const { user, open, onDecline, redraw } = draw(urlPrompt(SAFE), { onOpen });
    await user.click(button('Open link'));
    await act(async () => fail(first));
    expect(open).not.toHaveBeenCalled();
    redraw(urlPrompt(SAFE), { onOpen, error: 'Your answer was not sent: offline.' });
    expect(screen.getByRole('alert').textContent).toBe('Your answer was not sent: offline.');
    expect(button('Decline').disabled).toBe(false);
    await user.click(button('Open link'));
    expect(onOpen).toHaveBeenCalledTimes(2);
    expect(open).toHaveBeenCalledOnce();
    await user.click(button('Decline'));
    expect(onDecline).not.toHaveBeenCalled();
  });

  it('a decline the host could not send leaves the dialog answerable, and never opens', async () => {
    const { user, open } = draw(urlPrompt(SAFE), { onDecline: () => false });
    await user.click(button('Decline'));
    expect(button('Open link').disabled).toBe(false);
    expect(open).not.toHaveBeenCalled();
  });

  it('opens the link the person consented to, not one that replaced it while the accept was on its way', async () => {
    const answer = sending();
    const { user, open, redraw } = draw(urlPrompt(SAFE), { onOpen: () => answer.promise });
    await user.click(button('Open link'));
    redraw(urlPrompt('https://evil.test/other'), { onOpen: () => answer.promise });
    await act(async () => answer.settle(true));
    expect(open).toHaveBeenCalledExactlyOnceWith(SAFE, '_blank', 'noopener,noreferrer');
  });

  it('a new link is a new question: the answer for the old one does not carry over, and Decline has the focus', async () => {
    const { user, open, onOpen, redraw } = draw(urlPrompt(SAFE));
    button('Open link').focus();
    redraw(urlPrompt('https://evil.test/other'));
    expect(document.activeElement).toBe(button('Decline'));
    await user.click(button('Open link'));
    expect(onOpen).toHaveBeenCalledOnce();
    expect(open).toHaveBeenCalledExactlyOnceWith('https://evil.test/other', '_blank', 'noopener,noreferrer');
    redraw(urlPrompt('https://third.test/x'));
    expect(button('Open link').disabled).toBe(false);
  });

  it('a handler that throws leaves the dialog answerable, and the error reaches the page', async () => {
    const failing = vi.fn(() => {
      throw new Error('boom');
    });
    const seen: unknown[] = [];
    const onError = (event: ErrorEvent) => {
      event.preventDefault();
      seen.push(event.error);
    };
    window.addEventListener('error', onError);
    try {
      const { user, open } = draw(urlPrompt(SAFE), { onOpen: failing });
      await user.click(button('Open link'));
      expect(failing).toHaveBeenCalledOnce();
      expect(seen).toEqual([new Error('boom')]);
      expect(open).not.toHaveBeenCalled();
      expect(button('Open link').disabled).toBe(false);
    } finally {
      window.removeEventListener('error', onError);
    }
  });

  it('with opensLink false, gives consent and leaves the opening to the host', async () => {
    const { user, open, onOpen } = draw(urlPrompt(SAFE), { opensLink: false });
    await user.click(button('Open link'));
    expect(onOpen).toHaveBeenCalledOnce();
    expect(open).not.toHaveBeenCalled();
  });
});
