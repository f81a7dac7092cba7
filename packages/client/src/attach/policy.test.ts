import type { FormSchema } from '@elicitkit/form';
import { afterEach, describe, expect, it } from 'vitest';
import { person, recording } from '../../test/recording.js';
import { type Connection, connect, REVISIONS, type ServerInfo } from '../../test/servers.js';
import type { Policy } from '../policy/index.js';
import { createRateLimiter, type RateLimiter } from '../policy/rate-limit.js';
import { createScriptedRenderer } from '../renderers/scripted/index.js';
import type { FormPrompt, Renderer } from '../types.js';
import type { ElicitationEvent } from './events.js';
import { attach } from './index.js';

const TICKET: FormSchema = {
  type: 'object',
  properties: { ticket: { type: 'string', title: 'Release ticket', minLength: 4 } },
  required: ['ticket'],
};
const SECRET: FormSchema = {
  type: 'object',
  properties: {
    username: { type: 'string', title: 'Username' },
    password: { type: 'string', title: 'Password' },
  },
};
const ASK = { mode: 'form' as const, message: 'Which release ticket covers this deployment?', requestedSchema: TICKET };

let open: Connection | undefined;
afterEach(async () => {
  await open?.close();
  open = undefined;
});

async function setup(
  renderer: Renderer,
  policy: Policy = {},
  extra: { now?: () => number; limiter?: RateLimiter } = {},
) {
  const events: ElicitationEvent[] = [];
  const recorded = recording(renderer);
  open = await connect('2025-11-25', (client) =>
    attach(client, { renderer: recorded.renderer, policy, onEvent: (e) => events.push(e), ...extra }),
  );
  return { connection: open, prompts: recorded.prompts, events };
}

describe('a pre-ticked confirmation (EK06)', () => {
  const PRETICKED: FormSchema = {
    type: 'object',
    properties: {
      confirmed: { type: 'boolean', title: 'I confirm this production deploy', default: true },
      ticket: { type: 'string', title: 'Release ticket', default: 'REL-1001' },
    },
  };
  const ask = { mode: 'form' as const, message: 'Deploy order-service to production?', requestedSchema: PRETICKED };

  it.each(REVISIONS)('is drawn unticked and stays unticked when the person leaves it (%s)', async (revision) => {
    const events: ElicitationEvent[] = [];
    const recorded = recording(createScriptedRenderer([{ action: 'accept-defaults' }]));
    open = await connect(revision, (client) =>
      attach(client, { renderer: recorded.renderer, onEvent: (e) => events.push(e) }),
    );
    expect(await open.ask(ask)).toEqual({ action: 'accept', content: { confirmed: false, ticket: 'REL-1001' } });
    const prompt = recorded.prompts[0] as FormPrompt;
    expect(prompt.fields.find((f) => f.name === 'confirmed')?.default).toBe(false);
    expect(prompt.findings.map((f) => f.rule)).toContain('EK06');
    // Other defaults are untouched.
    expect(prompt.fields.find((f) => f.name === 'ticket')?.default).toBe('REL-1001');
  });

  it('a person who ticks it still sends true', async () => {
    const { connection } = await setup(
      createScriptedRenderer([{ action: 'accept', content: { confirmed: true, ticket: 'REL-1001' } }]),
    );
    expect(await connection.ask(ask)).toEqual({ action: 'accept', content: { confirmed: true, ticket: 'REL-1001' } });
  });
});

