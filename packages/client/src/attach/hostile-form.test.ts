/**
 * A hostile server's form, through a real SDK server and client on both revisions: one that would
 * cost the client unbounded work (twenty fields of a thousand options, a title of a megabyte),
 * or that draws things a person cannot tell apart (fullwidth letters, case, a title that breaks the
 * line to fake a second field), is answered -32602 with a message naming the field, and the person
 * is never shown it. At the caps, the same kind of form is asked.
 */
import { FORM_LIMITS } from '@elicitkit/form';
import { ProtocolErrorCode } from '@modelcontextprotocol/client';
import { afterEach, describe, expect, it } from 'vitest';
import { recording } from '../../test/recording.js';
import { type Connection, connect, REVISIONS } from '../../test/servers.js';
import { createScriptedRenderer } from '../renderers/scripted/index.js';
import type { FormPrompt } from '../types.js';
import type { ElicitationEvent } from './events.js';
import { attach } from './index.js';

const MESSAGE = 'Pick the release to deploy.';

/** `n` titled options, each title `length` characters and unique. */
const options = (n: number, length: number, prefix: string) =>
  Array.from({ length: n }, (_, i) => ({ const: `${prefix}${i}`, title: `${prefix}${i}`.padEnd(length, '.') }));

const form = (properties: Record<string, unknown>) => ({ type: 'object', properties });

let open: Connection | undefined;
afterEach(async () => {
  await open?.close();
  open = undefined;
});

describe.each(REVISIONS)('a hostile form (%s)', (revision) => {
  async function setup(answers: Parameters<typeof createScriptedRenderer>[0]) {
    const events: ElicitationEvent[] = [];
    const recorded = recording(createScriptedRenderer(answers));
    open = await connect(revision, (client) =>
      attach(client, { renderer: recorded.renderer, onEvent: (e) => events.push(e) }),
    );
    return { connection: open, prompts: recorded.prompts, events };
  }

  it.each<[string, () => Record<string, unknown>, RegExp]>([
    [
      'twenty fields of a thousand options',
      () =>
        Object.fromEntries(
          Array.from({ length: 20 }, (_, f) => [
            `f${f}`,
            { type: 'string', oneOf: options(FORM_LIMITS.optionsPerField, 8, `f${f}o`) },
          ]),
        ),
      new RegExp(`offers 20000 options in all, over the ${FORM_LIMITS.options}`),
    ],
    [
      'a title of a megabyte',
      () => ({ env: { type: 'string', title: 'E'.repeat(1_000_000), enum: ['dev', 'prod'] } }),
      /field "env" has a title of 1000000 characters, over the 200/,
    ],
    [
      'an option title of a megabyte',
      () => ({ env: { type: 'string', oneOf: [{ const: 'prod', title: 'P'.repeat(1_000_000) }] } }),
      /field "env" has an option title of 1000000 characters in oneOf/,
    ],
    [
      'a form whose text passes the cap',
      () =>
        Object.fromEntries(
          Array.from({ length: 40 }, (_, f) => [
            `f${f}`,
            { type: 'string', title: `Field ${f}`, description: 'd'.repeat(FORM_LIMITS.descriptionLength) },
          ]),
        ),
      new RegExp(`characters of text .*over the ${FORM_LIMITS.text}`),
    ],
    [
      'an option in fullwidth letters beside its plain twin',
      () => ({
        env: {
          type: 'string',
          oneOf: [
            { const: 'staging', title: 'Prod' },
            { const: 'prod', title: '\uff30\uff52\uff4f\uff44' },
          ],
        },
      }),
      /field "env" shows two options alike/,
    ],
    [
      'two fields differing only by case',
      () => ({ keep: { type: 'boolean', title: 'Confirm' }, wipe: { type: 'boolean', title: 'confirm' } }),
      /field "wipe" is shown as "confirm", which reads as field "keep"/,
    ],
    [
      'a title breaking the line to fake a second field',
      () => ({
        ticket: { type: 'string', title: 'Ticket\nI confirm the wipe' },
        env: { type: 'string', title: 'Environment' },
      }),
      /field "ticket" has a title that breaks the line/,
    ],
    [
      'a title beside another with a bidi override',
      () => ({ keep: { type: 'boolean', title: 'Keep data' }, wipe: { type: 'boolean', title: '\u202eKeep data' } }),
      /field "wipe" .*reads as field "keep"/,
    ],
  ])('is answered -32602 for %s, naming why, and never shown', async (_what, properties, why) => {
    const { connection, prompts, events } = await setup([{ action: 'accept-defaults' }]);
    const received = await connection.ask({ mode: 'form', message: MESSAGE, requestedSchema: form(properties()) });
    expect(received).toMatchObject({ error: { code: ProtocolErrorCode.InvalidParams } });
    const message = 'error' in received ? received.error.message : '';
    expect(message).toMatch(why);
    // The refusal quotes what it names briefly: a megabyte sent is not a megabyte returned.
    expect(message.length).toBeLessThan(1_000);
    expect(prompts).toEqual([]);
    expect(events.map((e) => e.type)).toEqual(['request', 'rejected']);
  });

  it('asks a form at the caps: every option the form may offer, titles at their length', async () => {
    // Declined: on 2025-11-25 the SDK server checks an accepted answer against the form itself,
    // which for 2,000 options takes seconds of the server's own time, not the client's.
    const { connection, prompts } = await setup([{ action: 'decline' }]);
    const length = 15; // 2,000 options of 15-character titles and short values stay within the text cap
    const properties = {
      a: { type: 'string', title: 'T'.repeat(FORM_LIMITS.titleLength), oneOf: options(1000, length, 'a') },
      b: { type: 'string', title: 'B', oneOf: options(FORM_LIMITS.options - 1000, length, 'b') },
    };
    expect(await connection.ask({ mode: 'form', message: MESSAGE, requestedSchema: form(properties) })).toEqual({
      action: 'decline',
    });
    expect(prompts).toHaveLength(1);
    const fields = (prompts[0] as FormPrompt).fields;
    expect(fields.map((f) => [f.label.length, f.kind === 'select' ? f.options.length : 0])).toEqual([
      [FORM_LIMITS.titleLength, 1000],
      [1, FORM_LIMITS.options - 1000],
    ]);
  });
});
