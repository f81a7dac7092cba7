import { describe, expect, it } from 'vitest';
import { connect } from '../../test/servers.js';
import type { Renderer, UrlAnswer, UrlPrompt } from '../types.js';
import type { ElicitationEvent } from './events.js';
import { attach } from './index.js';

/**
 * notifications/elicitation/complete (2025-11-25), from a real SDK server over a linked pair: told
 * to the renderer and as an event only for a URL question this client accepted on this connection,
 * once; every other id is ignored, as the spec asks.
 */
function setup() {
  const events: ElicitationEvent[] = [];
  const completed: UrlPrompt[] = [];
  const answers: ((answer: UrlAnswer) => void)[] = [];
  const shown: UrlPrompt[] = [];
  const renderer: Renderer = {
    modes: { form: false, url: true },
    interactive: true,
    renderForm: async () => ({ action: 'cancel' }),
    renderUrl: (prompt) =>
      new Promise<UrlAnswer>((resolve) => {
        shown.push(prompt);
        answers.push(resolve);
      }),
    urlCompleted: (prompt) => void completed.push(prompt),
  };
  const onEvent = (event: ElicitationEvent) => void events.push(event);
  const told = () => events.filter((e) => e.type === 'url-completed');
  /** Resolves once the renderer shows the next question. */
  const nextShown = async (count: number) => {
    while (shown.length < count) await new Promise((resolve) => setImmediate(resolve));
  };
  return { renderer, onEvent, told, completed, answers, shown, nextShown };
}

const ask = (elicitationId: string) => ({
  mode: 'url' as const,
  message: 'Set your password on the page.',
  url: 'https://opsdesk.example.com/password',
  elicitationId,
});

describe('attach: notifications/elicitation/complete', () => {
  it('tells the renderer once, for the question it accepted, and ignores repeats', async () => {
    const t = setup();
    const connection = await connect('2025-11-25', (client) =>
      attach(client, { renderer: t.renderer, onEvent: t.onEvent, opener: () => {} }),
    );
    try {
      const received = connection.ask(ask('e-1'));
      await t.nextShown(1);
      t.answers[0]?.({ action: 'accept' });
      expect(await received).toEqual({ action: 'accept' });
      await connection.complete('e-1');
      expect(t.completed).toEqual([t.shown[0]]);
      expect(t.told()).toEqual([{ type: 'url-completed', id: 1, elicitationId: 'e-1' }]);
      await connection.complete('e-1');
      expect(t.completed).toHaveLength(1);
      expect(t.told()).toHaveLength(1);
    } finally {
      await connection.close();
    }
  });

  it('ignores unknown and hostile ids, a declined question, and a completion sent before the accept', async () => {
    const t = setup();
    const connection = await connect('2025-11-25', (client) =>
      attach(client, { renderer: t.renderer, onEvent: t.onEvent, opener: () => {} }),
    );
    try {
      const declined = connection.ask(ask('e-declined'));
      await t.nextShown(1);
      t.answers[0]?.({ action: 'decline' });
      expect(await declined).toEqual({ action: 'decline' });

      const early = connection.ask(ask('e-early'));
      await t.nextShown(2);
      // Still on the consent screen: the server cannot close it, nor mark it finished ahead.
      await connection.complete('e-early');
      for (const id of ['e-declined', 'never-asked', '__proto__', 'constructor', 'x'.repeat(10_000), '']) {
        await connection.complete(id);
      }
      expect(t.completed).toEqual([]);
      expect(t.told()).toEqual([]);
      t.answers[1]?.({ action: 'accept' });
      expect(await early).toEqual({ action: 'accept' });
      await connection.complete('e-early');
      expect(t.completed.map((p) => p.elicitationId)).toEqual(['e-early']);
    } finally {
      await connection.close();
    }
  });

  it('ignores an id accepted on an earlier connection of the same client', async () => {
    const t = setup();
    let attached = false;
    const first = await connect('2025-11-25', (client) => {
      attach(client, { renderer: t.renderer, onEvent: t.onEvent, opener: () => {} });
      attached = true;
    });
    expect(attached).toBe(true);
    const received = first.ask(ask('e-old'));
    await t.nextShown(1);
    t.answers[0]?.({ action: 'accept' });
    expect(await received).toEqual({ action: 'accept' });
    await first.client.close();
    // The same client, connected again, to another server that names the old id.
    const second = await connect('2025-11-25', () => {}, undefined, first.client);
    try {
      await second.complete('e-old');
      expect(t.completed).toEqual([]);
      expect(t.told()).toEqual([]);
    } finally {
      await second.close();
      await first.close();
    }
  });
});