describe('policy: secrets', () => {
  const ask = { mode: 'form' as const, message: 'Sign in to the deployment console.', requestedSchema: SECRET };

  it('warn (default): the renderer is told which fields ask for a secret', async () => {
    const { connection, prompts } = await setup(createScriptedRenderer([{ action: 'decline' }]));
    expect(await connection.ask(ask)).toEqual({ action: 'decline' });
    const prompt = prompts[0] as FormPrompt;
    expect(prompt.secretFields).toEqual(['password']);
    expect(prompt.findings.filter((f) => f.rule === 'EK09').map((f) => f.field)).toEqual(['password']);
  });

  it('decline: answers decline without showing anything, and says why', async () => {
    const { connection, prompts, events } = await setup(createScriptedRenderer([{ action: 'accept' }]), {
      secrets: 'decline',
    });
    expect(await connection.ask(ask)).toEqual({ action: 'decline' });
    expect(prompts).toEqual([]);
    expect(events.find((e) => e.type === 'auto-declined')).toMatchObject({ reason: 'secret-field' });
    expect(events.at(-1)).toMatchObject({ type: 'answered', action: 'decline' });
  });

  it('decline leaves forms without secrets alone', async () => {
    const { connection } = await setup(
      createScriptedRenderer([{ action: 'accept', content: { ticket: 'REL-1001' } }]),
      {
        secrets: 'decline',
      },
    );
    expect(await connection.ask(ASK)).toEqual({ action: 'accept', content: { ticket: 'REL-1001' } });
  });
});

