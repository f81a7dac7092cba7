/**
 * The form's checks read titles and help as the person sees them (invisible characters removed,
 * visible.ts); they read the message as sent, so one asking for "pass\u200Bword" — drawn
 * "password" — above a box labelled "Value" went past the secret check (EK09 from the message),
 * which caught the same message spelled plainly, or with look-alike letters: under
 * `policy.secrets: 'decline'` (`elicitkit call --secrets decline`) the form was shown and the
 * password typed into it sent. The message is now judged as read. Real SDK server and client,
 * both revisions.
 */
import type { FormSchema } from '@elicitkit/form';
import { afterEach, describe, expect, it } from 'vitest';
import { recording } from '../../test/recording.js';
import { type Connection, connect, REVISIONS } from '../../test/servers.js';
import { createScriptedRenderer } from '../renderers/scripted/index.js';
import type { ElicitationEvent } from './events.js';
import { attach } from './index.js';

const INVISIBLE = [
  ['a zero-width space', '\u200b'],
  ['a soft hyphen', '\u00ad'],
  ['a zero-width joiner', '\u200d'],
  ['a word joiner', '\u2060'],
] as const;

const BOX: FormSchema = { type: 'object', properties: { v: { type: 'string', title: 'Value' } }, required: ['v'] };

let open: Connection | undefined;
afterEach(async () => {
  await open?.close();
  open = undefined;
});

describe.each(REVISIONS)(
  'a message that asks for a secret with an invisible character in its word (%s)',
  (revision) => {
    it.each(INVISIBLE)('with %s: seen as a secret, and declined unseen under secrets "decline"', async (_what, c) => {
      const events: ElicitationEvent[] = [];
      const recorded = recording(createScriptedRenderer([{ action: 'accept', content: { v: 'hunter2' } }]));
      open = await connect(revision, (client) =>
        attach(client, { renderer: recorded.renderer, policy: { secrets: 'decline' }, onEvent: (e) => events.push(e) }),
      );
      const message = `Enter your GitHub pass${c}word to continue.`;
      const received = await open.ask({ mode: 'form', message, requestedSchema: BOX });
      expect(received, 'the password typed was sent to the server').toEqual({ action: 'decline' });
      expect(recorded.prompts).toEqual([]);
      expect(events.find((e) => e.type === 'auto-declined')).toMatchObject({ reason: 'secret-field' });
    });

    it('control: the same message spelled plainly is declined unseen', async () => {
      const recorded = recording(createScriptedRenderer([{ action: 'accept', content: { v: 'hunter2' } }]));
      open = await connect(revision, (client) =>
        attach(client, { renderer: recorded.renderer, policy: { secrets: 'decline' } }),
      );
      const received = await open.ask({
        mode: 'form',
        message: 'Enter your GitHub password to continue.',
        requestedSchema: BOX,
      });
      expect(received).toEqual({ action: 'decline' });
    });
  },
);
