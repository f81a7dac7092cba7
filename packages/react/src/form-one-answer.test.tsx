// @vitest-environment jsdom
/**
 * One answer per question: once Submit, Decline, Cancel, Esc or Enter in a field has given the
 * answer, nothing else answers it while it is on its way or once it was taken; the host's handler
 * says when it was not taken (it returns false, or a promise that resolves false or rejects), or
 * shows a new error or new serverIssues, and only then can the person answer again.
 */
import type { FormSchema } from '@elicitkit/form';
import { act, cleanup, render, screen } from '@testing-library/react';
import { type UserEvent, userEvent } from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { formPrompt } from '../test/prompts.js';
import { ElicitationForm, type ElicitationFormProps } from './elicitation-form.js';

afterEach(cleanup);

const DEPLOY: FormSchema = {
  type: 'object',
  properties: {
    ticket: { type: 'string', title: 'Release ticket', minLength: 4, default: 'REL-1001' },
    note: { type: 'string', title: 'Note' },
  },
  required: ['ticket'],
};

function draw(props: Partial<ElicitationFormProps> = {}) {
  const handlers = { onSubmit: vi.fn(), onDecline: vi.fn(), onCancel: vi.fn() };
  const prompt = props.prompt ?? formPrompt(DEPLOY);
  const view = render(<ElicitationForm prompt={prompt} {...handlers} {...props} />);
  const redraw = (more: Partial<ElicitationFormProps>) =>
    view.rerender(<ElicitationForm prompt={prompt} {...handlers} {...props} {...more} />);
  return { ...handlers, redraw, user: userEvent.setup({ delay: null }) };
}

/** A handler's answer on its way, settled by the test. */
function sending() {
  let settle: (taken: boolean) => void = () => {};
  let fail: (error: Error) => void = () => {};
  const promise = new Promise<boolean>((resolve, reject) => {
    settle = resolve;
    fail = reject;
  });
  return { promise, settle, fail };
}

const button = (name: string) => screen.getByRole('button', { name }) as HTMLButtonElement;
/** Submit, or what it says while the answer is on its way. */
const submitButton = () => screen.getByRole('button', { name: /^(Submit|Sending…)$/ }) as HTMLButtonElement;
const note = () => screen.getByLabelText('Note') as HTMLInputElement;
const answers = (h: {
  onSubmit: { mock: { calls: unknown[] } };
  onDecline: typeof h.onSubmit;
  onCancel: typeof h.onSubmit;
}) => h.onSubmit.mock.calls.length + h.onDecline.mock.calls.length + h.onCancel.mock.calls.length;

type Act = [string, (user: UserEvent) => Promise<void>];
const EVERY_ACTION: Act[] = [
  ['Submit', (user) => user.click(button('Submit'))],
  ['Enter in a field', (user) => user.type(note(), '{Enter}')],
  ['Decline', (user) => user.click(button('Decline'))],
  ['Cancel', (user) => user.click(button('Cancel'))],
  ['Esc', (user) => user.keyboard('{Escape}')],
];