describe('policy: rate limit per server', () => {
  it('declines a flood beyond the limit without bothering the person', async () => {
    const answers = Array.from({ length: 10 }, () => ({ action: 'accept' as const, content: { ticket: 'REL-1001' } }));
    const { connection, prompts, events } = await setup(createScriptedRenderer(answers), {
      rateLimit: { max: 5, perMs: 60_000 },
    });
    const received = await Promise.all(Array.from({ length: 10 }, () => connection.ask(ASK)));
    expect(received.filter((r) => 'action' in r && r.action === 'accept')).toHaveLength(5);
    expect(received.filter((r) => 'action' in r && r.action === 'decline')).toHaveLength(5);
    expect(prompts).toHaveLength(5);
    const declined = events.filter((e) => e.type === 'auto-declined');
    expect(declined).toHaveLength(5);
    expect(declined[0]).toMatchObject({ reason: 'rate-limit', message: expect.stringContaining('test-server@2.0.0') });
  });

  it('lets questions through again once the window has passed', async () => {
    let now = 0;
    const { connection, prompts } = await setup(
      createScriptedRenderer([{ action: 'decline' }, { action: 'decline' }, { action: 'cancel' }]),
      { rateLimit: { max: 2, perMs: 1_000 } },
      { now: () => now },
    );
    expect(await connection.ask(ASK)).toEqual({ action: 'decline' });
    now = 500;
    expect(await connection.ask(ASK)).toEqual({ action: 'decline' });
    now = 999;
    expect(await connection.ask(ASK)).toEqual({ action: 'decline' });
    expect(prompts).toHaveLength(2);
    now = 1_000;
    expect(await connection.ask(ASK)).toEqual({ action: 'cancel' });
    expect(prompts).toHaveLength(3);
  });

  it('starts afresh for each client by default', async () => {
    const declines = () => createScriptedRenderer(Array.from({ length: 2 }, () => ({ action: 'decline' as const })));
    const policy = { rateLimit: { max: 2, perMs: 60_000 } };
    const first = await setup(declines(), policy);
    await Promise.all([first.connection.ask(ASK), first.connection.ask(ASK)]);
    await first.connection.close();
    const second = await setup(declines(), policy);
    await Promise.all([second.connection.ask(ASK), second.connection.ask(ASK)]);
    expect(second.prompts).toHaveLength(2);
  });

  it('outlives the client with a limiter passed in: a reconnect does not refill the budget', async () => {
    const limiter = createRateLimiter({ max: 3, perMs: 60_000 });
    const policy = { rateLimit: { max: 3, perMs: 60_000 } };
    const declines = () => createScriptedRenderer(Array.from({ length: 3 }, () => ({ action: 'decline' as const })));
    const first = await setup(declines(), policy, { limiter });
    await Promise.all([first.connection.ask(ASK), first.connection.ask(ASK)]);
    expect(first.prompts).toHaveLength(2);
    await first.connection.close();
    // The server reconnects (a restart): one question is left of its budget.
    const second = await setup(declines(), policy, { limiter });
    const received = await Promise.all([second.connection.ask(ASK), second.connection.ask(ASK)]);
    expect(second.prompts).toHaveLength(1);
    expect(received).toEqual([{ action: 'decline' }, { action: 'decline' }]);
    expect(second.events.filter((e) => e.type === 'auto-declined')).toHaveLength(1);
  });

  // A server's name and version are its own to report: keyed by them, a server that reported a
  // new version on each reconnect started a fresh budget, and one that took another's name spent
  // that one's. The host names the server it configured instead (`budget`).
  const reconnecting = async (info: ServerInfo, budget: string, limiter: RateLimiter) => {
    const recorded = recording(createScriptedRenderer([{ action: 'decline' }]));
    const connection = await connect(
      '2025-11-25',
      (client) =>
        attach(client, {
          renderer: recorded.renderer,
          policy: { rateLimit: { max: 1, perMs: 60_000 } },
          limiter,
          budget,
        }),
      info,
    );
    return { connection, prompts: recorded.prompts };
  };

  it('keeps a server’s budget, named by the host, when it reconnects reporting another version', async () => {
    const limiter = createRateLimiter({ max: 1, perMs: 60_000 });
    const first = await reconnecting({ name: 'opsdesk', version: '1.0.0' }, 'opsdesk', limiter);
    expect(await first.connection.ask(ASK)).toEqual({ action: 'decline' });
    expect(first.prompts).toHaveLength(1);
    await first.connection.close();
    const second = await reconnecting({ name: 'opsdesk', version: '1.0.1' }, 'opsdesk', limiter);
    open = second.connection;
    expect(await second.connection.ask(ASK)).toEqual({ action: 'decline' });
    expect(second.prompts).toHaveLength(0);
  });

  it('does not let a server that takes another’s name spend that one’s budget', async () => {
    const limiter = createRateLimiter({ max: 1, perMs: 60_000 });
    const same = { name: 'opsdesk', version: '1.0.0' };
    const real = await reconnecting(same, 'opsdesk', limiter);
    const impostor = await reconnecting(same, 'other-server', limiter);
    try {
      expect(await impostor.connection.ask(ASK)).toEqual({ action: 'decline' });
      expect(await real.connection.ask(ASK)).toEqual({ action: 'decline' });
      expect(impostor.prompts).toHaveLength(1);
      expect(real.prompts).toHaveLength(1);
    } finally {
      await impostor.connection.close();
      await real.connection.close();
    }
  });

  it('a limiter that answers later (a budget kept elsewhere) is waited for: over it, declined unseen', async () => {
    const counted = createRateLimiter({ max: 1, perMs: 60_000 });
    const later: RateLimiter = {
      take: (key) => new Promise((resolve) => setImmediate(() => resolve(counted.take(key)))),
    };
    const { connection, prompts, events } = await setup(
      createScriptedRenderer([{ action: 'decline' }, { action: 'decline' }]),
      { rateLimit: { max: 1, perMs: 60_000 } },
      { limiter: later },
    );
    expect(await Promise.all([connection.ask(ASK), connection.ask(ASK)])).toEqual([
      { action: 'decline' },
      { action: 'decline' },
    ]);
    expect(prompts).toHaveLength(1);
    expect(events.filter((e) => e.type === 'auto-declined')).toHaveLength(1);
  });

  it('a limiter that fails (its Redis gone) fails the question: never shown uncounted, never answered for the person', async () => {
    const failing: RateLimiter = { take: () => Promise.reject(new Error('Connection is closed.')) };
    const { connection, prompts } = await setup(
      createScriptedRenderer([{ action: 'accept', content: { ticket: 'REL-1001' } }]),
      {},
      { limiter: failing },
    );
    // The server hears an error for its request, not an answer.
    expect(await connection.ask(ASK)).toMatchObject({ error: { code: -32603 } });
    expect(prompts).toHaveLength(0);
  });

  it('a limiter that never answers (a Redis client retrying for ever) holds the question no longer than the policy’s timeout', async () => {
    const silent: RateLimiter = { take: () => new Promise<boolean>(() => {}) };
    const { connection, prompts, events } = await setup(
      createScriptedRenderer([{ action: 'accept', content: { ticket: 'REL-1001' } }]),
      { timeoutMs: 50 },
      { limiter: silent },
    );
    expect(await connection.ask(ASK)).toEqual({ action: 'cancel' });
    expect(prompts).toHaveLength(0);
    expect(events.map((e) => e.type)).toEqual(['request', 'timed-out', 'answered']);
  });

  it('a question withdrawn while its limiter has not answered stops there, unseen', async () => {
    const silent: RateLimiter = { take: () => new Promise<boolean>(() => {}) };
    const { connection, prompts, events } = await setup(
      createScriptedRenderer([{ action: 'accept', content: { ticket: 'REL-1001' } }]),
      {},
      { limiter: silent },
    );
    await connection.ask(ASK, { serverTimeoutMs: 50 });
    await expect.poll(() => events.map((e) => e.type)).toEqual(['request', 'aborted', 'answered']);
    expect(prompts).toHaveLength(0);
  });

  it('is off with rateLimit: false', async () => {
    const answers = Array.from({ length: 8 }, () => ({ action: 'decline' as const }));
    const { connection, prompts } = await setup(createScriptedRenderer(answers), { rateLimit: false });
    await Promise.all(Array.from({ length: 8 }, () => connection.ask(ASK)));
    expect(prompts).toHaveLength(8);
  });
});

