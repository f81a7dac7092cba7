import type { FormSchema } from '@elicitkit/form';
import { describe, expect, it } from 'vitest';
import { createScreen, KEY } from '../../../test/screen.js';
import type { FormPrompt, UrlPrompt } from '../../types.js';
import { formPrompt, urlPrompt } from '../conformance.suite.js';
import { typeText } from './controls.js';
import { createTerminalRenderer } from './index.js';

/** Writes the clipboard (OSC 52), then clears the screen. */
const EVIL = '\u001b]52;c;ZXZpbA==\u0007\u001b[2J';
/** What a person sees of EVIL once its control characters are removed. */
const SHOWN = ']52;c;ZXZpbA==[2J';

function start(prompt: FormPrompt) {
  const screen = createScreen();
  const renderer = createTerminalRenderer({ input: screen.input, output: screen.output, opener: () => {} });
  return { screen, answer: renderer.renderForm(prompt, new AbortController().signal) };
}

function startUrl(prompt: UrlPrompt) {
  const screen = createScreen();
  const renderer = createTerminalRenderer({ input: screen.input, output: screen.output, opener: () => {} });
  return { screen, answer: renderer.renderUrl(prompt, new AbortController().signal) };
}

describe('terminal renderer: server text never reaches the terminal raw', () => {
  it('pre-fills a text field’s default without its control characters, and sends what was shown', async () => {
    const schema: FormSchema = {
      type: 'object',
      properties: { note: { type: 'string', title: 'Note', default: `ok${EVIL}\nbye` } },
    };
    const { screen, answer } = start(formPrompt(schema, 'Add a note to the release, if you like.'));
    await screen.nextPrompt();
    screen.press('a');
    expect(await screen.nextPrompt()).toContain(`ok${SHOWN} bye`);
    screen.press(KEY.enter);
    expect(await screen.nextPrompt()).toContain(`Note: ok${SHOWN} bye`);
    screen.press('s');
    expect(await answer).toEqual({ action: 'accept', content: { note: `ok${SHOWN} bye` } });
    expect(screen.raw()).not.toContain('\u001b]52');
    expect(screen.raw()).not.toContain('\u0007');
  });

  it('draws the line being typed cleaned, whatever it starts from', async () => {
    const screen = createScreen();
    const typed = typeText({
      input: screen.input,
      output: screen.output,
      signal: new AbortController().signal,
      message: 'Note',
      initialValue: `ok${EVIL}`,
      validate: () => undefined,
    });
    expect(await screen.nextPrompt()).toContain(`ok${SHOWN}`);
    screen.press(KEY.enter);
    await typed;
    expect(screen.raw()).not.toContain('\u001b]52');
  });

  it('draws any validation error cleaned', async () => {
    const screen = createScreen();
    const controller = new AbortController();
    const typed = typeText({
      input: screen.input,
      output: screen.output,
      signal: controller.signal,
      message: 'Note',
      validate: () => `Refused${EVIL}`,
    });
    await screen.nextPrompt();
    screen.press('x', KEY.enter);
    await screen.waitFor('Refused');
    controller.abort();
    await typed;
    expect(screen.text()).toContain(`Refused${SHOWN}`);
    expect(screen.raw()).not.toContain('\u001b]52');
  });

  it('draws a field’s title cleaned in a text field’s inline validation error', async () => {
    const schema: FormSchema = {
      type: 'object',
      properties: { ticket: { type: 'string', title: `Ticket${EVIL}`, minLength: 4 } },
      required: ['ticket'],
    };
    const { screen, answer } = start(formPrompt(schema, 'Which release ticket covers this deploy?'));
    await screen.nextPrompt();
    screen.press('a');
    await screen.nextPrompt();
    screen.press('x', KEY.enter);
    await screen.waitFor('needs at least 4 characters');
    screen.press(KEY.esc);
    await answer;
    expect(screen.text()).toContain(`"Ticket${SHOWN}" needs at least 4 characters`);
    expect(screen.raw()).not.toContain('\u001b]52');
  });

  it('draws a field’s title cleaned in a multi-select’s error', async () => {
    const schema: FormSchema = {
      type: 'object',
      properties: {
        tags: { type: 'array', title: `Tags${EVIL}`, items: { type: 'string', enum: ['a', 'b'] }, minItems: 1 },
      },
      required: ['tags'],
    };
    const { screen, answer } = start(formPrompt(schema, 'Which tags should the release carry?'));
    await screen.nextPrompt();
    screen.press('a');
    await screen.nextPrompt();
    screen.press(KEY.enter);
    expect(await screen.nextPrompt()).toContain(`"Tags${SHOWN}" needs at least 1 selection.`);
    screen.press(KEY.esc);
    await answer;
    expect(screen.raw()).not.toContain('\u001b]52');
  });

  it('draws a hand-built URL prompt’s link and warnings cleaned', async () => {
    const prompt = urlPrompt('https://example.com/reset');
    const { screen, answer } = startUrl({
      ...prompt,
      url: `${prompt.url}${EVIL}`,
      warnings: [{ code: 'token', message: `Odd${EVIL}` }],
    });
    const shown = await screen.nextPrompt();
    expect(shown).toContain(`https://example.com/reset${SHOWN}`);
    expect(shown).toContain(`Odd${SHOWN}`);
    screen.press(KEY.esc);
    await answer;
    expect(screen.raw()).not.toContain('\u001b]52');
  });

  it('starts a field only from the previous answer’s own values, never an inherited one', async () => {
    // Built as JSON arrives: a `toString` key in an object literal is typed like Object's own.
    const schema = JSON.parse(
      '{"type":"object","properties":{"toString":{"type":"string","title":"Note","default":"Routine release."}}}',
    ) as FormSchema;
    const { screen, answer } = start({ ...formPrompt(schema, 'Add a note to the release.'), attempt: 2, previous: {} });
    await screen.nextPrompt();
    screen.press('a');
    const field = await screen.nextPrompt();
    expect(field).toContain('Routine release.');
    expect(field).not.toContain('native code');
    screen.press(KEY.esc);
    await answer;
  });
});