describe('<ElicitationForm>: one answer per question', () => {
  it.each(EVERY_ACTION)('after %s, no other action answers the question again', async (_name, first) => {
    for (const [, then] of EVERY_ACTION) {
      const h = draw();
      await first(h.user);
      expect(answers(h)).toBe(1);
      // Whatever the button still says, pressing it (or Esc, or Enter) sends nothing more.
      await act(() => then(h.user).catch(() => undefined));
      expect(answers(h)).toBe(1);
      cleanup();
    }
  });

  it('a double click on Submit sends one answer', async () => {
    const h = draw();
    await h.user.dblClick(button('Submit'));
    expect(h.onSubmit).toHaveBeenCalledOnce();
  });

  it('while a Submit is on its way every button is disabled and nothing answers', async () => {
    const answer = sending();
    const onSubmit = vi.fn(() => answer.promise);
    const h = draw({ onSubmit });
    await h.user.click(button('Submit'));
    expect(button('Sending…').disabled).toBe(true);
    expect(button('Decline').disabled).toBe(true);
    expect(button('Cancel').disabled).toBe(true);
    await h.user.keyboard('{Escape}');
    await h.user.type(note(), '{Enter}');
    expect(h.onDecline).not.toHaveBeenCalled();
    expect(h.onCancel).not.toHaveBeenCalled();
    expect(onSubmit).toHaveBeenCalledOnce();
    await act(async () => answer.settle(true));
    // Taken: still nothing more.
    await h.user.click(button('Decline'));
    await h.user.keyboard('{Escape}');
    expect(h.onDecline).not.toHaveBeenCalled();
    expect(h.onCancel).not.toHaveBeenCalled();
  });

  it.each([
    ['answers false', (a: ReturnType<typeof sending>) => a.settle(false)],
    ['rejects', (a: ReturnType<typeof sending>) => a.fail(new Error('offline'))],
  ])('a Submit whose sending %s leaves the form answerable', async (_how, fail) => {
    const first = sending();
    const onSubmit = vi.fn().mockReturnValueOnce(first.promise).mockReturnValueOnce(true);
    const h = draw({ onSubmit });
    await h.user.click(button('Submit'));
    await act(async () => fail(first));
    expect(button('Submit').disabled).toBe(false);
    expect(button('Decline').disabled).toBe(false);
    await h.user.click(button('Submit'));
    expect(onSubmit).toHaveBeenCalledTimes(2);
    await h.user.click(button('Decline'));
    expect(h.onDecline).not.toHaveBeenCalled();
  });

  it('a decline the host could not send (false) leaves the form answerable', async () => {
    const onDecline = vi.fn(() => false);
    const h = draw({ onDecline });
    await h.user.click(button('Decline'));
    expect(button('Submit').disabled).toBe(false);
    await h.user.click(button('Submit'));
    expect(h.onSubmit).toHaveBeenCalledOnce();
  });

  it('a host that returns nothing and then shows a refusal (serverIssues or an error) reopens the form', async () => {
    const h = draw();
    await h.user.click(button('Submit'));
    await h.user.click(button('Decline'));
    expect(h.onDecline).not.toHaveBeenCalled();
    h.redraw({ serverIssues: [{ path: ['ticket'], code: 'custom', message: 'REL-1001 is not approved.' }] });
    await h.user.click(button('Submit'));
    expect(h.onSubmit).toHaveBeenCalledTimes(2);
    h.redraw({ error: 'The answer could not be sent: network down.' });
    await h.user.click(button('Decline'));
    expect(h.onDecline).toHaveBeenCalledOnce();
  });

  it('while the host says busy, every action waits', async () => {
    const h = draw({ busy: true });
    for (const name of ['Sending…', 'Decline', 'Cancel']) expect(button(name).disabled).toBe(true);
    await h.user.type(note(), '{Enter}');
    await h.user.keyboard('{Escape}');
    expect(answers(h)).toBe(0);
  });

  it('a handler that returns nothing, with a host driving busy: answerable again only once busy ends', async () => {
    const h = draw();
    await h.user.click(button('Submit'));
    h.redraw({ busy: true });
    await h.user.click(button('Decline'));
    h.redraw({ busy: false });
    await h.user.click(button('Decline'));
    expect(h.onDecline).toHaveBeenCalledOnce();
    expect(h.onSubmit).toHaveBeenCalledOnce();
  });

  it('an answer the handler said was taken stays taken when the host’s busy ends', async () => {
    const onSubmit = vi.fn(() => Promise.resolve(true));
    const h = draw({ onSubmit });
    await h.user.click(button('Submit'));
    h.redraw({ onSubmit, busy: true });
    h.redraw({ onSubmit, busy: false });
    await h.user.click(button('Decline'));
    await h.user.click(button('Submit'));
    expect(h.onDecline).not.toHaveBeenCalled();
    expect(onSubmit).toHaveBeenCalledOnce();
  });

  it('a handler that throws leaves the form answerable, and the error reaches the page', async () => {
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
      const h = draw({ onDecline: failing });
      await h.user.click(button('Decline'));
      expect(seen).toEqual([new Error('boom')]);
      await h.user.click(button('Cancel'));
      expect(h.onCancel).toHaveBeenCalledOnce();
    } finally {
      window.removeEventListener('error', onError);
    }
  });

  it('a new question is answerable again', async () => {
    const h = draw();
    await h.user.click(button('Submit'));
    h.redraw({ prompt: formPrompt(DEPLOY, { message: 'And again?' }) });
    await h.user.click(button('Decline'));
    expect(h.onDecline).toHaveBeenCalledOnce();
  });

  it.each([
    ['another try of it', { attempt: 2 }],
    ['the same question from another server', { server: { name: 'other', version: '1' } }],
  ])('%s is a new question, answerable again', async (_label, change) => {
    const h = draw();
    await h.user.click(button('Submit'));
    h.redraw({ prompt: formPrompt(DEPLOY, change) });
    await h.user.click(button('Decline'));
    expect(h.onDecline).toHaveBeenCalledOnce();
  });

  // A chat host re-creates its message parts while it streams: the same question, a new object.
  it.each([
    ['taken', () => true],
    ['on its way', () => sending().promise],
  ])('the same question drawn anew (a rebuilt prompt) stays answered once %s', async (_label, taken) => {
    const submit = vi.fn(taken);
    const h = draw({ onSubmit: submit });
    await h.user.click(button('Submit'));
    expect(submit).toHaveBeenCalledOnce();
    for (let i = 0; i < 3; i++) {
      h.redraw({ prompt: formPrompt(DEPLOY) });
      expect(submitButton().disabled).toBe(true);
    }
    await act(() => h.user.click(submitButton()).catch(() => undefined));
    await act(() => h.user.click(button('Decline')).catch(() => undefined));
    await act(() => h.user.keyboard('{Escape}'));
    expect(submit).toHaveBeenCalledOnce();
    expect(h.onDecline).not.toHaveBeenCalled();
    expect(h.onCancel).not.toHaveBeenCalled();
  });
});
