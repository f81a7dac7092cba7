/**
 * Drives the terminal renderer for the conformance suite: each intent becomes the keystrokes a
 * person would press (arrows, space, y/n, typed text, Enter, Esc), sent prompt by prompt.
 */
import { S_STEP_ERROR } from '@clack/prompts';
import type { ContentValue, FieldModel } from '@elicitkit/form';
import type { FieldStep, RendererDriver, Step, UrlChoice } from '../src/renderers/conformance.suite.js';
import { createTerminalRenderer } from '../src/renderers/terminal/index.js';
import type { FormPrompt } from '../src/types.js';
import { createScreen, KEY, type Screen } from './screen.js';

export function terminalDriver(): RendererDriver {
  return {
    inlineValidation: true,
    reviewEdit: true,
    prefillsDefaults: true,
    async answerForm(prompt, steps) {
      const screen = createScreen();
      const controller = new AbortController();
      const renderer = createTerminalRenderer({ input: screen.input, output: screen.output, opener: () => {} });
      const answer = renderer.renderForm(prompt, controller.signal);
      await playForm(screen, controller, prompt, [...steps]);
      return answer;
    },
    async answerUrl(prompt, choice: UrlChoice) {
      const screen = createScreen();
      const controller = new AbortController();
      const renderer = createTerminalRenderer({ input: screen.input, output: screen.output, opener: () => {} });
      const answer = renderer.renderUrl(prompt, controller.signal);
      await screen.nextPrompt();
      const keys = { open: 'o', decline: 'd', cancel: KEY.esc } as const;
      if (choice === 'withdraw') controller.abort();
      else screen.press(keys[choice]);
      return answer;
    },
  };
}

async function playForm(screen: Screen, controller: AbortController, prompt: FormPrompt, steps: Step[]) {
  const values = new Map<string, ContentValue | undefined>(
    prompt.fields.map((f) => [f.name, prompt.previous?.[f.name] ?? f.default]),
  );
  await screen.nextPrompt();
  const first = steps[0];
  if (first && ending(screen, controller, first)) return;
  screen.press('a');
  for (const field of prompt.fields) {
    await screen.nextPrompt();
    const next = steps[0];
    // Decline waits for the review step; cancel and withdrawal happen right where the person is.
    if (next && !('decline' in next) && ending(screen, controller, next)) return;
    const mine: FieldStep[] = [];
    while (steps[0] && 'field' in steps[0] && steps[0].field === field.name) mine.push(steps.shift() as FieldStep);
    if (mine.length === 0) screen.press(KEY.enter);
    for (const step of mine) await perform(screen, field, values, step);
  }
  let warned = false;
  for (;;) {
    await screen.nextPrompt();
    const step = steps.shift();
    if (!step) throw new Error('The steps ended before the form was answered.');
    if (ending(screen, controller, step)) return;
    if ('submit' in step) {
      screen.press('s');
      // A person who leaves a confirmation unticked on purpose chooses Submit again past the warning.
      if (!warned && prompt.fields.some((f) => f.kind === 'boolean' && f.confirmation && values.get(f.name) !== true)) {
        warned = true;
        await screen.nextPrompt();
        screen.press('s');
      }
      return;
    }
    if (!('edit' in step)) throw new Error(`Cannot play ${JSON.stringify(step)} at the review step.`);
    const index = prompt.fields.findIndex((f) => f.name === step.edit.field);
    const field = prompt.fields[index];
    if (!field) throw new Error(`No field ${step.edit.field}.`);
    screen.press('e');
    await screen.nextPrompt();
    screen.press(...Array<string>(index).fill(KEY.down), KEY.enter);
    await screen.nextPrompt();
    await perform(screen, field, values, step.edit);
  }
}

/** Decline, cancel and withdraw, where the person is. Returns true when the step ends the form. */
function ending(screen: Screen, controller: AbortController, step: Step): boolean {
  if ('withdraw' in step) controller.abort();
  else if ('cancel' in step) screen.press(KEY.esc);
  else if ('decline' in step) {
    screen.press('d');
  } else return false;
  return true;
}

async function perform(
  screen: Screen,
  field: FieldModel,
  values: Map<string, ContentValue | undefined>,
  step: FieldStep,
): Promise<void> {
  const current = values.get(field.name);
  if ('keep' in step) {
    screen.press(KEY.enter);
  } else if ('choose' in step) {
    if (field.kind !== 'select') throw new Error(`${field.name} is not a select.`);
    const from = Math.max(
      0,
      field.options.findIndex((o) => o.value === current),
    );
    const to = field.options.findIndex((o) => o.value === step.choose);
    const count = field.options.length + (field.required ? 0 : 1);
    screen.press(...Array<string>((to - from + count) % count).fill(KEY.down), KEY.enter);
    values.set(field.name, step.choose);
  } else if ('toggle' in step) {
    if (field.kind !== 'multiselect') throw new Error(`${field.name} is not a multi-select.`);
    let cursor = 0;
    const keys: string[] = [];
    for (const value of step.toggle) {
      const to = field.options.findIndex((o) => o.value === value);
      keys.push(
        ...Array<string>((to - cursor + field.options.length) % field.options.length).fill(KEY.down),
        KEY.space,
      );
      cursor = to;
    }
    screen.press(...keys, KEY.enter);
  } else if ('set' in step) {
    screen.press(step.set ? 'y' : 'n');
  } else {
    screen.press(KEY.clearLine, ...Array.from(step.type), KEY.enter);
    if (step.rejected) await screen.waitFor(S_STEP_ERROR);
  }
}
