import type { FormSchema } from '@elicitkit/form';
import { afterEach, describe, expect, it } from 'vitest';
import { type Connection, connect, SERVER_INFO } from '../../../test/servers.js';
import { attach } from '../../attach/index.js';
import { createMemoryRegistry } from '../../registry/memory.js';
import { manualClock } from '../../registry/registry.suite.js';
import type { Settlement } from '../../registry/types.js';
import type { Prompt } from '../../types.js';
import { formPrompt, urlPrompt } from '../conformance.suite.js';
import { createRegistryRenderer } from './index.js';

const SCHEMA: FormSchema = {
  type: 'object',
  properties: { ticket: { type: 'string', title: 'Release ticket', minLength: 4 } },
  required: ['ticket'],
};

function setup(publishImpl?: (id: string, prompt: Prompt) => void) {
  const clock = manualClock();
  const registry = createMemoryRegistry({ now: clock.now, setTimer: clock.setTimer });
  const published: { id: string; prompt: Prompt }[] = [];
  const settled: { id: string; settlement: Settlement }[] = [];
  const renderer = createRegistryRenderer({
    registry,
    owner: 'session-1',
    timeoutMs: 1_000,
    publish: publishImpl ?? ((id, prompt) => void published.push({ id, prompt })),
    settled: (id, settlement) => void settled.push({ id, settlement }),
    data: (prompt) => ({ message: prompt.message }),
  });
  const nextId = async () => {
    await expect.poll(() => published.length).toBeGreaterThan(0);
    return (published.shift() as { id: string }).id;
  };
  return { clock, registry, renderer, published, settled, nextId };
}

describe('registry renderer', () => {
  it('publishes the prompt under a pending id and returns what the owner answers', async () => {
    const { registry, renderer, published, nextId } = setup();
    const prompt = formPrompt(SCHEMA);
    const answer = renderer.renderForm(prompt, new AbortController().signal);
    await expect.poll(() => published.length).toBe(1);
    expect(published[0]?.prompt).toBe(prompt);
    const id = await nextId();
    expect(await registry.resolve(id, 'session-1', { action: 'accept', content: { ticket: 'REL-1001' } })).toBe('ok');
    expect(await answer).toEqual({ action: 'accept', content: { ticket: 'REL-1001' } });
  });

  it('keeps the host’s data with the entry and reports how each question settled', async () => {
    const { clock, registry, renderer, settled, nextId } = setup();
    const prompt = formPrompt(SCHEMA);
    const cancelled = renderer.renderForm(prompt, new AbortController().signal);
    const first = await nextId();
    expect((await registry.get(first))?.data).toEqual({ message: prompt.message });
    await registry.resolve(first, 'session-1', { action: 'cancel' });
    expect(await cancelled).toEqual({ action: 'cancel' });
    const expired = renderer.renderForm(prompt, new AbortController().signal);
    const second = await nextId();
    clock.advance(1_000);
    expect(await expired).toEqual({ action: 'cancel' });
    expect(settled).toEqual([
      { id: first, settlement: { reason: 'cancelled' } },
      { id: second, settlement: { reason: 'expired' } },
    ]);
  });

  it('reads an accept without content as an empty form answer, and URL consent without content', async () => {
    const { registry, renderer, nextId } = setup();
    const form = renderer.renderForm(formPrompt(SCHEMA), new AbortController().signal);
    await registry.resolve(await nextId(), 'session-1', { action: 'accept' });
    expect(await form).toEqual({ action: 'accept', content: {} });
    const url = renderer.renderUrl(urlPrompt('https://example.com/a'), new AbortController().signal);
    await registry.resolve(await nextId(), 'session-1', { action: 'accept', content: { stray: 'x' } });
    expect(await url).toEqual({ action: 'accept' });
  });

  it('ignores answers from anyone but the owner', async () => {
    const { registry, renderer, nextId } = setup();
    const answer = renderer.renderForm(formPrompt(SCHEMA), new AbortController().signal);
    const id = await nextId();
    expect(await registry.resolve(id, 'session-2', { action: 'accept', content: { ticket: 'EVIL' } })).toBe(
      'forbidden',
    );
    expect(await registry.resolve(id, 'session-1', { action: 'decline' })).toBe('ok');
    expect(await answer).toEqual({ action: 'decline' });
  });

  it('answers cancel when the question times out in the registry', async () => {
    const { clock, registry, renderer, nextId } = setup();
    const answer = renderer.renderUrl(urlPrompt('https://example.com/a'), new AbortController().signal);
    const id = await nextId();
    clock.advance(1_000);
    expect(await answer).toEqual({ action: 'cancel' });
    expect(await registry.resolve(id, 'session-1', { action: 'accept' })).toBe('expired');
  });

  it('answers cancel and withdraws the entry when the question is withdrawn', async () => {
    const { registry, renderer, settled, nextId } = setup();
    const controller = new AbortController();
    const answer = renderer.renderForm(formPrompt(SCHEMA), controller.signal);
    const id = await nextId();
    controller.abort();
    expect(await answer).toEqual({ action: 'cancel' });
    expect(settled).toEqual([{ id, settlement: { reason: 'withdrawn' } }]);
    expect(await registry.resolve(id, 'session-1', { action: 'decline' })).toBe('expired');
    expect(await renderer.renderForm(formPrompt(SCHEMA), AbortSignal.abort())).toEqual({ action: 'cancel' });
  });

  it('withdraws the entry and fails when the question cannot be delivered', async () => {
    let seen = '';
    const { registry, renderer } = setup((id) => {
      seen = id;
      throw new Error('the page is gone');
    });
    await expect(renderer.renderForm(formPrompt(SCHEMA), new AbortController().signal)).rejects.toThrow(
      'the page is gone',
    );
    expect(await registry.resolve(seen, 'session-1', { action: 'decline' })).toBe('expired');
  });
});

