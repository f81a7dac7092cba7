/**
 * The person's cancel ends the call: the terminal says "the operation stops here". Was: on 2025
 * each question is a request of its own, so a server that asked again after the cancel (rule EK05)
 * had its next question drawn and answered as if nothing had happened, and the success it then
 * returned exited 0. Now a question after the person's cancel is answered cancel unseen, said on
 * stderr, and a success after it exits 3 with a warning. The CLI in a real pseudo-terminal.
 */
import { fileURLToPath } from 'node:url';
import { stripVTControlCharacters } from 'node:util';
import type { FormAnswer, FormPrompt, Renderer, UrlAnswer, UrlPrompt } from '@elicitkit/client';
import { afterEach, describe, expect, it } from 'vitest';
import { callInTerminal, type TerminalSession } from '../test/terminal-session.js';
import { cancelEndsCall } from './cancel-ends-call.js';

const SERVER = fileURLToPath(new URL('../test/typed-ahead-server.mjs', import.meta.url));

let session: TerminalSession | undefined;
afterEach(() => session?.close());

describe.skipIf(process.platform !== 'linux')('after the person cancels', () => {
  it('the server asking again is answered cancel unseen; its success exits 3 with a warning (EK05)', async () => {
    session = callInTerminal(['goes-on', '--revision', '2025-11-25', '--', process.execPath, SERVER]);
    await session.until('Answer this question?');
    session.type('c');
    // Drawn again, the question would wait for a key: told apart from an exit within 20 s.
    const code = await Promise.race([session.exited(), new Promise((resolve) => setTimeout(resolve, 20_000, -1))]);
    // One question drawn (each starts with who asks), and the cancelled call's result.
    expect(stripVTControlCharacters(session.screen()).split('typed-ahead v1.0.0 asks:')).toHaveLength(2);
    expect(code, session.screen()).toBe(3);
    expect(session.screen()).toContain('answered cancel, then cancel');
    expect(session.screen()).toContain('the server asked again after you cancelled (rule EK05');
    expect(session.screen()).toContain('went on to return a result (rule EK05');
  }, 60_000);
});

describe('cancelEndsCall', () => {
  const form = { mode: 'form', message: 'Which ticket?' } as FormPrompt;
  /** Answers each question with the next of `answers`, aborting its signal first when told to. */
  function person(answers: ('accept' | 'cancel')[]): Renderer & { shown: number } {
    const r = {
      shown: 0,
      modes: { form: true, url: true },
      interactive: true,
      renderForm: async () => ({ action: answers[r.shown++] ?? 'cancel', content: {} }) as FormAnswer,
      renderUrl: async () => ({ action: answers[r.shown++] ?? 'cancel' }) as UrlAnswer,
    };
    return r;
  }

  it('a cancel because the question was stopped (its signal aborted) is not the person’s: the next is shown', async () => {
    const inner = person(['cancel', 'accept']);
    const again: string[] = [];
    const renderer = cancelEndsCall(inner, (p) => again.push(p.message));
    const stopped = new AbortController();
    stopped.abort();
    expect(await renderer.renderForm(form, stopped.signal)).toMatchObject({ action: 'cancel' });
    expect(renderer.cancelled()).toBe(false);
    expect(await renderer.renderForm(form, new AbortController().signal)).toMatchObject({ action: 'accept' });
    expect([inner.shown, again]).toEqual([2, []]);
  });

  it('after the person’s cancel, forms and links alike are answered cancel unseen, each told', async () => {
    const inner = person(['cancel']);
    const again: string[] = [];
    const renderer = cancelEndsCall(inner, (p) => again.push(p.message));
    const live = new AbortController().signal;
    await renderer.renderForm(form, live);
    expect(renderer.cancelled()).toBe(true);
    expect(await renderer.renderForm(form, live)).toEqual({ action: 'cancel' });
    expect(await renderer.renderUrl({ mode: 'url', message: 'Sign in.' } as UrlPrompt, live)).toEqual({
      action: 'cancel',
    });
    expect([inner.shown, again]).toEqual([1, ['Which ticket?', 'Sign in.']]);
  });
});
