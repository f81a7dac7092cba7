/**
 * `ctx.attempt`: the effect runs, judges what it did, and either keeps it or undoes it and asks.
 * The fixture `purge` keeps a purge of at most two items; more is undone, the person is shown what
 * that run removed, and the confirmed purge is kept only if it removes no more than was shown.
 * Over real transports: the SDK client in memory (2025-11-25, questions pushed) and over HTTP
 * (2026-07-28, the handler re-run each round), and raw 2026-07-28 JSON-RPC replays on loopback.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { accept, pendingOf, wireRound } from '../../../test/support/modern-wire.js';
import { createStore, fixtureTools, type Store } from '../test/fixture-tools.js';
import { type Connected, call, connect, type PathName, type Step } from '../test/harness.js';
import { type Loopback, loopback } from '../test/loopback.js';
import { createElicitkit } from './kit.js';

const PATHS: PathName[] = ['memory-2025-11-25', 'http-2026-07-28'];

let open: Connected | Loopback | undefined;
afterEach(async () => {
  await open?.close();
  open = undefined;
});

async function start(path: PathName, script: Step[] = []) {
  const store = createStore();
  const kit = createElicitkit();
  const c = await connect(path, () => kit.createServer({ name: 'fixture', version: '1' }, fixtureTools(store)), {
    script,
  });
  open = c;
  return { c, store };
}

describe.each(PATHS)('ctx.attempt over %s', (path) => {
  it('an effect within its limit is kept and nothing is asked', async () => {
    const { c, store } = await start(path);
    const r = await call(c, 'purge', { prefix: 'b' });
    expect(r.status).toBe('done');
    expect(r.structured?.removed).toEqual(['banana', 'blackberry']);
    expect(c.seen).toHaveLength(0);
    expect(store.items).toEqual(['apple', 'apricot', 'avocado', 'cherry']);
    expect(store.purges).toBe(1);
  });

  it('an effect past its limit is undone and the question shows what that run did; confirmed, it is kept once', async () => {
    const { c, store } = await start(path, [
      (params) => {
        // Asked after the withheld run: it was undone, nothing is gone yet.
        expect(store.items).toHaveLength(6);
        expect(store.purges).toBe(0);
        expect(params.message).toBe('Remove 3 items (apple, apricot, avocado)?');
        return { action: 'accept', content: { sure: true } };
      },
    ]);
    const r = await call(c, 'purge', { prefix: 'a' });
    expect(r.status).toBe('done');
    expect(store.items).toEqual(['banana', 'blackberry', 'cherry']);
    expect(store.purges).toBe(1);
    expect(c.seen).toHaveLength(1);
  });

  it('declined: nothing is kept', async () => {
    const { c, store } = await start(path, [{ action: 'decline' }]);
    const r = await call(c, 'purge', { prefix: 'a' });
    expect(r.status).toBe('declined');
    expect(store.items).toHaveLength(6);
    expect(store.purges).toBe(0);
  });

  it.each(['decline', 'cancel'] as const)(
    'the store shrank under the limit after the question, and the person said %s: nothing is kept',
    async (action) => {
      const { c, store } = await start(path, [
        () => {
          // While the question is open, someone else removes one of the three: two would go now,
          // which a first run would keep without asking.
          store.items = store.items.filter((i) => i !== 'avocado');
          return { action };
        },
      ]);
      const r = await call(c, 'purge', { prefix: 'a' });
      expect(r.status).toBe(action === 'decline' ? 'declined' : 'cancelled');
      expect(store.items).toEqual(['apple', 'apricot', 'banana', 'blackberry', 'cherry']);
      expect(store.purges).toBe(0);
      expect(c.seen).toHaveLength(1);
    },
  );

  it('the store shrank after the question and the person accepted: what runs is within what was shown', async () => {
    const { c, store } = await start(path, [
      () => {
        store.items = store.items.filter((i) => i !== 'avocado');
        return { action: 'accept', content: { sure: true } };
      },
    ]);
    const r = await call(c, 'purge', { prefix: 'a' });
    expect(r.status).toBe('done');
    expect(store.items).toEqual(['banana', 'blackberry', 'cherry']);
    expect(store.purges).toBe(1);
  });

  it('the store moved after the question: what runs is not what was shown, so nothing is kept unasked', async () => {
    const asked: unknown[] = [];
    const { c, store } = await start(path, [
      (params) => {
        asked.push(params.message);
        store.items = [...store.items, 'almond'];
        return { action: 'accept', content: { sure: true } };
      },
      (params) => {
        asked.push(params.message);
        return { action: 'decline' };
      },
    ]);
    const r = await call(c, 'purge', { prefix: 'a' });
    if (path === 'memory-2025-11-25') {
      // Pushed: the confirmed effect removes 4 where 3 were shown, so it is undone and refused.
      expect(r.status).toBe('rejected');
      expect(r.text).toContain('Nothing was removed');
      expect(asked).toEqual(['Remove 3 items (apple, apricot, avocado)?']);
    } else {
      // Re-run each round: the next round's attempt is a new run, shown as a new question.
      expect(r.status).toBe('declined');
      expect(asked).toEqual([
        'Remove 3 items (apple, apricot, avocado)?',
        'Remove 4 items (apple, apricot, avocado, almond)?',
      ]);
    }
    expect(store.items).toContain('apple');
    expect(store.items).toContain('almond');
    expect(store.purges).toBe(0);
  });
});

describe('ctx.attempt, raw 2026-07-28 rounds on loopback', () => {
  it('a withheld first round records nothing: replayed, it asks again; the final round replayed 20 times at once keeps one purge', async () => {
    const s = await loopback();
    open = s;
    const call = { name: 'purge', arguments: { prefix: 'a' } };
    const first = pendingOf(await wireRound(s.url, call));
    expect(first.asks).toEqual(['sure']);
    expect(pendingOf(await wireRound(s.url, call)).asks).toEqual(['sure']);
    expect(s.store.purges).toBe(0);
    const final = { ...call, inputResponses: { sure: accept({ sure: true }) }, requestState: first.requestState };
    const rounds = await Promise.all(Array.from({ length: 20 }, () => wireRound(s.url, final)));
    expect(new Set(rounds.map((r) => r.body)).size).toBe(1);
    expect(rounds[0]?.result).toMatchObject({ structuredContent: { status: 'done' } });
    expect(s.store.purges).toBe(1);
    expect(s.store.items).toEqual(['banana', 'blackberry', 'cherry']);
  });
});

describe('ctx.attempt, misuse', () => {
  it('after commit, an attempt is a second commit: refused', async () => {
    const store: Store = createStore();
    const kit = createElicitkit();
    const { defineTool } = await import('./tool.js');
    const { done } = await import('./results.js');
    const twice = defineTool({
      name: 'twice',
      description: 'Commits, then attempts: a mistake the kit refuses.',
      async run(_args, ctx) {
        await ctx.commit(() => done('first'));
        const again = await ctx.attempt(() => done('second'));
        return again.done ? again.result : done('withheld');
      },
    });
    const c = await connect('memory-2025-11-25', () =>
      kit.createServer({ name: 'fixture', version: '1' }, [...fixtureTools(store), twice]),
    );
    open = c;
    const r = await call(c, 'twice');
    expect(r.isError).toBe(true);
    expect(r.text).toContain('committed twice');
  });
});