describe('registry renderer on a store that fails', () => {
  it('withdraws the entry when waiting fails (a Redis subscription down), so no answer is taken for it', async () => {
    const { registry } = setup();
    const published: string[] = [];
    const renderer = createRegistryRenderer({
      // The Redis registry's wait rejects while its subscription is down (redis.test.ts).
      registry: { ...registry, wait: () => Promise.reject(new Error('Connection is closed.')) },
      owner: 'session-1',
      publish: (id) => void published.push(id),
    });
    await expect(renderer.renderForm(formPrompt(SCHEMA), new AbortController().signal)).rejects.toThrow(
      'Connection is closed.',
    );
    // The asking side answered cancel: the person's answer is refused, not taken for nobody.
    const late = await registry.resolve(published[0] as string, 'session-1', {
      action: 'accept',
      content: { ticket: 'REL-1001' },
    });
    expect(late).toBe('expired');
  });
});

describe('registry renderer: showing the outcome fails', () => {
  it('still returns the answer the person was told was taken', async () => {
    const { registry } = setup();
    const published: string[] = [];
    const renderer = createRegistryRenderer({
      registry,
      owner: 'session-1',
      publish: (id) => void published.push(id),
      settled: () => {
        throw new Error('the chat stream is closed');
      },
    });
    const answer = renderer.renderForm(formPrompt(SCHEMA), new AbortController().signal);
    await expect.poll(() => published.length).toBe(1);
    const taken = await registry.resolve(published[0] as string, 'session-1', {
      action: 'accept',
      content: { ticket: 'REL-1001' },
    });
    expect(taken).toBe('ok');
    expect(await answer).toEqual({ action: 'accept', content: { ticket: 'REL-1001' } });
  });
});

