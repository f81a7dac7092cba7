import type { FormSchema } from '@elicitkit/form';
import { afterEach, describe, expect, it } from 'vitest';
import { person, recording } from '../../test/recording.js';
import { createScreen, KEY } from '../../test/screen.js';
import { type Connection, connect } from '../../test/servers.js';
import { createTerminalRenderer } from '../renderers/terminal/index.js';
import type { FormPrompt, Renderer } from '../types.js';
import type { ElicitationEvent } from './events.js';
import { attach } from './index.js';

let open: Connection | undefined;
afterEach(async () => {
  await open?.close();
  open = undefined;
});

async function setup(renderer: Renderer) {
  const events: ElicitationEvent[] = [];
  const recorded = recording(renderer);
  open = await connect('2025-11-25', (client) =>
    attach(client, { renderer: recorded.renderer, onEvent: (e) => events.push(e) }),
  );
  return { connection: open, prompts: recorded.prompts, events };
}

async function inTerminal(requestedSchema: FormSchema, message: string) {
  const screen = createScreen();
  const { connection } = await setup(
    createTerminalRenderer({ input: screen.input, output: screen.output, opener: () => {} }),
  );
  const received = connection.ask({ mode: 'form', message, requestedSchema });
  await screen.nextPrompt();
  screen.press('a');
  return { screen, received };
}

describe('the terminal: what the person reviews is what the server receives', () => {
  it('an optional multi-select whose pre-ticked defaults the person unticks is sent empty', async () => {
    const schema: FormSchema = {
      type: 'object',
      properties: {
        scopes: {
          type: 'array',
          title: 'Scopes to grant',
          items: {
            anyOf: [
              { const: 'read', title: 'Read' },
              { const: 'write', title: 'Write' },
            ],
          },
          default: ['read', 'write'],
        },
      },
    };
    const { screen, received } = await inTerminal(schema, 'Which scopes should the deploy bot get?');
    await screen.nextPrompt();
    screen.press(KEY.space, KEY.down, KEY.space, KEY.enter);
    expect(await screen.nextPrompt()).toContain('Scopes to grant: (empty)');
    screen.press('s');
    expect(await received).toEqual({ action: 'accept', content: {} });
  });

  it('an optional select left empty on purpose is sent empty, not with its default', async () => {
    const schema: FormSchema = {
      type: 'object',
      properties: { env: { type: 'string', title: 'Env', enum: ['dev', 'prod'], default: 'prod' } },
    };
    const { screen, received } = await inTerminal(schema, 'Which environment, if any, should be checked?');
    expect(await screen.nextPrompt()).toContain('(leave empty)');
    screen.press(KEY.down, KEY.enter);
    expect(await screen.nextPrompt()).toContain('Env: (empty)');
    screen.press('s');
    expect(await received).toEqual({ action: 'accept', content: {} });
  });

  it('an optional text field the person clears is sent empty', async () => {
    const schema: FormSchema = {
      type: 'object',
      properties: { note: { type: 'string', title: 'Note', default: 'Routine release.' } },
    };
    const { screen, received } = await inTerminal(schema, 'Add a note to the release, if you like.');
    await screen.nextPrompt();
    screen.press(KEY.clearLine, KEY.enter);
    expect(await screen.nextPrompt()).toContain('Note: (empty)');
    screen.press('s');
    expect(await received).toEqual({ action: 'accept', content: {} });
  });

  it('a default the person keeps is sent', async () => {
    const schema: FormSchema = {
      type: 'object',
      properties: { env: { type: 'string', title: 'Env', enum: ['dev', 'prod'], default: 'prod' } },
    };
    const { screen, received } = await inTerminal(schema, 'Which environment, if any, should be checked?');
    await screen.nextPrompt();
    screen.press(KEY.enter);
    expect(await screen.nextPrompt()).toContain('Env: prod');
    screen.press('s');
    expect(await received).toEqual({ action: 'accept', content: { env: 'prod' } });
  });
});

describe('attach fills in defaults only for renderers that did not pre-fill them', () => {
  const ENV: FormSchema = {
    type: 'object',
    properties: {
      env: { type: 'string', title: 'Env', enum: ['dev', 'prod'], default: 'prod' },
      note: { type: 'string', title: 'Note', default: 'Routine release.' },
    },
    required: ['env'],
  };
  const ASK = { mode: 'form' as const, message: 'Which environment should be checked?', requestedSchema: ENV };

  it('refuses a required field a pre-filling renderer left empty, and asks again instead of filling it', async () => {
    const { connection, prompts, events } = await setup({
      ...person([
        { action: 'accept', content: {} },
        { action: 'accept', content: { env: 'dev' } },
      ]),
      prefillsDefaults: true,
    });
    expect(await connection.ask(ASK)).toEqual({ action: 'accept', content: { env: 'dev' } });
    const invalid = events.find((e) => e.type === 'invalid-answer');
    expect(invalid?.type === 'invalid-answer' && invalid.issues.map((i) => `${i.path[0]}:${i.code}`)).toEqual([
      'env:required',
    ]);
    expect((prompts[1] as FormPrompt).previous).toEqual({});
  });

  it('fills them in for a renderer that does not say it pre-fills them', async () => {
    const { connection } = await setup(person([{ action: 'accept', content: {} }]));
    expect(await connection.ask(ASK)).toEqual({
      action: 'accept',
      content: { env: 'prod', note: 'Routine release.' },
    });
  });
});