describe('policy: invalid answers from a live person', () => {
  it('asks again with the issues and the previous answer, then sends the corrected one', async () => {
    const { connection, prompts, events } = await setup(
      person([
        { action: 'accept', content: { ticket: 'R1' } },
        { action: 'accept', content: { ticket: 'REL-1001' } },
      ]),
    );
    expect(await connection.ask(ASK)).toEqual({ action: 'accept', content: { ticket: 'REL-1001' } });
    const second = prompts[1] as FormPrompt;
    expect(second.attempt).toBe(2);
    expect(second.previous).toEqual({ ticket: 'R1' });
    expect(second.issues?.map((i) => i.code)).toEqual(['too_short']);
    expect(events.find((e) => e.type === 'invalid-answer')).toMatchObject({ attempt: 1, willRetry: true });
  });

  it('gives up with cancel after maxAttempts', async () => {
    const bad = { action: 'accept' as const, content: { ticket: 'R1' } };
    const { connection, events } = await setup(person([bad, bad]), { maxAttempts: 2 });
    expect(await connection.ask(ASK)).toEqual({ action: 'cancel' });
    expect(
      events.filter((e) => e.type === 'invalid-answer').map((e) => e.type === 'invalid-answer' && e.willRetry),
    ).toEqual([true, false]);
  });

  it('answers cancel, opening nothing, when a URL consent comes back as nonsense', async () => {
    const opened: string[] = [];
    const events: ElicitationEvent[] = [];
    open = await connect('2025-11-25', (client) =>
      attach(client, {
        renderer: person([{ action: 'open' } as never]),
        opener: (url) => void opened.push(url),
        onEvent: (e) => events.push(e),
      }),
    );
    const ask = {
      mode: 'url' as const,
      message: 'Finish on the page.',
      url: 'https://example.com/x',
      elicitationId: 'e',
    };
    expect(await open.ask(ask)).toEqual({ action: 'cancel' });
    expect(opened).toEqual([]);
    expect(events.find((e) => e.type === 'renderer-failed')).toMatchObject({ error: expect.any(TypeError) });
  });

  it('answers cancel when the renderer fails or answers nonsense', async () => {
    const nonsense = person([{ action: 'maybe' } as never]);
    const { connection, events } = await setup(nonsense);
    expect(await connection.ask(ASK)).toEqual({ action: 'cancel' });
    expect(await connection.ask(ASK)).toEqual({ action: 'cancel' });
    const failures = events.filter((e) => e.type === 'renderer-failed');
    expect(failures.map((e) => e.type === 'renderer-failed' && String(e.error))).toEqual([
      expect.stringContaining('"maybe"'),
      expect.stringContaining('no more answers'),
    ]);
  });
});

