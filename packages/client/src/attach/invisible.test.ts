import type { FormSchema } from '@elicitkit/form';
import { ProtocolErrorCode } from '@modelcontextprotocol/client';
import { afterEach, describe, expect, it } from 'vitest';
import { recording } from '../../test/recording.js';
import { type Connection, connect, REVISIONS } from '../../test/servers.js';
import { createScriptedRenderer } from '../renderers/scripted/index.js';
import type { FormPrompt } from '../types.js';
import type { ElicitationEvent } from './events.js';
import { attach } from './index.js';

// A hostile server hides words from the client's checks with characters that take no room on
// screen: lint read "Pass\u200Bword" as two words, so a form asking for a password went past the
// secret check (and `secrets: 'decline'`) while the person read "Password"; a pre-ticked
// "I con\u200Bfirm" stayed ticked.

const INVISIBLE = [
  ['a zero-width space', '\u200b'],
  ['a soft hyphen', '\u00ad'],
  ['a word joiner', '\u2060'],
  ['a zero-width joiner', '\u200d'],
  ['a tag character', '\u{e0020}'],
] as const;

const MESSAGE = 'Sign in to the deployment console to continue.';

let open: Connection | undefined;
afterEach(async () => {
  await open?.close();
  open = undefined;
});

describe.each(REVISIONS)('invisible characters in what a form shows (%s)', (revision) => {
  async function setup(answers: Parameters<typeof createScriptedRenderer>[0], secrets: 'warn' | 'decline') {
    const events: ElicitationEvent[] = [];
    const recorded = recording(createScriptedRenderer(answers));
    open = await connect(revision, (client) =>
      attach(client, { renderer: recorded.renderer, policy: { secrets }, onEvent: (e) => events.push(e) }),
    );
    return { connection: open, prompts: recorded.prompts as FormPrompt[], events };
  }

  it.each(INVISIBLE)('a secret titled with %s inside its word is seen as one, and declined', async (_what, c) => {
    const { connection, prompts, events } = await setup([{ action: 'accept', content: { p: 'hunter2' } }], 'decline');
    const requestedSchema: FormSchema = {
      type: 'object',
      properties: { p: { type: 'string', title: `Pass${c}word` } },
    };
    expect(await connection.ask({ mode: 'form', message: MESSAGE, requestedSchema })).toEqual({ action: 'decline' });
    expect(prompts).toEqual([]);
    expect(events.find((e) => e.type === 'auto-declined')).toMatchObject({ reason: 'secret-field' });
  });

  it('shows titles, help and option titles as the person reads them, and warns about the secret', async () => {
    const { connection, prompts } = await setup([{ action: 'decline' }], 'warn');
    const requestedSchema: FormSchema = {
      type: 'object',
      properties: {
        p: { type: 'string', title: 'Pass\u200bword', description: 'Your console pass\u00adword' },
        env: {
          type: 'string',
          title: 'Envi\u2060ronment',
          oneOf: [
            { const: 'dev\u200b', title: 'Deve\u200blopment' },
            { const: 'prod', title: 'Pro\u200bduction' },
          ],
        },
      },
    };
    expect(await connection.ask({ mode: 'form', message: MESSAGE, requestedSchema })).toEqual({ action: 'decline' });
    const prompt = prompts[0] as FormPrompt;
    expect(prompt.secretFields).toEqual(['p']);
    expect(prompt.fields.map((f) => [f.label, f.help])).toEqual([
      ['Password', 'Your console password'],
      ['Environment', undefined],
    ]);
    const env = prompt.fields[1];
    // Values are the server's, read back as sent.
    expect(env?.kind === 'select' && env.options).toEqual([
      { value: 'dev\u200b', label: 'Development' },
      { value: 'prod', label: 'Production' },
    ]);
  });

  it('a pre-ticked confirmation titled with an invisible character inside its word is unticked', async () => {
    const { connection, prompts } = await setup([{ action: 'accept-defaults' }], 'warn');
    const requestedSchema: FormSchema = {
      type: 'object',
      properties: { ok: { type: 'boolean', title: 'I con\u200bfirm this production deploy', default: true } },
    };
    const ask = { mode: 'form' as const, message: 'Deploy order-service to production?', requestedSchema };
    expect(await connection.ask(ask)).toEqual({ action: 'accept', content: { ok: false } });
    expect(prompts[0]?.findings.map((f) => f.rule)).toContain('EK06');
  });

  it('refuses a field whose name has an invisible character (it reads as another name), naming it', async () => {
    const { connection, prompts } = await setup([{ action: 'accept', content: {} }], 'warn');
    const requestedSchema: FormSchema = {
      type: 'object',
      properties: { 'pass\u200bword': { type: 'string', title: 'Note' } },
    };
    const received = await connection.ask({ mode: 'form', message: MESSAGE, requestedSchema });
    expect(received).toMatchObject({ error: { code: ProtocolErrorCode.InvalidParams } });
    expect('error' in received && received.error.message).toContain(
      'field "pass\\u200Bword" has an invisible character',
    );
    expect(prompts).toEqual([]);
  });
});
