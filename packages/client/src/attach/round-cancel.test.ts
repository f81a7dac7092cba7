/**
 * Cancel stops the operation (the person dismissed it): on 2026-07-28 a tool may ask several
 * questions in one `input_required` round, and a cancel of one must not be followed by the
 * others — shown, answered, an accept sent beside the cancel. A decline is one question's no: the
 * round's other questions are still asked. Real SDK server and client, the HTTP handler in-process.
 */
import type { FormSchema } from '@elicitkit/form';
import { afterEach, describe, expect, it } from 'vitest';
import { recording } from '../../test/recording.js';
import { type Ask, type Connection, connect } from '../../test/servers.js';
import { createScriptedRenderer } from '../renderers/scripted/index.js';
import type { ElicitationEvent } from './events.js';
import { attach } from './index.js';

const field = (title: string): FormSchema => ({
  type: 'object',
  properties: { v: { type: 'string', title } },
  required: ['v'],
});
const ask = (title: string): Ask => ({
  mode: 'form',
  message: `The ${title} for the deploy?`,
  requestedSchema: field(title),
});

let open: Connection[] = [];
afterEach(async () => {
  await Promise.all(open.map((c) => c.close()));
  open = [];
});

async function setup(answers: Parameters<typeof createScriptedRenderer>[0]) {
  const events: ElicitationEvent[] = [];
  const recorded = recording(createScriptedRenderer(answers));
  const connection = await connect('2026-07-28', (client) =>
    attach(client, { renderer: recorded.renderer, onEvent: (e) => events.push(e) }),
  );
  open.push(connection);
  return { connection, prompts: recorded.prompts, events };
}

describe('one input_required round', () => {
  it.each([
    ['the first of two', 2],
    ['the first of three', 3],
  ])('a cancel of %s withdraws the rest unasked: each answers cancel', async (_label, n) => {
    const { connection, prompts, events } = await setup([
      { action: 'cancel' },
      { action: 'accept', content: { v: 'typed after cancelling' } },
      { action: 'accept', content: { v: 'and again' } },
    ]);
    const titles = ['ticket', 'reason', 'window'].slice(0, n);
    const received = await connection.askRound(titles.map(ask));
    expect(received).toEqual(Object.fromEntries(titles.map((_, i) => [`q${i}`, { action: 'cancel' }])));
    expect(prompts).toHaveLength(1);
    expect(events.filter((e) => e.type === 'aborted')).toHaveLength(n - 1);
  });

  it('a cancel after an accept: the accept stands, the question after it is not asked', async () => {
    const { connection, prompts } = await setup([
      { action: 'accept', content: { v: 'REL-1' } },
      { action: 'cancel' },
      { action: 'accept', content: { v: 'never' } },
    ]);
    const received = await connection.askRound([ask('ticket'), ask('reason'), ask('window')]);
    expect(received).toEqual({
      q0: { action: 'accept', content: { v: 'REL-1' } },
      q1: { action: 'cancel' },
      q2: { action: 'cancel' },
    });
    expect(prompts).toHaveLength(2);
  });

  it('a cancel of a link withdraws the other link asked beside it', async () => {
    const opened: string[] = [];
    const events: ElicitationEvent[] = [];
    const recorded = recording(createScriptedRenderer([{ action: 'cancel' }, { action: 'accept' }]));
    const connection = await connect('2026-07-28', (client) =>
      attach(client, {
        renderer: recorded.renderer,
        onEvent: (e) => events.push(e),
        opener: (url) => {
          opened.push(url);
        },
      }),
    );
    open.push(connection);
    const link = (path: string): Ask => ({
      mode: 'url',
      message: 'Sign in on the page.',
      url: `https://opsdesk.example.com/${path}`,
    });
    expect(await connection.askRound([link('sign-in'), link('approve')])).toEqual({
      q0: { action: 'cancel' },
      q1: { action: 'cancel' },
    });
    expect(recorded.prompts.map((p) => p.mode)).toEqual(['url']);
    expect(opened).toEqual([]);
  });

  it('a decline is that question’s no: the others are still asked', async () => {
    const { connection, prompts } = await setup([{ action: 'decline' }, { action: 'accept', content: { v: 'fine' } }]);
    const received = await connection.askRound([ask('ticket'), ask('reason')]);
    expect(received).toEqual({ q0: { action: 'decline' }, q1: { action: 'accept', content: { v: 'fine' } } });
    expect(prompts).toHaveLength(2);
  });

  it('the next round, and another call’s round, are asked as usual', async () => {
    const { connection, prompts } = await setup([
      { action: 'cancel' },
      { action: 'accept', content: { v: 'a' } },
      { action: 'accept', content: { v: 'b' } },
    ]);
    expect(await connection.askRound([ask('ticket'), ask('reason')])).toEqual({
      q0: { action: 'cancel' },
      q1: { action: 'cancel' },
    });
    expect(await connection.askRound([ask('ticket'), ask('reason')])).toEqual({
      q0: { action: 'accept', content: { v: 'a' } },
      q1: { action: 'accept', content: { v: 'b' } },
    });
    expect(prompts).toHaveLength(3);
  });
});
