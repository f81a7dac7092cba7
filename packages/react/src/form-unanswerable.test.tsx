// @vitest-environment jsdom
import type { FormSchema } from '@elicitkit/form';
import { cleanup, render, screen } from '@testing-library/react';
import { userEvent } from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { formPrompt } from '../test/prompts.js';
import { ElicitationForm } from './elicitation-form.js';
import { LABELS_EN } from './labels.js';
import { LABELS_ZH } from './labels-zh.js';

// A question whose field name or choice holds half a character (a lone UTF-16 surrogate) can be
// filled in but never sent: no answer may carry the half, and every Submit would be refused. The
// form says so up front and offers only Decline and Cancel (and Esc).

afterEach(cleanup);

const HALF_CHOICE: FormSchema = {
  type: 'object',
  properties: { env: { type: 'string', title: 'Environment', enum: ['dev', 'prod\udc00'] } },
  required: ['env'],
};
const HALF_NAME: FormSchema = {
  type: 'object',
  properties: { 'ticket\ud800': { type: 'string', title: 'Release ticket' } },
};

function draw(schema: FormSchema, labels = LABELS_EN) {
  const handlers = { onSubmit: vi.fn(), onDecline: vi.fn(), onCancel: vi.fn() };
  render(<ElicitationForm prompt={formPrompt(schema)} labels={labels} {...handlers} />);
  return { ...handlers, user: userEvent.setup({ delay: null }) };
}

describe('<ElicitationForm>: a question no answer can carry', () => {
  it.each([
    ['a choice', HALF_CHOICE, 'a choice of “Environment” holds half of a character'],
    ['a field name', HALF_NAME, 'the name of “Release ticket” holds half of a character'],
  ])('half a character in %s: said up front, no fields, no Submit; Decline declines', async (_, schema, said) => {
    const { user, onDecline, onSubmit } = draw(schema);
    expect(screen.getByRole('alert').textContent).toContain(said);
    expect(screen.getByRole('alert').textContent).toContain('cannot be answered as sent');
    expect(screen.queryByRole('button', { name: 'Submit' })).toBeNull();
    expect(screen.queryByRole('textbox')).toBeNull();
    expect(screen.queryByRole('radio')).toBeNull();
    await user.click(screen.getByRole('button', { name: 'Decline' }));
    expect(onDecline).toHaveBeenCalledTimes(1);
    expect(onSubmit).not.toHaveBeenCalled();
  });

  it('Esc and Cancel cancel it, once', async () => {
    const { user, onCancel } = draw(HALF_CHOICE);
    await user.keyboard('{Escape}');
    await user.click(screen.getByRole('button', { name: 'Cancel' }));
    expect(onCancel).toHaveBeenCalledTimes(1);
  });

  it('in Chinese labels, the reason in Chinese', () => {
    draw(HALF_CHOICE, LABELS_ZH);
    expect(screen.getByRole('alert').textContent).toContain('无法按原样回答');
    expect(screen.getByRole('button', { name: LABELS_ZH.decline })).toBeTruthy();
    expect(screen.queryByRole('button', { name: LABELS_ZH.submit })).toBeNull();
  });

  it('labels of an earlier version (no unanswerable) still say it, in English', () => {
    const { unanswerable: _, ...older } = LABELS_ZH;
    draw(HALF_CHOICE, older);
    expect(screen.getByRole('alert').textContent).toContain('cannot be answered as sent');
  });

  it('half a character only in a title: an ordinary form', () => {
    draw({ type: 'object', properties: { env: { type: 'string', title: 'Envir\ud800onment' } } });
    expect(screen.queryByRole('alert')).toBeNull();
    expect(screen.getByRole('button', { name: 'Submit' })).toBeTruthy();
  });
});
