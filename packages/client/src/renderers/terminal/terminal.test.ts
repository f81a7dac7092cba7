import type { FormSchema } from '@elicitkit/form';
import { describe, expect, it } from 'vitest';
import { createScreen, KEY } from '../../../test/screen.js';
import type { FormPrompt } from '../../types.js';
import { formPrompt } from '../conformance.suite.js';
import { createTerminalRenderer } from './index.js';

function start(prompt: FormPrompt) {
  const screen = createScreen();
  const controller = new AbortController();
  const renderer = createTerminalRenderer({ input: screen.input, output: screen.output, opener: () => {} });
  return { screen, controller, answer: renderer.renderForm(prompt, controller.signal) };
}

const ENV: FormSchema = {
  type: 'object',
  properties: {
    env: {
      type: 'string',
      title: '部署环境',
      description: '生产环境需要发布单',
      oneOf: [
        { const: 'dev', title: '开发 (dev)' },
        { const: 'prod', title: '生产 (prod)' },
      ],
    },
  },
  required: ['env'],
};

describe('terminal renderer: what the person sees', () => {
  it('shows the asking server, the message, titles, help and options, Chinese intact', async () => {
    const { screen, answer } = start(formPrompt(ENV, '要把 order-service 部署到哪个环境？'));
    const gate = await screen.nextPrompt();
    expect(gate).toContain('Ops Desk (opsdesk) v1.0.0 asks:');
    expect(gate).toContain('要把 order-service 部署到哪个环境？');
    expect(gate).toMatch(/a\s+Answer[\s\S]*d\s+Decline[\s\S]*c\s+Cancel/);
    screen.press(KEY.enter);
    const field = await screen.nextPrompt();
    expect(field).toContain('部署环境');
    expect(field).toContain('生产环境需要发布单');
    expect(field).toContain('开发 (dev)');
    expect(field).toContain('生产 (prod)');
    screen.press(KEY.down, KEY.enter);
    const review = await screen.nextPrompt();
    expect(review).toContain('部署环境: 生产 (prod)');
    screen.press(KEY.enter);
    expect(await answer).toEqual({ action: 'accept', content: { env: 'prod' } });
    await screen.waitFor('Answered.');
  });

  it('names an unidentified server as such', async () => {
    const { screen, answer } = start({ ...formPrompt(ENV), server: undefined });
    expect(await screen.nextPrompt()).toContain('An unidentified server asks:');
    screen.press('d');
    expect(await answer).toEqual({ action: 'decline' });
    await screen.waitFor('Declined: nothing was shared.');
  });

  it('strips terminal control sequences from server-supplied text', async () => {
    const evil = '\u001b[2J\u001b]8;;https://evil.example\u0007Deploy\u001b]8;;\u0007 now?\u202e';
    const { screen, answer } = start({ ...formPrompt(ENV, evil), server: { name: 'x\u001b[31m', version: '1' } });
    await screen.nextPrompt();
    screen.press(KEY.esc);
    await answer;
    const raw = screen.text();
    expect(raw).toContain('[2J]8;;https://evil.exampleDeploy]8;; now?');
    expect(raw).not.toContain('\u202e');
  });

  it('warns prominently about a field that asks for a secret, and masks it', async () => {
    const schema: FormSchema = { type: 'object', properties: { password: { type: 'string', title: 'Password' } } };
    const { screen, answer } = start(formPrompt(schema, 'Sign in to the deployment console to continue.'));
    const gate = await screen.nextPrompt();
    expect(gate).toContain('WARNING: this form asks for a secret ("password")');
    screen.press('a');
    await screen.nextPrompt();
    screen.press(...'hunter2', KEY.enter);
    const review = await screen.nextPrompt();
    expect(review).toContain('Password: ••••••');
    expect(screen.text()).not.toContain('hunter2');
    screen.press('s');
    expect(await answer).toEqual({ action: 'accept', content: { password: 'hunter2' } });
  });

  it('shows lint findings and, on a second attempt, why the first answer was refused, pre-filled', async () => {
    const schema: FormSchema = {
      type: 'object',
      properties: { confirmed: { type: 'boolean', title: 'I confirm the release', default: true } },
    };
    const prompt: FormPrompt = {
      ...formPrompt(schema, 'Confirm the production release of order-service.'),
      attempt: 2,
      previous: { confirmed: false },
      issues: [{ path: ['confirmed'], code: 'custom', message: 'The server needs the box ticked.' }],
    };
    const { screen, answer } = start(prompt);
    const gate = await screen.nextPrompt();
    expect(gate).toContain('EK06 confirmation "confirmed" defaults to true');
    expect(gate).toContain('Your previous answer was not accepted:');
    expect(gate).toContain('The server needs the box ticked.');
    screen.press('a');
    const field = await screen.nextPrompt();
    expect(field).toMatch(/○ Yes \/ ● No/);
    expect(field).toContain('Answer Yes to confirm: without it the request is refused.');
    screen.press(KEY.enter);
    await screen.nextPrompt();
    screen.press('s');
    // The first Submit with the confirmation unticked warns and asks again; the second sends.
    const again = await screen.nextPrompt();
    expect(again).toContain('Not sent yet: a confirmation is not answered Yes ("I confirm the release")');
    expect(again).toContain('Send these answers?');
    screen.press('s');
    expect(await answer).toEqual({ action: 'accept', content: { confirmed: false } });
  });

  it('sends a ticked confirmation at the first Submit, and a plain checkbox left unticked without a warning', async () => {
    const schema: FormSchema = {
      type: 'object',
      properties: {
        confirmed: { type: 'boolean', title: 'I confirm the release' },
        notify: { type: 'boolean', title: 'Email the team' },
      },
    };
    const { screen, answer } = start(formPrompt(schema, 'Confirm the production release of order-service.'));
    await screen.nextPrompt();
    screen.press('a');
    await screen.nextPrompt();
    screen.press(KEY.up, KEY.enter);
    const notify = await screen.nextPrompt();
    expect(notify).toContain('Email the team');
    expect(notify.slice(notify.lastIndexOf('Email the team'))).not.toContain('Answer Yes to confirm');
    screen.press(KEY.enter);
    await screen.nextPrompt();
    screen.press('s');
    expect(await answer).toEqual({ action: 'accept', content: { confirmed: true, notify: false } });
    expect(screen.text()).not.toContain('Not sent yet');
  });

  it('can edit an unticked confirmation after the warning, and then sends it ticked', async () => {
    const schema: FormSchema = {
      type: 'object',
      properties: { confirmed: { type: 'boolean', title: 'I confirm the release' } },
    };
    const { screen, answer } = start(formPrompt(schema, 'Confirm the production release of order-service.'));
    await screen.nextPrompt();
    screen.press('a');
    await screen.nextPrompt();
    screen.press(KEY.enter);
    await screen.nextPrompt();
    screen.press('s');
    expect(await screen.nextPrompt()).toContain('Not sent yet');
    screen.press('e');
    await screen.nextPrompt();
    screen.press(KEY.enter);
    await screen.nextPrompt();
    screen.press(KEY.up, KEY.enter);
    expect(await screen.nextPrompt()).toContain('I confirm the release: Yes');
    screen.press('s');
    expect(await answer).toEqual({ action: 'accept', content: { confirmed: true } });
  });
});

