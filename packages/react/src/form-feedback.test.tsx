// @vitest-environment jsdom
import type { FormSchema, Issue } from '@elicitkit/form';
import { act, cleanup, fireEvent, render, screen } from '@testing-library/react';
import { userEvent } from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { formPrompt } from '../test/prompts.js';
import { ElicitationForm, type ElicitationFormProps } from './elicitation-form.js';

afterEach(cleanup);

const DEPLOY: FormSchema = {
  type: 'object',
  properties: {
    ticket: { type: 'string', title: 'Release ticket', minLength: 4 },
    note: { type: 'string', title: 'Note' },
  },
  required: ['ticket'],
};

const TICKET_ISSUE: Issue = { path: ['ticket'], code: 'custom', message: 'REL-9999 is not an approved ticket.' };
const GENERAL_ISSUE: Issue = { path: [], code: 'custom', message: 'Deployments are frozen until Monday.' };

function draw(props: Partial<ElicitationFormProps> = {}) {
  const handlers = { onSubmit: vi.fn(), onDecline: vi.fn(), onCancel: vi.fn() };
  const prompt = props.prompt ?? formPrompt(DEPLOY);
  const view = render(<ElicitationForm prompt={prompt} {...handlers} {...props} />);
  const redraw = (more: Partial<ElicitationFormProps>) =>
    view.rerender(<ElicitationForm prompt={prompt} {...handlers} {...props} {...more} />);
  return { ...handlers, redraw, user: userEvent.setup({ delay: null }) };
}

const ticket = () => screen.getByLabelText('Release ticket') as HTMLInputElement;
const errorOf = (el: HTMLElement) => document.getElementById(el.getAttribute('aria-errormessage') ?? '')?.textContent;

