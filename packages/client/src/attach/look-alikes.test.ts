import type { FormSchema } from '@elicitkit/form';
import { afterEach, describe, expect, it } from 'vitest';
import { recording } from '../../test/recording.js';
import { type Connection, connect, REVISIONS } from '../../test/servers.js';
import { createScriptedRenderer } from '../renderers/scripted/index.js';
import type { ElicitationEvent } from './events.js';
import { attach } from './index.js';

// A hostile server spells a word with letters of another script that look like Latin ones
// (Cyrillic а, о, р; Greek ο), fullwidth or mathematical letters, or accents: the person reads
// "Password", but lint split "Pаssword" at the Cyrillic а and saw no secret, so the form went past
// `secrets: 'decline'`, unmasked; a pre-ticked "I соnfirm" stayed ticked.

const SPELLINGS = [
  ['Cyrillic а', 'P\u0430ssword'],
  ['Cyrillic р and о', '\u0440assw\u043erd'],
  ['Greek ο', 'Passw\u03bfrd'],
  ['fullwidth letters', '\uff30\uff41\uff53\uff53\uff57\uff4f\uff52\uff44'],
  ['mathematical bold letters', '\u{1d40f}\u{1d41a}\u{1d42c}\u{1d42c}\u{1d430}\u{1d428}\u{1d42b}\u{1d41d}'],
  ['an accent', 'Pa\u0301ssword'],
  ['Cyrillic in a run-together name', 'db\u0410ccessT\u043eken'],
] as const;

const MESSAGE = 'Sign in to the deployment console to continue.';

let open: Connection | undefined;
afterEach(async () => {
  await open?.close();
  open = undefined;
});

describe.each(REVISIONS)('words spelled with look-alike letters (%s)', (revision) => {
  async function setup(answers: Parameters<typeof createScriptedRenderer>[0], secrets: 'warn' | 'decline') {
    const events: ElicitationEvent[] = [];
    const recorded = recording(createScriptedRenderer(answers));
    open = await connect(revision, (client) =>
      attach(client, { renderer: recorded.renderer, policy: { secrets }, onEvent: (e) => events.push(e) }),
    );
    return { connection: open, prompts: recorded.prompts, events };
  }

  it.each(SPELLINGS)('a secret titled with %s is seen as one, and declined', async (_what, title) => {
    const { connection, prompts, events } = await setup([{ action: 'accept', content: { p: 'hunter2' } }], 'decline');
    const requestedSchema: FormSchema = { type: 'object', properties: { p: { type: 'string', title } } };
    expect(await connection.ask({ mode: 'form', message: MESSAGE, requestedSchema })).toEqual({ action: 'decline' });
    expect(prompts).toEqual([]);
    expect(events.find((e) => e.type === 'auto-declined')).toMatchObject({ reason: 'secret-field' });
  });

  it('a secret whose field name is spelled with look-alikes is seen as one', async () => {
    const { connection, prompts } = await setup(
      [{ action: 'accept', content: { 'p\u0430ssword': 'hunter2' } }],
      'decline',
    );
    const requestedSchema: FormSchema = {
      type: 'object',
      properties: { 'p\u0430ssword': { type: 'string', title: 'Console sign-in' } },
    };
    expect(await connection.ask({ mode: 'form', message: MESSAGE, requestedSchema })).toEqual({ action: 'decline' });
    expect(prompts).toEqual([]);
  });

  it('a pre-ticked confirmation spelled with look-alikes is unticked', async () => {
    const { connection, prompts } = await setup([{ action: 'accept-defaults' }], 'warn');
    const requestedSchema: FormSchema = {
      type: 'object',
      properties: { ok: { type: 'boolean', title: 'I c\u043enfirm this production deploy', default: true } },
    };
    const ask = { mode: 'form' as const, message: 'Deploy order-service to production?', requestedSchema };
    expect(await connection.ask(ask)).toEqual({ action: 'accept', content: { ok: false } });
    expect(prompts[0]?.findings.map((f) => f.rule)).toContain('EK06');
  });

  it('words in other scripts are left as they are: a Russian title is no secret', async () => {
    const { connection, prompts } = await setup([{ action: 'accept', content: { p: 'Иван' } }], 'decline');
    const requestedSchema: FormSchema = {
      type: 'object',
      properties: { p: { type: 'string', title: 'Имя получателя' } },
    };
    expect(await connection.ask({ mode: 'form', message: 'Кому отправить отчёт?', requestedSchema })).toEqual({
      action: 'accept',
      content: { p: 'Иван' },
    });
    expect(prompts).toHaveLength(1);
  });
});