describe('registry renderer behind attach (the web app shape), 2026-07-28', () => {
  let open: Connection | undefined;
  afterEach(async () => {
    await open?.close();
  });

  it('republishes an invalid answer with its issues, then sends the corrected one', async () => {
    const registry = createMemoryRegistry();
    const published: { id: string; prompt: Prompt }[] = [];
    const renderer = createRegistryRenderer({
      registry,
      owner: 'chat-7',
      publish: (id, prompt) => void published.push({ id, prompt }),
    });
    open = await connect('2026-07-28', (client) => attach(client, { renderer }));
    const received = open.ask({
      mode: 'form',
      message: 'Which release ticket covers this deployment?',
      requestedSchema: SCHEMA,
    });
    await expect.poll(() => published.length).toBe(1);
    const first = published[0] as { id: string; prompt: Prompt };
    expect(first.prompt.server).toEqual(SERVER_INFO);
    await registry.resolve(first.id, 'chat-7', { action: 'accept', content: { ticket: 'R1' } });
    await expect.poll(() => published.length).toBe(2);
    const second = published[1] as { id: string; prompt: Prompt };
    expect(second.id).not.toBe(first.id);
    expect(second.prompt.mode === 'form' && second.prompt.issues?.map((i) => i.code)).toEqual(['too_short']);
    expect(await registry.resolve(first.id, 'chat-7', { action: 'accept', content: { ticket: 'REL-1001' } })).toBe(
      'already-answered',
    );
    await registry.resolve(second.id, 'chat-7', { action: 'accept', content: { ticket: 'REL-1001' } });
    expect(await received).toEqual({ action: 'accept', content: { ticket: 'REL-1001' } });
  });

  it.each([
    ['by default, attach fills a default into an answer that leaves its field out', undefined, { env: 'prod' }],
    ['with prefillsDefaults, an answer is final: a default the page showed and the person cleared stays out', true, {}],
  ] as const)('%s', async (_name, prefillsDefaults, sent) => {
    const registry = createMemoryRegistry();
    const published: { id: string; prompt: Prompt }[] = [];
    const renderer = createRegistryRenderer({
      registry,
      owner: 'chat-7',
      publish: (id, prompt) => void published.push({ id, prompt }),
      ...(prefillsDefaults ? { prefillsDefaults } : {}),
    });
    expect(renderer.prefillsDefaults).toBe(prefillsDefaults === true);
    open = await connect('2026-07-28', (client) => attach(client, { renderer }));
    const received = open.ask({
      mode: 'form',
      message: 'Which environment should be checked?',
      requestedSchema: {
        type: 'object',
        properties: { env: { type: 'string', title: 'Env', enum: ['dev', 'prod'], default: 'prod' } },
      },
    });
    await expect.poll(() => published.length).toBe(1);
    await registry.resolve((published[0] as { id: string }).id, 'chat-7', { action: 'accept', content: {} });
    expect(await received).toEqual({ action: 'accept', content: sent });
  });
});

