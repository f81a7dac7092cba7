import type { FormSchema } from '@elicitkit/form';
import { describe, expect, it } from 'vitest';
import { createScreen, KEY } from '../../../test/screen.js';
import { formPrompt } from '../conformance.suite.js';
import { createTerminalRenderer } from './index.js';

// Every key press redraws the list. The whole list was wrapped for each redraw, shown or not: on
// 1,000 options (the most a field may offer) each arrow key cost 20 times what it did on 40, and
// a hostile server's labels cost as much as they were long (20 options of 80,000 characters held
// each key for over a second). What is drawn is a screenful; so is the cost. Measured as CPU
// time against the smaller case through the same renderer, as the hostile text checks do: never
// a wall-clock time.
const PRESSES = 5;

/** A required single choice whose option `i` reads `option-i` followed by `length` characters of words. */
function choice(count: number, length: number): FormSchema {
  const words = 'word '.repeat(Math.ceil(length / 5)).slice(0, length);
  return {
    type: 'object',
    properties: {
      pick: {
        type: 'string',
        title: 'Target',
        oneOf: Array.from({ length: count }, (_, i) => ({ const: `v${i}`, title: `option-${i} ${words}` })),
      },
    },
    required: ['pick'],
  };
}

/** CPU microseconds for PRESSES arrow presses, each waited for until its highlight is drawn. */
async function arrows(schema: FormSchema): Promise<number> {
  const screen = createScreen();
  const controller = new AbortController();
  const renderer = createTerminalRenderer({ input: screen.input, output: screen.output, opener: () => {} });
  const answer = renderer.renderForm(formPrompt(schema, 'Which target should the release go to?'), controller.signal);
  await screen.nextPrompt();
  screen.press('a');
  await screen.nextPrompt();
  const before = process.cpuUsage();
  for (let i = 1; i <= PRESSES; i++) {
    screen.press(KEY.down);
    await screen.waitFor(`● option-${i} `);
  }
  const used = process.cpuUsage(before);
  controller.abort();
  await answer;
  return used.user + used.system;
}

/** CPU microseconds for typing PRESSES characters into the form's first field, each waited for. */
async function typing(schema: FormSchema): Promise<number> {
  const screen = createScreen();
  const controller = new AbortController();
  const renderer = createTerminalRenderer({ input: screen.input, output: screen.output, opener: () => {} });
  const answer = renderer.renderForm(formPrompt(schema, 'Which ticket covers the release?'), controller.signal);
  await screen.nextPrompt();
  screen.press('a');
  await screen.nextPrompt();
  const before = process.cpuUsage();
  for (let i = 1; i <= PRESSES; i++) {
    screen.press('x');
    await screen.waitFor(`${'x'.repeat(i)}\u2588`);
  }
  const used = process.cpuUsage(before);
  controller.abort();
  await answer;
  return used.user + used.system;
}

/** A required text field whose title and help each run to `length` characters of words. */
function described(length: number): FormSchema {
  const words = 'word '.repeat(Math.ceil(length / 5)).slice(0, length);
  return {
    type: 'object',
    properties: { ticket: { type: 'string', title: `Ticket ${words}`, description: words, minLength: 9 } },
    required: ['ticket'],
  };
}

async function costOf(measure: (schema: FormSchema) => Promise<number>, schema: FormSchema): Promise<number> {
  return Math.min(await measure(schema), await measure(schema));
}

describe('a key press costs a screenful, however long the server made the form', () => {
  it.each([
    ['moving through 1,000 options against 40', arrows, choice(40, 60), choice(1_000, 60)],
    ['moving through labels of 80,000 characters against 4,000', arrows, choice(20, 4_000), choice(20, 80_000)],
    // Each key redraws the field's title and help.
    ['typing under a title and help of 80,000 characters against 4,000', typing, described(4_000), described(80_000)],
  ])(
    '%s',
    async (_shape, measure, smaller, larger) => {
      await costOf(measure, smaller);
      // At least a millisecond's worth, so the ratio is not read off noise.
      const baseline = Math.max(await costOf(measure, smaller), 1_000);
      expect(await costOf(measure, larger), 'CPU time for the larger form vs the smaller one').toBeLessThan(
        baseline * 5,
      );
    },
    120_000,
  );
});