describe('terminal renderer: keys', () => {
  const TEXT: FormSchema = {
    type: 'object',
    properties: { ticket: { type: 'string', title: 'Release ticket', minLength: 4 } },
    required: ['ticket'],
  };

  it.each([
    ['Ctrl+C', KEY.ctrlC],
    ['Esc', KEY.esc],
  ])('%s in a text field cancels, never an empty answer', async (_label, key) => {
    const { screen, answer } = start(formPrompt(TEXT));
    await screen.nextPrompt();
    screen.press('a');
    await screen.nextPrompt();
    screen.press('R', 'E', key);
    expect(await answer).toEqual({ action: 'cancel' });
    await screen.waitFor('Cancelled: the operation stops here.');
  });

  it('Ctrl+C at the review step cancels', async () => {
    const { screen, answer } = start(formPrompt(TEXT));
    await screen.nextPrompt();
    screen.press('a');
    await screen.nextPrompt();
    screen.press(...'REL-1001', KEY.enter);
    await screen.nextPrompt();
    screen.press(KEY.ctrlC);
    expect(await answer).toEqual({ action: 'cancel' });
  });

  it('shows the inline error for an empty required field and waits for a value', async () => {
    const { screen, answer } = start(formPrompt(TEXT));
    await screen.nextPrompt();
    screen.press('a');
    await screen.nextPrompt();
    screen.press(KEY.enter);
    await screen.waitFor('"Release ticket" is required.');
    screen.press(...'REL', KEY.enter);
    await screen.waitFor('"Release ticket" needs at least 4 characters.');
    screen.press('-', '1', KEY.enter);
    await screen.nextPrompt();
    screen.press('s');
    expect(await answer).toEqual({ action: 'accept', content: { ticket: 'REL-1' } });
  });

  it('holds a multi-select to its maxItems, keeping the selection for another try', async () => {
    const schema: FormSchema = {
      type: 'object',
      properties: {
        tags: { type: 'array', title: 'Tags', items: { type: 'string', enum: ['a', 'b', 'c'] }, maxItems: 1 },
      },
    };
    const { screen, answer } = start(formPrompt(schema, 'Which tags should the release carry?'));
    await screen.nextPrompt();
    screen.press('a');
    await screen.nextPrompt();
    screen.press(KEY.space, KEY.down, KEY.space, KEY.enter);
    const again = await screen.nextPrompt();
    expect(again).toContain('"Tags" allows at most 1 selection.');
    expect(again).toMatch(/◼ a[\s\S]*◼ b/);
    screen.press(KEY.space, KEY.enter);
    await screen.nextPrompt();
    screen.press('s');
    expect(await answer).toEqual({ action: 'accept', content: { tags: ['b'] } });
  });

  it('holds a required multi-select to its minItems', async () => {
    const schema: FormSchema = {
      type: 'object',
      properties: {
        tags: { type: 'array', title: 'Tags', items: { type: 'string', enum: ['a', 'b'] }, minItems: 1 },
      },
      required: ['tags'],
    };
    const { screen, answer } = start(formPrompt(schema, 'Which tags should the release carry?'));
    await screen.nextPrompt();
    screen.press('a');
    await screen.nextPrompt();
    screen.press(KEY.enter);
    expect(await screen.nextPrompt()).toContain('"Tags" needs at least 1 selection.');
    screen.press(KEY.down, KEY.space, KEY.enter);
    await screen.nextPrompt();
    screen.press('s');
    expect(await answer).toEqual({ action: 'accept', content: { tags: ['b'] } });
  });

  it('will not submit what the form refuses (a hand-built prompt missing a required field)', async () => {
    const prompt = formPrompt(TEXT);
    const { screen, answer } = start({ ...prompt, fields: [] });
    await screen.nextPrompt();
    screen.press('a');
    await screen.nextPrompt();
    screen.press('s');
    expect(await screen.nextPrompt()).toContain('Not sent yet. Fix these first:\n│  - "Release ticket" is required.');
    screen.press('d');
    expect(await answer).toEqual({ action: 'decline' });
  });

  it('fails loudly on a prompt whose fields are not in its schema', async () => {
    const prompt = formPrompt(TEXT);
    const { screen, answer } = start({ ...prompt, schema: { type: 'object', properties: {} } });
    await screen.nextPrompt();
    screen.press('a');
    await expect(answer).rejects.toThrow('Field "ticket" is not in the form.');
  });

  it('lets an optional choice be left empty', async () => {
    const schema: FormSchema = {
      type: 'object',
      properties: { env: { type: 'string', title: 'Env', enum: ['dev', 'prod'] } },
    };
    const { screen, answer } = start(formPrompt(schema, 'Which environment, if any, should be checked?'));
    await screen.nextPrompt();
    screen.press('a');
    expect(await screen.nextPrompt()).toContain('(leave empty)');
    screen.press(KEY.up, KEY.enter);
    expect(await screen.nextPrompt()).toContain('Env: (empty)');
    screen.press('s');
    expect(await answer).toEqual({ action: 'accept', content: {} });
  });

  it('submits a form without fields from the review step', async () => {
    const { screen, answer } = start(
      formPrompt({ type: 'object', properties: {} }, 'Acknowledge the maintenance window.'),
    );
    await screen.nextPrompt();
    screen.press('a');
    expect(await screen.nextPrompt()).toContain('(this form has no fields)');
    screen.press('e');
    await screen.nextPrompt();
    screen.press('s');
    expect(await answer).toEqual({ action: 'accept', content: {} });
  });

  it('tears down and answers cancel when the question is withdrawn mid-field', async () => {
    const { screen, controller, answer } = start(formPrompt(TEXT));
    await screen.nextPrompt();
    screen.press('a');
    await screen.nextPrompt();
    controller.abort();
    expect(await answer).toEqual({ action: 'cancel' });
    await screen.waitFor('Stopped: the question was withdrawn or no answer came in time.');
  });
});

describe('terminal renderer: numbers are sent as typed', () => {
  const RATIO: FormSchema = { type: 'object', properties: { ratio: { type: 'number', title: 'Ratio' } } };

  it.each([
    ['0.10000000000000000001', '0.1'],
    ['1e-400', '0'],
    ['-0', '0'],
    ['9007199254740993', '9007199254740992'],
  ])('refuses %s, which would arrive as %s, and keeps asking', async (typed, arrives) => {
    const { screen, answer } = start(formPrompt(RATIO));
    await screen.nextPrompt();
    screen.press('a');
    await screen.nextPrompt();
    screen.press(...typed, KEY.enter);
    await screen.waitFor(`${typed} cannot be sent exactly: it would arrive as ${arrives}.`);
    // Still on the field: the same number spelled another way goes through.
    screen.press(KEY.clearLine, ...'2.50e-1', KEY.enter);
    const review = await screen.nextPrompt();
    expect(review).toContain('Ratio: 0.25');
    screen.press(KEY.enter);
    expect(await answer).toEqual({ action: 'accept', content: { ratio: 0.25 } });
  });
});
