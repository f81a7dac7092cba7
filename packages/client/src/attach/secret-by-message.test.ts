/**
 * A form whose message asks for a password, with one box to type it into, asks for the password in
 * that box. The check linked the message's secret only to boxes labelled with a short list of
 * empty words (`Value`, `Input`, `Answer`…): a box keyed `pw` or `pass` (the usual short names), an
 * untitled key `v`, or a label such as "Type here" was taken as naming something of its own, and
 * `policy.secrets: 'decline'` (`elicitkit call --secrets decline`) showed the form and sent what
 * was typed. The lint now knows those names and labels (a heuristic: a label such as "User input"
 * still reads as naming something). Real SDK server and client.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { recording } from '../../test/recording.js';
import { type Connection, connect } from '../../test/servers.js';
import { createScriptedRenderer } from '../renderers/scripted/index.js';
import type { ElicitationEvent } from './events.js';
import { attach } from './index.js';

const MESSAGE = 'Enter your GitHub password to continue.';

let open: Connection | undefined;
afterEach(async () => {
  await open?.close();
  open = undefined;
});

describe('the message asks for the password, the one box is where it goes', () => {
  it.each([
    ['a box keyed "pw"', { pw: { type: 'string' } }],
    ['a box keyed "pass"', { pass: { type: 'string' } }],
    ['an untitled box keyed "v"', { v: { type: 'string' } }],
    ['a box titled "Type here"', { v: { type: 'string', title: 'Type here' } }],
  ])('%s: policy secrets "decline" declines it unseen', async (_label, properties) => {
    const events: ElicitationEvent[] = [];
    const recorded = recording(
      createScriptedRenderer([{ action: 'accept', content: { [Object.keys(properties)[0] as string]: 'hunter2' } }]),
    );
    open = await connect('2025-11-25', (client) =>
      attach(client, { renderer: recorded.renderer, policy: { secrets: 'decline' }, onEvent: (e) => events.push(e) }),
    );
    const received = await open.ask({
      mode: 'form',
      message: MESSAGE,
      requestedSchema: { type: 'object', properties },
    });
    expect(received, 'the password typed was sent to the server').toEqual({ action: 'decline' });
    expect(recorded.prompts).toEqual([]);
    expect(events.find((e) => e.type === 'auto-declined')).toMatchObject({ reason: 'secret-field' });
  });
});