describe('<ElicitationForm> feedback', () => {
  it('shows serverIssues under their field until it is edited, and the rest in a banner', async () => {
    const { redraw, user, onSubmit } = draw();
    await user.type(ticket(), 'REL-9999');
    await user.keyboard('{Enter}');
    expect(onSubmit).toHaveBeenCalledExactlyOnceWith({ ticket: 'REL-9999' });

    const issues = [TICKET_ISSUE, GENERAL_ISSUE];
    redraw({ serverIssues: issues });
    expect(ticket().getAttribute('aria-invalid')).toBe('true');
    expect(errorOf(ticket())).toBe('REL-9999 is not an approved ticket.');
    const banner = screen.getByRole('alert');
    expect(banner.textContent).toContain('The server did not accept this answer');
    expect(banner.textContent).toContain('Deployments are frozen until Monday.');

    await user.clear(ticket());
    await user.type(ticket(), 'REL-1001');
    expect(ticket().getAttribute('aria-invalid')).toBeNull();
    redraw({ serverIssues: [{ ...TICKET_ISSUE }] }); // a new 400 shows again
    expect(errorOf(ticket())).toBe('REL-9999 is not an approved ticket.');
  });

  it('pre-fills the previous answer when asked again, with why it was refused', async () => {
    const prompt = formPrompt(DEPLOY, {
      attempt: 2,
      previous: { ticket: 'REL', note: 'asap' },
      issues: [
        { path: ['ticket'], code: 'too_short', message: '"Release ticket" needs at least 4 characters.' },
        GENERAL_ISSUE,
      ],
    });
    const { user, onSubmit } = draw({ prompt });
    expect(ticket().value).toBe('REL');
    expect((screen.getByLabelText('Note') as HTMLInputElement).value).toBe('asap');
    expect(errorOf(ticket())).toBe('"Release ticket" needs at least 4 characters.');
    expect(screen.getByRole('alert').textContent).toContain('Your previous answer was not accepted');
    await user.type(ticket(), '-1001');
    await user.click(screen.getByRole('button', { name: 'Submit' }));
    expect(onSubmit).toHaveBeenCalledExactlyOnceWith({ ticket: 'REL-1001', note: 'asap' });
  });

  it('keeps what was typed when the same question is drawn from a new object, starts over for a new one', async () => {
    const { user, redraw } = draw();
    await user.type(ticket(), 'REL-1');
    redraw({ prompt: formPrompt(DEPLOY) });
    expect(ticket().value).toBe('REL-1');
    redraw({ prompt: formPrompt(DEPLOY, { previous: { ticket: 'REL-2002' } }) });
    expect(ticket().value).toBe('REL-2002');
  });

  it('starts over for the same question from another server: what was typed for one is never sent to the other', async () => {
    const { user, redraw, onSubmit } = draw({ source: 'opsdesk' });
    await user.type(ticket(), 'REL-1001');
    // Another configured server asks the very same question (it may even claim the same identity).
    redraw({ source: 'weather' });
    expect(ticket().value).toBe('');
    await user.type(ticket(), 'REL-2');
    redraw({ source: 'weather', prompt: { ...formPrompt(DEPLOY), server: { name: 'weather', version: '2.0.0' } } });
    expect(ticket().value).toBe('');
    await user.keyboard('{Enter}');
    expect(onSubmit).not.toHaveBeenCalled();
  });

  it('judges a new question afresh: a confirmation warning given for the one before is not carried over', async () => {
    const confirm = (message: string) =>
      formPrompt(
        {
          type: 'object',
          properties: { agree: { type: 'boolean', title: 'I confirm the deployment', default: false } },
        },
        { message },
      );
    const { user, redraw, onSubmit } = draw({ prompt: confirm('Deploy order-service to staging?') });
    await user.click(screen.getByRole('button', { name: 'Submit' }));
    expect(screen.getByRole('alert').textContent).toContain('a confirmation is unticked');
    redraw({ prompt: confirm('Deploy payment-service to prod?') });
    expect(screen.queryByRole('alert')).toBeNull();
    await user.click(screen.getByRole('button', { name: 'Submit' }));
    // The first Submit of the new question warns; it does not send the unticked box.
    expect(onSubmit).not.toHaveBeenCalled();
    expect(screen.getByRole('alert').textContent).toContain('a confirmation is unticked');
  });

  it('while busy, Submit says so and every action waits (one answer per question)', async () => {
    const { user, onSubmit, onDecline, onCancel } = draw({
      busy: true,
      prompt: formPrompt(DEPLOY, { previous: { ticket: 'REL-1001' } }),
    });
    const sending = screen.getByRole('button', { name: 'Sending…' }) as HTMLButtonElement;
    expect(sending.disabled).toBe(true);
    await user.click(sending);
    await user.type(ticket(), '{Enter}');
    expect(onSubmit).not.toHaveBeenCalled();
    expect((screen.getByRole('button', { name: 'Decline' }) as HTMLButtonElement).disabled).toBe(true);
    await user.click(screen.getByRole('button', { name: 'Decline' }));
    await user.keyboard('{Escape}');
    expect(onDecline).not.toHaveBeenCalled();
    expect(onCancel).not.toHaveBeenCalled();
  });

  it('shows an error given by the host', () => {
    draw({ error: 'The answer could not be sent: network down.' });
    expect(screen.getByRole('alert').textContent).toBe('The answer could not be sent: network down.');
  });

  it('warns prominently about a secret and masks its input', () => {
    const prompt = formPrompt({
      type: 'object',
      properties: { user: { type: 'string', title: 'User' }, password: { type: 'string', title: 'Password' } },
    });
    expect(prompt.secretFields).toEqual(['password']);
    draw({ prompt });
    const alert = screen.getByRole('alert');
    expect(alert.textContent).toContain('This form asks for a secret');
    expect(alert.textContent).toContain('“Password”: servers should never ask for passwords');
    expect(screen.getByLabelText('Password')).toMatchObject({ type: 'password', autocomplete: 'off' });
    expect(screen.getByLabelText('User')).toMatchObject({ type: 'text' });
  });

  it('lists the lint findings of the form', () => {
    draw({ prompt: formPrompt({ type: 'object', properties: { ticket_no: { type: 'string' } } }, { message: 'ok?' }) });
    const findings = screen.getByText('This form breaks Elicitkit rules').parentElement;
    expect(findings?.textContent).toContain('EK07');
    expect(findings?.textContent).toContain('EK11');
    expect(screen.getByLabelText('Ticket no')).toBeTruthy(); // humanized key, no title
  });

  it('names an unidentified server as such', () => {
    draw({ prompt: { ...formPrompt(DEPLOY), server: undefined } });
    expect(screen.getByRole('dialog', { name: 'An unidentified server asks' })).toBeTruthy();
  });

  it('removes bidi overrides and control characters from what the server wrote', () => {
    const prompt = formPrompt(DEPLOY, { message: 'Pay \u202eRSU 001\u202c now\u0007' });
    draw({ prompt: { ...prompt, server: { name: 'evil\u202e', version: '1' } } });
    expect(screen.getByText('Pay RSU 001 now')).toBeTruthy();
    expect(screen.getByRole('dialog', { name: 'evil asks' })).toBeTruthy();
  });
  it("shows a blurred field's error only after the press that moved focus, so the pressed control stays put", async () => {
    draw();
    const note = screen.getByLabelText('Note');
    await userEvent.setup({ delay: null }).type(ticket(), 'REL');
    // A press on another control blurs the ticket between pointerdown and pointerup.
    fireEvent.pointerDown(note);
    act(() => note.focus());
    expect(errorOf(ticket())).toBeUndefined();
    fireEvent.pointerUp(note);
    expect(errorOf(ticket())).toBeUndefined(); // the click is dispatched first
    await act(() => new Promise((resolve) => setTimeout(resolve, 5)));
    expect(errorOf(ticket())).toMatch(/4/);
    // Without a press (Tab), the error shows at once.
    cleanup();
    draw();
    await userEvent.setup({ delay: null }).type(ticket(), 'REL');
    act(() => screen.getByLabelText('Note').focus());
    expect(errorOf(ticket())).toMatch(/4/);
  });
});
