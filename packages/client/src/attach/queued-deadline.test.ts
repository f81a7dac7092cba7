/**
 * `policy.timeoutMs` is how long a person has to answer. Questions are shown one at a time
 * (`createSerial`); each question's timer started when it arrived, not when it was shown, so one
 * waiting behind another lost that time, and one whose wait outlasted the timeout was answered
 * `cancel` — "the person abandons the whole operation" — without ever being shown. The timer now
 * runs from when the question is shown. The margins are wide (the machine may be loaded): each
 * answer comes 800 ms inside its own time, and 400 ms past what the old timer left the second.
 * Real SDK server and client (2026-07-28 round over the in-process HTTP handler; 2025-11-25
 * concurrent pushes over the in-memory pair).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { recording } from '../../test/recording.js';
import { type Ask, type Connection, connect } from '../../test/servers.js';
import type { FormAnswer, Renderer } from '../types.js';
import type { ElicitationEvent } from './events.js';
import { attach } from './index.js';

const ask = (title: string): Ask => ({
  mode: 'form',
  message: `The ${title} for the deploy of order-service?`,
  requestedSchema: { type: 'object', properties: { v: { type: 'string', title } }, required: ['v'] },
});

/** A person who takes `thinkMs[i]` to answer the i-th question shown, and answers accept. */
function slowPerson(thinkMs: number[]): Renderer {
  let shown = 0;
  const answer = (signal: AbortSignal): Promise<FormAnswer> => {
    const ms = thinkMs[shown++] ?? 0;
    return new Promise((resolve) => {
      const timer = setTimeout(() => resolve({ action: 'accept', content: { v: `answer ${shown}` } }), ms);
      signal.addEventListener(
        'abort',
        () => {
          clearTimeout(timer);
          resolve({ action: 'cancel' });
        },
        { once: true },
      );
    });
  };
  return {
    modes: { form: true, url: true },
    interactive: true,
    renderForm: (_prompt, signal) => answer(signal),
    renderUrl: async (_prompt, signal) =>
      (await answer(signal)).action === 'accept' ? { action: 'accept' } : { action: 'cancel' },
  };
}

let open: Connection[] = [];
afterEach(async () => {
  await Promise.all(open.map((c) => c.close()));
  open = [];
});

const TIMEOUT_MS = 2_000;

describe('a question waiting its turn keeps its whole answering time', () => {
  it('2026-07-28 round: the second question, shown after the first took most of the timeout, is not cancelled unseen', async () => {
    const events: ElicitationEvent[] = [];
    // Each answer takes 1,200 ms once shown (within 2,000): the second, 2,400 ms after it arrived.
    const recorded = recording(slowPerson([1_200, 1_200]));
    const connection = await connect('2026-07-28', (client) =>
      attach(client, {
        renderer: recorded.renderer,
        policy: { timeoutMs: TIMEOUT_MS },
        onEvent: (e) => events.push(e),
      }),
    );
    open.push(connection);
    const received = await connection.askRound([ask('Ticket'), ask('Reason')]);
    expect(events.filter((e) => e.type === 'timed-out')).toEqual([]);
    expect(received).toEqual({
      q0: { action: 'accept', content: { v: 'answer 1' } },
      q1: { action: 'accept', content: { v: 'answer 2' } },
    });
  });

  it('2025-11-25 concurrent questions: the one drawn second gets its whole time once shown', async () => {
    const events: ElicitationEvent[] = [];
    // The first answer takes 1,200 ms (within 2,000) while the second waits unseen; once shown, the
    // second is answered in 1,200 ms too: 2,400 ms after it arrived.
    const recorded = recording(slowPerson([1_200, 1_200]));
    const connection = await connect('2025-11-25', (client) =>
      attach(client, {
        renderer: recorded.renderer,
        policy: { timeoutMs: TIMEOUT_MS },
        onEvent: (e) => events.push(e),
      }),
    );
    open.push(connection);
    const first = connection.ask(ask('Ticket'));
    const second = connection.ask(ask('Reason'));
    expect(await first).toMatchObject({ action: 'accept' });
    expect(await second).toMatchObject({ action: 'accept' });
    expect(recorded.prompts).toHaveLength(2);
    expect(events.filter((e) => e.type === 'timed-out')).toEqual([]);
  });
});
