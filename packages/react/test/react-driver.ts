/**
 * Drives `createDomRenderer` for the renderer conformance suite: each intent becomes what a
 * person does in the browser (user-event clicks, typing, Tab, Esc) on the mounted dialog, found
 * by its accessible names, the way a screen-reader user would find it.
 */
import type { FieldModel } from '@elicitkit/form';
import { act, within } from '@testing-library/react';
import { type UserEvent, userEvent } from '@testing-library/user-event';
import { expect, vi } from 'vitest';
import type { FieldStep, RendererDriver, Step, UrlChoice } from '../../client/src/renderers/conformance.suite.js';
import type { Renderer } from '../../client/src/types.js';
import { RADIO_LIMIT } from '../src/choice-inputs.js';
import { isoToLocal } from '../src/date-time.js';
import { createDomRenderer } from '../src/dom-renderer.js';
import { LABELS_EN } from '../src/labels.js';

interface MountedQuestion<A> {
  dialog: HTMLElement;
  user: UserEvent;
  controller: AbortController;
  open: ReturnType<typeof vi.fn>;
  /** Waits for the answer and checks that the question left no trace in the page. */
  answer: () => Promise<A>;
}

/** Mounts one question the way `attach` would ask it. */
export function ask<A>(render: (renderer: Renderer, signal: AbortSignal) => Promise<A>): MountedQuestion<A> {
  const container = document.createElement('div');
  document.body.append(container);
  const open = vi.fn(() => null);
  const controller = new AbortController();
  const renderer = createDomRenderer({ container, window: { open } });
  let pending!: Promise<A>;
  act(() => {
    pending = render(renderer, controller.signal);
  });
  return {
    dialog: within(container).getByRole('dialog'),
    user: userEvent.setup({ delay: null }),
    controller,
    open,
    answer: async () => {
      const result = await pending;
      expect(container.childElementCount).toBe(0);
      container.remove();
      return result;
    },
  };
}

export function reactDriver(): RendererDriver {
  return {
    inlineValidation: true,
    // The form is its own review step: every answer stays on screen and editable until Submit.
    reviewEdit: true,
    prefillsDefaults: true,
    async answerForm(prompt, steps) {
      const question = ask((renderer, signal) => renderer.renderForm(prompt, signal));
      for (const step of steps) await play(question, prompt.fields, step);
      return question.answer();
    },
    async answerUrl(prompt, choice: UrlChoice) {
      const question = ask((renderer, signal) => renderer.renderUrl(prompt, signal));
      const { dialog, user } = question;
      // Decline has the focus, so a stray Enter never opens a link.
      expect(document.activeElement).toBe(within(dialog).getByRole('button', { name: LABELS_EN.decline }));
      if (choice === 'withdraw') act(() => question.controller.abort());
      else if (choice === 'cancel') await user.keyboard('{Escape}');
      else
        await user.click(
          within(dialog).getByRole('button', { name: choice === 'open' ? LABELS_EN.open : LABELS_EN.decline }),
        );
      const answer = await question.answer();
      // The click is consent and no more: the renderer's opener opens the link once attach took it.
      expect(question.open).not.toHaveBeenCalled();
      return answer;
    },
  };
}

async function play(question: MountedQuestion<unknown>, fields: FieldModel[], step: Step): Promise<void> {
  const { dialog, user } = question;
  const button = (name: string) => within(dialog).getByRole('button', { name });
  if ('withdraw' in step) act(() => question.controller.abort());
  else if ('cancel' in step) await user.keyboard('{Escape}');
  else if ('decline' in step) await user.click(button(LABELS_EN.decline));
  else if ('submit' in step) {
    await user.click(button(LABELS_EN.submit));
    // A person who leaves a confirmation unticked on purpose presses Submit again past the warning.
    if (within(dialog).queryByText(/confirmations? (is|are) unticked/)) await user.click(button(LABELS_EN.submit));
  } else {
    const intent = 'edit' in step ? step.edit : step;
    const field = fields.find((f) => f.name === intent.field);
    if (!field) throw new Error(`No field ${intent.field}.`);
    await perform(user, within(dialog), field, intent);
  }
}

async function perform(
  user: UserEvent,
  dialog: ReturnType<typeof within>,
  field: FieldModel,
  step: FieldStep,
): Promise<void> {
  if ('keep' in step) return;
  if ('choose' in step) {
    if (field.kind !== 'select') throw new Error(`${field.name} is not a select.`);
    const option = field.options.find((o) => o.value === step.choose);
    if (!option) throw new Error(`${field.name} has no option ${step.choose}.`);
    if (field.options.length > RADIO_LIMIT) await user.selectOptions(dialog.getByLabelText(field.label), option.value);
    else
      await user.click(
        within(dialog.getByRole('group', { name: field.label })).getByRole('radio', { name: option.label }),
      );
  } else if ('toggle' in step) {
    if (field.kind !== 'multiselect') throw new Error(`${field.name} is not a multi-select.`);
    const group = within(dialog.getByRole('group', { name: field.label }));
    for (const value of step.toggle) {
      const option = field.options.find((o) => o.value === value);
      if (!option) throw new Error(`${field.name} has no option ${value}.`);
      await user.click(group.getByRole('checkbox', { name: option.label }));
    }
  } else if ('set' in step) {
    const box = dialog.getByRole('checkbox', { name: field.label }) as HTMLInputElement;
    if (box.checked !== step.set) await user.click(box);
  } else {
    const input = dialog.getByLabelText(field.label) as HTMLInputElement;
    // A datetime-local input takes the person's local time; the renderer adds their offset.
    const text = field.kind === 'date-time' ? isoToLocal(step.type) : step.type;
    await user.clear(input);
    if (text !== '') await user.type(input, text.replace(/[{[]/g, '$&$&'));
    await user.tab();
    if (step.rejected) {
      expect(input.getAttribute('aria-invalid')).toBe('true');
      const error = document.getElementById(input.getAttribute('aria-errormessage') ?? '');
      expect(error?.textContent).toMatch(/\S/);
    } else expect(input.getAttribute('aria-invalid')).toBeNull();
  }
}
