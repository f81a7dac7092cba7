// @vitest-environment jsdom
import type { UrlPrompt } from '@elicitkit/client';
import { cleanup, render, screen, within } from '@testing-library/react';
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
  render(<UrlConsent prompt={prompt} {...handlers} {...more} />);
  return { ...handlers, open, user: userEvent.setup({ delay: null }) };
}

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

  it('never opens on Decline, Cancel, Esc or Enter', async () => {
    const { user, open, onDecline, onCancel, onOpen } = draw(urlPrompt(SAFE));
    await user.keyboard('{Enter}');
    await user.click(screen.getByRole('button', { name: 'Cancel' }));
    await user.keyboard('{Escape}');
    expect(onDecline).toHaveBeenCalledOnce();
    expect(onCancel).toHaveBeenCalledTimes(2);
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