// Was: each question's time in the registry ran from when it was published, its turn come. Questions
// of one connection are shown one at a time, and a server times each from when it asked: the web
// app's second question of two parallel calls, shown once the first was answered, outlived opsdesk's
// wait — the person's answer was taken ('ok', "answered accept") after the call had ended "no answer
// arrived". With `timeoutFrom: 'received'` it has what is left of its time since it arrived.
describe("registry renderer: a question's time from when it arrived (timeoutFrom: 'received')", () => {
  let open: Connection | undefined;
  afterEach(async () => {
    await open?.close();
  });

  function fromReceived() {
    const clock = manualClock();
    const registry = createMemoryRegistry({ now: clock.now, setTimer: clock.setTimer });
    const published: string[] = [];
    const settled: { id: string; settlement: Settlement }[] = [];
    const renderer = createRegistryRenderer({
      registry,
      owner: 'chat-1',
      timeoutMs: 1_000,
      timeoutFrom: 'received',
      now: clock.now,
      publish: (id) => void published.push(id),
      settled: (id, settlement) => void settled.push({ id, settlement }),
    });
    return { clock, registry, renderer, published, settled };
  }

  it('one that waited 600 ms of its 1,000 gets 400 ms in the registry', async () => {
    const { clock, registry, renderer, published } = fromReceived();
    const answer = renderer.renderForm(
      { ...formPrompt(SCHEMA), receivedAt: clock.now() - 600 },
      new AbortController().signal,
    );
    await expect.poll(() => published.length).toBe(1);
    const entry = await registry.get(published[0] as string);
    expect((entry?.expiresAt ?? 0) - (entry?.openedAt ?? 0)).toBe(400);
    clock.advance(400);
    expect(await answer).toEqual({ action: 'cancel' });
  });

  it('one whose time ran out while it waited is shown, expired at once: no answer is taken for it', async () => {
    const { clock, registry, renderer, published, settled } = fromReceived();
    const answer = renderer.renderForm(
      { ...formPrompt(SCHEMA), receivedAt: clock.now() - 1_500 },
      new AbortController().signal,
    );
    await expect.poll(() => published.length).toBe(1);
    const id = published[0] as string;
    clock.advance(1);
    expect(await answer).toEqual({ action: 'cancel' });
    expect(settled).toEqual([{ id, settlement: { reason: 'expired' } }]);
    expect(await registry.resolve(id, 'chat-1', { action: 'accept', content: { ticket: 'REL-1001' } })).not.toBe('ok');
  });

  it("a prompt without receivedAt (built by hand), and the default 'shown': the whole time", async () => {
    const { clock, registry, renderer, published } = fromReceived();
    void renderer.renderForm(formPrompt(SCHEMA), new AbortController().signal);
    await expect.poll(() => published.length).toBe(1);
    const entry = await registry.get(published[0] as string);
    expect((entry?.expiresAt ?? 0) - (entry?.openedAt ?? 0)).toBe(1_000);
    const shown: string[] = [];
    const byDefault = createRegistryRenderer({
      registry,
      owner: 'chat-1',
      timeoutMs: 1_000,
      now: clock.now,
      publish: (id) => void shown.push(id),
    });
    void byDefault.renderForm({ ...formPrompt(SCHEMA), receivedAt: clock.now() - 600 }, new AbortController().signal);
    await expect.poll(() => shown.length).toBe(1);
    const whole = await registry.get(shown[0] as string);
    expect((whole?.expiresAt ?? 0) - (whole?.openedAt ?? 0)).toBe(1_000);
  });

  it('refuses a timeoutFrom it does not know, and received without timeoutMs', () => {
    const registry = createMemoryRegistry();
    const base = { registry, owner: 'chat-1', publish: () => undefined };
    expect(() => createRegistryRenderer({ ...base, timeoutMs: 1_000, timeoutFrom: 'asked' as 'shown' })).toThrow(
      `timeoutFrom is "asked": 'shown' or 'received'`,
    );
    expect(() => createRegistryRenderer({ ...base, timeoutFrom: 'received' })).toThrow(
      "timeoutFrom 'received' needs timeoutMs",
    );
  });

  it('through attach (2025-11-25, two questions pushed at once): the second, shown once the first is answered 1.5 s on, has what is left of its 3 s', async () => {
    const registry = createMemoryRegistry();
    const published: string[] = [];
    const arrived: number[] = [];
    const renderer = createRegistryRenderer({
      registry,
      owner: 'chat-1',
      timeoutMs: 3_000,
      timeoutFrom: 'received',
      publish: (id) => void published.push(id),
    });
    open = await connect('2025-11-25', (client) =>
      attach(client, { renderer, onEvent: (e) => e.type === 'request' && arrived.push(e.id) }),
    );
    const ask = (title: string) => ({
      mode: 'form' as const,
      message: `The ${title} for the deploy of order-service?`,
      requestedSchema: { type: 'object', properties: { v: { type: 'string', title } }, required: ['v'] },
    });
    const first = open.ask(ask('Ticket'));
    const second = open.ask(ask('Reason'));
    // Both arrived; the person takes 1.5 s over the first.
    await expect.poll(() => arrived.length).toBe(2);
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(published).toHaveLength(1);
    const firstEntry = await registry.get(published[0] as string);
    expect((firstEntry?.expiresAt ?? 0) - (firstEntry?.openedAt ?? 0)).toBeGreaterThan(2_500);
    await registry.resolve(published[0] as string, 'chat-1', { action: 'accept', content: { v: 'REL-1001' } });
    expect(await first).toMatchObject({ action: 'accept' });
    await expect.poll(() => published.length).toBe(2);
    const secondEntry = await registry.get(published[1] as string);
    // At most 1.5 s left of its 3 (shown with its whole time before).
    expect((secondEntry?.expiresAt ?? 0) - (secondEntry?.openedAt ?? 0)).toBeLessThanOrEqual(1_500);
    await registry.resolve(published[1] as string, 'chat-1', { action: 'accept', content: { v: 'hotfix' } });
    expect(await second).toMatchObject({ action: 'accept', content: { v: 'hotfix' } });
  });
});
