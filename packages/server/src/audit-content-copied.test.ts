/**
 * What the audit trail records of an answer is its own copy: the tool changing the value it was
 * given (adding to a multi-select's list) after the answer was recorded does not rewrite the
 * record, and a redaction function that changes what it is handed does not change the tool's
 * value, nor does a sink that changes the record it is handed. Every redaction mode, real SDK client and server on an in-memory pair (2025-11-25: 2025-06-18 has no multi-select) and over HTTP (2026-07-28).
 */
import { field, form } from '@elicitkit/form';
import { afterEach, describe, expect, it } from 'vitest';
import { type Connected, call, connect } from '../test/harness.js';
import type { AuditEvent, Redaction } from './audit.js';
import { createElicitkit } from './kit.js';
import { done } from './results.js';
import { defineTool } from './tool.js';

let open: Connected | undefined;
afterEach(async () => {
  await open?.close();
  open = undefined;
});

const channels = form({
  channels: field.multiSelect(['email', 'sms', 'push'], { title: 'Channels' }),
  note: field.string({ title: 'Note' }).optional(),
});

/** A tool that asks, then changes the list it was given, and says what it holds afterwards. */
const notify = defineTool({
  name: 'notify',
  description: 'Notify on some channels',
  forms: { channels },
  async run(_args, { ask }) {
    const answer = await ask('channels', { message: 'Which channels should be notified?' });
    if (answer.action !== 'accept') return answer.result();
    answer.value.channels.push('push');
    answer.value.channels[0] = 'sms';
    return done(`Notified on ${answer.value.channels.join(', ')}`);
  },
});

/** A tool that asks one boolean: asked of Trae as a Yes/No choice (its adaptation). */
const confirm = defineTool({
  name: 'confirm',
  description: 'Confirm a change',
  forms: { sure: form({ sure: field.boolean({ title: 'I am sure' }) }) },
  async run(_args, { ask }) {
    const answer = await ask('sure', { message: 'Are you sure about the change?' });
    if (answer.action !== 'accept') return answer.result();
    return done(`sure: ${answer.value.sure === true}`);
  },
});

const modes: [string, Redaction][] = [
  ['redacted', 'redacted'],
  ['full', 'full'],
  // A redaction of the user's own that changes what it is handed and keeps it.
  [
    'a function',
    (content) => {
      const kept = content as Record<string, unknown>;
      (kept.channels as string[]).push('mutated-by-redaction');
      kept.note = 'rewritten';
      return kept;
    },
  ],
];

describe.each(['memory-2025-11-25', 'http-2026-07-28'] as const)('audit content on %s', (transport) => {
  it.each(modes)('with %s redaction, the record and the tool value are separate', async (name, redaction) => {
    const events: AuditEvent[] = [];
    const kit = createElicitkit({ audit: (e) => void events.push(e), redaction });
    open = await connect(transport, () => kit.createServer({ name: 'fixture', version: '1.0.0' }, [notify]), {
      script: [{ action: 'accept', content: { channels: ['email'], note: 'typed' } }],
    });
    const result = await call(open, 'notify', {});
    // The tool's value is the person's answer, whatever the redaction did with its copy.
    expect(result.text).toBe('Notified on sms, push');
    const response = events.find((e) => e.type === 'response');
    const recorded = (response as { content?: Record<string, unknown> }).content;
    if (name === 'a function')
      expect(recorded).toEqual({ channels: ['email', 'mutated-by-redaction'], note: 'rewritten' });
    else expect(recorded?.channels).toEqual(['email']);
  });

  it.each(modes)(
    'with %s redaction, a sink that changes its record does not change the answer',
    async (_name, redaction) => {
      const kit = createElicitkit({
        redaction,
        audit: (e) => {
          const content = (e as { content?: Record<string, unknown> }).content;
          if (Array.isArray(content?.channels)) content.channels.splice(0, 1, 'not-an-option');
        },
      });
      open = await connect(transport, () => kit.createServer({ name: 'fixture', version: '1.0.0' }, [notify]), {
        script: [{ action: 'accept', content: { channels: ['email'], note: 'typed' } }],
      });
      expect((await call(open, 'notify', {})).text).toBe('Notified on sms, push');
    },
  );

  it("a sink that changes a request record's adaptation changes neither this answer nor a later call's", async () => {
    const kit = createElicitkit({
      audit: (e) => {
        if (e.type === 'request' && e.adaptation) {
          e.adaptation.fields.length = 0;
          (e.adaptation as { quirk: string }).quirk = 'textOnly';
        }
      },
    });
    open = await connect(transport, () => kit.createServer({ name: 'fixture', version: '1.0.0' }, [confirm]), {
      clientName: 'Trae',
      script: [
        { action: 'accept', content: { sure: 'yes' } },
        { action: 'accept', content: { sure: 'yes' } },
      ],
    });
    expect((await call(open, 'confirm', {})).text).toBe('sure: true');
    expect((await call(open, 'confirm', {})).text).toBe('sure: true');
  });
});
