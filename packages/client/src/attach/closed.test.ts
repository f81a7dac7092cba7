import type { FormSchema } from '@elicitkit/form';
import { afterEach, describe, expect, it } from 'vitest';
import { person } from '../../test/recording.js';
import { type Connection, connect, REVISIONS } from '../../test/servers.js';
import type { Renderer } from '../types.js';
import type { ElicitationEvent } from './events.js';
import { attach } from './index.js';

const TICKET: FormSchema = {
  type: 'object',
  properties: { ticket: { type: 'string', title: 'Release ticket', minLength: 4 } },
  required: ['ticket'],
};
const ASK = { mode: 'form' as const, message: 'Which release ticket covers this deployment?', requestedSchema: TICKET };

let open: Connection | undefined;
afterEach(async () => {
  await open?.close().catch(() => undefined);
  open = undefined;
});

/** A renderer that holds each question until its signal aborts, keeping the signals it was given. */
function holding(): { renderer: Renderer; signals: AbortSignal[] } {
  const signals: AbortSignal[] = [];
  const renderer: Renderer = {
    ...person([]),
    renderForm: (_prompt, signal) => {
      signals.push(signal);
      return new Promise((resolve) =>
        signal.addEventListener('abort', () => resolve({ action: 'cancel' }), { once: true }),
      );
    },
  };
  return { renderer, signals };
}

describe.each(REVISIONS)('the client closes while the person is being asked (%s)', (revision) => {
  it('stops asking, says so, and the call settles; the host’s own onclose still runs', async () => {
    const { renderer, signals } = holding();
    const events: ElicitationEvent[] = [];
    let hostHeard = 0;
    open = await connect(revision, (client) => {
      attach(client, { renderer, onEvent: (e) => events.push(e) });
      // Set after attach, as a host does once connected.
      client.onclose = () => void hostHeard++;
    });
    const asked = open.ask(ASK).catch((error: unknown) => ({ thrown: error }));
    await expect.poll(() => signals.length).toBe(1);
    await open.client.close();
    expect(signals[0]?.aborted).toBe(true);
    await asked;
    expect(events.map((e) => e.type)).toEqual(['request', 'aborted', 'answered']);
    expect(hostHeard).toBe(1);
  });
});

describe('upstream gap (SDK 2.4.0, 2026-07-28): closing the client aborts no input request', () => {
  it('a handler registered without attach is still being asked after close', async () => {
    const signals: AbortSignal[] = [];
    open = await connect('2026-07-28', (client) => {
      client.registerCapabilities({ elicitation: { form: {} } });
      client.setRequestHandler('elicitation/create', (_request, ctx) => {
        signals.push(ctx.mcpReq.signal);
        return new Promise(() => {});
      });
    });
    void open.ask(ASK).catch(() => undefined);
    await expect.poll(() => signals.length).toBe(1);
    await open.client.close();
    await new Promise((resolve) => setImmediate(resolve));
    expect(signals[0]?.aborted).toBe(false);
  });
});
