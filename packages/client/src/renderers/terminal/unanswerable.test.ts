import { afterEach, describe, expect, it } from 'vitest';
import { createScreen, KEY } from '../../../test/screen.js';
import { type Connection, connect } from '../../../test/servers.js';
import { attach } from '../../attach/index.js';
import { createTerminalRenderer } from './index.js';

// A question whose field name or choice holds half a character (a lone UTF-16 surrogate) can be
// filled in but never sent: no answer may carry the half. The terminal says so before anything is
// asked, and offers only Decline and Cancel — the server is told which. Real SDK server and client.

const open: Connection[] = [];
afterEach(async () => {
  for (const connection of open.splice(0)) await connection.close();
});

async function asked(requestedSchema: Record<string, unknown>) {
  const screen = createScreen();
  const renderer = createTerminalRenderer({ input: screen.input, output: screen.output, opener: () => {} });
  const connection = await connect('2025-11-25', (client) => attach(client, { renderer }));
  open.push(connection);
  const answer = connection.ask({
    mode: 'form',
    message: 'Which environment should order-service be deployed to?',
    requestedSchema,
  } as never);
  return { screen, answer, gate: await screen.nextPrompt() };
}

const HALF_NAME = { type: 'object', properties: { 'env\ud800': { type: 'string', title: 'Environment' } } };
const HALF_CHOICE = {
  type: 'object',
  properties: { env: { type: 'string', title: 'Environment', enum: ['dev', 'prod\udc00'] } },
  required: ['env'],
};
const HALF_TITLE = { type: 'object', properties: { env: { type: 'string', title: 'Envir\ud800onment' } } };

describe('terminal: a question no answer can carry', () => {
  it.each([
    ['a field name', HALF_NAME, 'Environment'],
    ['a choice', HALF_CHOICE, 'Environment'],
  ])('half a character in %s: said up front, only Decline and Cancel; d declines', async (_, schema, field) => {
    const { screen, answer, gate } = await asked(schema);
    expect(gate).toContain('cannot be answered');
    expect(gate).toContain(
      `${field}: ${schema === HALF_NAME ? 'its name holds' : 'a choice holds'} half of a character`,
    );
    expect(gate).toMatch(/d\s+Decline[\s\S]*c\s+Cancel/);
    expect(gate).not.toMatch(/a\s+Answer/);
    // The answer key does nothing here: only the two offered are taken.
    screen.press('a');
    screen.press('d');
    expect(await answer).toEqual({ action: 'decline' });
  });

  it('Esc cancels it', async () => {
    const { screen, answer } = await asked(HALF_CHOICE);
    screen.press(KEY.esc);
    expect(await answer).toEqual({ action: 'cancel' });
  });

  it('half a character only in a title is shown (as U+FFFD) and answered as usual', async () => {
    const { screen, answer, gate } = await asked(HALF_TITLE);
    expect(gate).not.toContain('cannot be answered');
    expect(gate).toMatch(/a\s+Answer/);
    screen.press('a');
    await screen.nextPrompt();
    screen.press(...'staging', KEY.enter);
    await screen.nextPrompt();
    screen.press('s');
    expect(await answer).toEqual({ action: 'accept', content: { env: 'staging' } });
  });
});
