import { describe, expect, it } from 'vitest';
import { createScreen, KEY } from '../../../test/screen.js';
import { urlPrompt } from '../conformance.suite.js';
import { createTerminalRenderer } from './index.js';

describe('terminal renderer: URL consent', () => {
  function consent(url: string) {
    const screen = createScreen();
    const renderer = createTerminalRenderer({ input: screen.input, output: screen.output, opener: () => {} });
    return { screen, answer: renderer.renderUrl(urlPrompt(url), new AbortController().signal) };
  }

  it('shows the full URL, the host on its own, and every warning before asking', async () => {
    const { screen, answer } = consent('http://paypal.com:pw@xn--pypal-4ve.com/login?token=abc');
    const shown = await screen.nextPrompt();
    expect(shown).toContain('http://paypal.com:pw@xn--pypal-4ve.com/login?token=abc');
    expect(shown).toContain('Host:  xn--pypal-4ve.com');
    expect(shown).toContain('Careful: The host xn--pypal-4ve.com uses internationalized characters');
    expect(shown).toContain('Careful: The link uses plain http to xn--pypal-4ve.com');
    expect(shown).toContain('Careful: The link carries a user name or password');
    expect(shown).toContain('Careful: The URL carries a credential in its "token" parameter');
    expect(shown).toMatch(/d\s+Decline[\s\S]*o\s+Open in the browser[\s\S]*c\s+Cancel/);
    screen.press('o');
    expect(await answer).toEqual({ action: 'accept' });
  });

  it('shows who owns the page: the site, beside the host', async () => {
    const screen = createScreen();
    const renderer = createTerminalRenderer({ input: screen.input, output: screen.output, opener: () => {} });
    const prompt = { ...urlPrompt('https://accounts.example.com.evil.test/login'), site: 'evil.test' };
    const answer = renderer.renderUrl(prompt, new AbortController().signal);
    const shown = await screen.nextPrompt();
    expect(shown).toContain('Site:  evil.test  (who owns the page)');
    expect(shown).toContain('Host:  accounts.example.com.evil.test');
    screen.press('d');
    expect(await answer).toEqual({ action: 'decline' });
  });

  it('declines on Enter, so opening always takes a deliberate key', async () => {
    const { screen, answer } = consent('https://example.com/setup');
    await screen.nextPrompt();
    screen.press(KEY.enter);
    expect(await answer).toEqual({ action: 'decline' });
  });

  it('takes no key typed before the link was on screen as the answer', async () => {
    const screen = createScreen();
    const renderer = createTerminalRenderer({ input: screen.input, output: screen.output, opener: () => {} });
    // Typed ahead: before any question, then between two questions on the same input.
    screen.press('o');
    const first = renderer.renderUrl(urlPrompt('https://example.com/one'), new AbortController().signal);
    await screen.nextPrompt();
    screen.press('d');
    expect(await first).toEqual({ action: 'decline' });
    screen.press('o', 'o');
    const second = renderer.renderUrl(urlPrompt('https://example.com/two'), new AbortController().signal);
    expect(await screen.nextPrompt()).toContain('https://example.com/two');
    screen.press('c');
    expect(await second).toEqual({ action: 'cancel' });
  });

  it.each([
    ['c', 'c'],
    ['Ctrl+C', KEY.ctrlC],
  ])('cancels with %s', async (_label, key) => {
    const { screen, answer } = consent('https://example.com/setup');
    await screen.nextPrompt();
    screen.press(key);
    expect(await answer).toEqual({ action: 'cancel' });
  });
});

describe('terminal renderer: the page finished', () => {
  it('says so once the server tells the page is done, after the consent told to finish there', async () => {
    const screen = createScreen();
    const renderer = createTerminalRenderer({ input: screen.input, output: screen.output, opener: () => {} });
    const prompt = urlPrompt('https://example.com/setup');
    const answer = renderer.renderUrl(prompt, new AbortController().signal);
    await screen.nextPrompt();
    screen.press('o');
    expect(await answer).toEqual({ action: 'accept' });
    expect(screen.text()).toContain('Consent given: finish on the page in your browser.');
    expect(screen.text()).not.toContain('Finished on the page');
    renderer.urlCompleted?.(prompt);
    expect(screen.text()).toContain('Finished on the page at example.com.');
  });
});

describe('terminal renderer: availability', () => {
  it('honours both modes with injected streams, and opens with the system browser by default', () => {
    const screen = createScreen();
    const renderer = createTerminalRenderer({ input: screen.input, output: screen.output });
    expect(renderer.modes).toEqual({ form: true, url: true });
    expect(renderer.interactive).toBe(true);
    expect(typeof renderer.opener).toBe('function');
  });
});