describe.each(REVISIONS)('timeouts and withdrawal on %s', (revision) => {
  it('answers cancel after policy.timeoutMs and tells the renderer to tear down', async () => {
    const seen: AbortSignal[] = [];
    const renderer: Renderer = {
      ...person([]),
      renderForm: (_prompt, signal) => {
        seen.push(signal);
        return new Promise(() => {});
      },
    };
    const events: ElicitationEvent[] = [];
    open = await connect(revision, (client) =>
      attach(client, { renderer, policy: { timeoutMs: 20 }, onEvent: (e) => events.push(e) }),
    );
    expect(await open.ask(ASK)).toEqual({ action: 'cancel' });
    expect(seen[0]?.aborted).toBe(true);
    expect(events.map((e) => e.type)).toEqual(['request', 'timed-out', 'answered']);
  });

  it('waits for the person however long the policy says (30 days: past what one timer holds)', async () => {
    let answer: (value: { action: 'decline' }) => void = () => {};
    const seen: AbortSignal[] = [];
    const renderer: Renderer = {
      ...person([]),
      renderForm: (_prompt, signal) => {
        seen.push(signal);
        return new Promise((resolve) => {
          answer = resolve;
        });
      },
    };
    const events: ElicitationEvent[] = [];
    open = await connect(revision, (client) =>
      attach(client, { renderer, policy: { timeoutMs: 30 * 24 * 60 * 60_000 }, onEvent: (e) => events.push(e) }),
    );
    const asked = open.ask(ASK);
    await expect.poll(() => seen.length).toBe(1);
    // Long enough for a timer that overflowed (it fired after 1 ms) to have fired.
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(seen[0]?.aborted).toBe(false);
    answer({ action: 'decline' });
    expect(await asked).toEqual({ action: 'decline' });
    expect(events.map((e) => e.type)).toEqual(['request', 'answered']);
  });

  it('stops asking when the request is withdrawn', async () => {
    const seen: AbortSignal[] = [];
    let started: () => void = () => {};
    const drawn = new Promise<void>((resolve) => {
      started = resolve;
    });
    const renderer: Renderer = {
      ...person([]),
      renderForm: (_prompt, signal) => {
        seen.push(signal);
        started();
        return new Promise(() => {});
      },
    };
    const events: ElicitationEvent[] = [];
    open = await connect(revision, (client) => attach(client, { renderer, onEvent: (e) => events.push(e) }));
    if (revision === '2025-11-25') {
      // The server gives up on its own request and cancels it.
      await open.ask(ASK, { serverTimeoutMs: 200 });
    } else {
      // The caller abandons the tool call while the person is being asked.
      const caller = new AbortController();
      const asked = open.ask(ASK, { signal: caller.signal }).catch((error: unknown) => ({ thrown: error }));
      await drawn;
      caller.abort();
      await asked;
    }
    await expect.poll(() => events.map((e) => e.type)).toEqual(['request', 'aborted', 'answered']);
    expect(seen[0]?.aborted).toBe(true);
  });
});

describe('one question at a time', () => {
  it('draws concurrent questions one after another, and never one withdrawn while waiting', async () => {
    let showing = 0;
    let most = 0;
    const release: (() => void)[] = [];
    const renderer: Renderer = {
      ...person([]),
      async renderForm() {
        showing++;
        most = Math.max(most, showing);
        await new Promise<void>((resolve) => release.push(resolve));
        showing--;
        return { action: 'accept', content: { ticket: 'REL-1001' } };
      },
    };
    const recorded = recording(renderer);
    open = await connect('2025-11-25', (client) => attach(client, { renderer: recorded.renderer }));
    const first = open.ask(ASK);
    const second = open.ask(ASK);
    const withdrawn = open.ask(ASK, { serverTimeoutMs: 30 });
    await expect.poll(() => release.length).toBe(1);
    await withdrawn;
    release.shift()?.();
    await expect.poll(() => release.length).toBe(1);
    release.shift()?.();
    expect(await first).toMatchObject({ action: 'accept' });
    expect(await second).toMatchObject({ action: 'accept' });
    expect(most).toBe(1);
    expect(recorded.prompts).toHaveLength(2);
  });
});
