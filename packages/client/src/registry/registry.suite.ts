/**
 * The pending-registry contract, written once and run against every implementation (memory,
 * Redis, a third party's store), like hono's `common.case.test.ts` for routers. Time is a manual
 * clock handed to the factory, so expiry is tested without waiting. Published as
 * `@elicitkit/client/testing`; it imports vitest, and only that subpath does.
 */
import { describe, expect, it } from 'vitest';
import type { Answer } from '../types.js';
import { type ManualClock, manualClock } from './manual-clock.js';
import type { PendingRegistry, Settlement } from './types.js';

export { type ManualClock, manualClock } from './manual-clock.js';

/**
 * Makes a fresh, empty registry on the given clock for each test. A store that needs cleaning up
 * registers it with the test runner itself (e.g. vitest's `onTestFinished`).
 *
 * @example
 * registrySuite('memory', (clock) => createMemoryRegistry({ now: clock.now, setTimer: clock.setTimer }));
 */
export type RegistryFactory = (clock: ManualClock) => PendingRegistry | Promise<PendingRegistry>;

const ACCEPT = { action: 'accept', content: { env: 'prod' } } as const;
const ANSWERED: Settlement = { reason: 'answered', answer: ACCEPT };
const EXPIRED: Settlement = { reason: 'expired' };
const WITHDRAWN: Settlement = { reason: 'withdrawn' };
const CANCELLED: Settlement = { reason: 'cancelled' };

/** Lets promise callbacks run, to observe that a waiter has (or has not) settled. */
async function settled<T>(promise: Promise<T>): Promise<{ done: boolean; value?: T }> {
  let state: { done: boolean; value?: T } = { done: false };
  void promise.then((value) => {
    state = { done: true, value };
  });
  for (let i = 0; i < 10; i++) await Promise.resolve();
  return state;
}

/**
 * Runs the pending-registry behaviour suite (vitest) against `factory`'s registries.
 *
 * @example
 * import { manualClock, registrySuite } from '@elicitkit/client/testing';
 * registrySuite('my store', (clock) => createMyRegistry({ now: clock.now, setTimer: clock.setTimer }));
 */
export function registrySuite(name: string, factory: RegistryFactory): void {
  async function setup(timeoutMs = 60_000) {
    const clock = manualClock();
    const registry = await factory(clock);
    const id = await registry.open({ owner: 'alice', timeoutMs });
    return { clock, registry, id };
  }

  describe(`pending registry: ${name}`, () => {
    it('gives every question its own unguessable id', async () => {
      const { registry, id } = await setup();
      const ids = new Set([id, ...(await Promise.all([1, 2, 3].map(() => registry.open({ owner: 'alice' }))))]);
      expect(ids.size).toBe(4);
      for (const each of ids) expect(each).toMatch(/^[0-9a-f-]{32,}$/i);
    });

    it('hands the owner’s answer to a waiter that came first, and to one that comes after', async () => {
      const { registry, id } = await setup();
      const early = registry.wait(id);
      expect((await settled(early)).done).toBe(false);
      expect(await registry.resolve(id, 'alice', ACCEPT)).toBe('ok');
      expect(await early).toEqual(ANSWERED);
      expect(await registry.wait(id)).toEqual(ANSWERED);
    });

    it('takes an answer exactly once: the second is refused and the first stands', async () => {
      const { registry, id } = await setup();
      expect(await registry.resolve(id, 'alice', { action: 'decline' })).toBe('ok');
      expect(await registry.resolve(id, 'alice', ACCEPT)).toBe('already-answered');
      expect(await registry.wait(id)).toEqual({ reason: 'answered', answer: { action: 'decline' } });
    });

    it('lets exactly one of many concurrent answers through', async () => {
      const { registry, id } = await setup();
      const results = await Promise.all(
        ['accept', 'decline', 'cancel', 'decline', 'accept'].map((action) =>
          registry.resolve(id, 'alice', action === 'accept' ? ACCEPT : ({ action } as Answer)),
        ),
      );
      expect(results.filter((r) => r === 'ok')).toHaveLength(1);
      expect(results.filter((r) => r === 'already-answered')).toHaveLength(4);
    });

    it('refuses an answer from anyone but the owner, before revealing anything', async () => {
      const { registry, id } = await setup();
      expect(await registry.resolve(id, 'mallory', ACCEPT)).toBe('forbidden');
      expect(await registry.resolve(id, 'alice', { action: 'decline' })).toBe('ok');
      expect(await registry.resolve(id, 'mallory', ACCEPT)).toBe('forbidden');
      expect(await registry.wait(id)).toEqual({ reason: 'answered', answer: { action: 'decline' } });
    });

    it('knows nothing of ids it never issued', async () => {
      const { registry } = await setup();
      expect(await registry.resolve('00000000-0000-4000-8000-000000000000', 'alice', ACCEPT)).toBe('unknown');
      expect(await registry.resolve('', 'alice', ACCEPT)).toBe('unknown');
      expect(await registry.wait('no-such-id')).toEqual({ reason: 'unknown' });
      expect(await registry.get('no-such-id')).toBeUndefined();
      await registry.withdraw('no-such-id');
      expect(await registry.list('nobody')).toEqual([]);
    });

    it('turns an unanswered question into cancel when it expires, and refuses late answers', async () => {
      const { clock, registry, id } = await setup(1_000);
      const waiting = registry.wait(id);
      clock.advance(999);
      expect((await settled(waiting)).done).toBe(false);
      clock.advance(1);
      expect(await waiting).toEqual(EXPIRED);
      expect(await registry.resolve(id, 'alice', ACCEPT)).toBe('expired');
      expect(await registry.wait(id)).toEqual(EXPIRED);
    });

    it('judges expiry by the clock even when no timer has woken it', async () => {
      const { clock, registry, id } = await setup(1_000);
      const waiting = registry.wait(id);
      clock.jump(5_000);
      expect(await registry.resolve(id, 'alice', ACCEPT)).toBe('expired');
      expect(await waiting).toEqual(EXPIRED);
    });

    it('keeps an answered question answered after its timeout passes', async () => {
      const { clock, registry, id } = await setup(1_000);
      expect(await registry.resolve(id, 'alice', ACCEPT)).toBe('ok');
      clock.advance(2_000);
      expect(await registry.wait(id)).toEqual(ANSWERED);
      expect(await registry.resolve(id, 'alice', ACCEPT)).toBe('already-answered');
    });

    it('gives each question its own timeout', async () => {
      const { clock, registry, id } = await setup(10_000);
      const short = await registry.open({ owner: 'alice', timeoutMs: 100 });
      clock.advance(100);
      expect(await registry.resolve(short, 'alice', ACCEPT)).toBe('expired');
      expect(await registry.resolve(id, 'alice', ACCEPT)).toBe('ok');
    });

    it('refuses a timeout that could never be waited for', async () => {
      const { registry } = await setup();
      for (const timeoutMs of [0, -1, Number.NaN, Number.POSITIVE_INFINITY]) {
        await expect(registry.open({ owner: 'alice', timeoutMs })).rejects.toMatchObject({ code: 'BAD_TIMEOUT' });
      }
    });

    it('refuses a timeout no store can keep, and keeps nothing of the question', async () => {
      const { registry } = await setup();
      for (const timeoutMs of [1e20, Number.MAX_VALUE]) {
        await expect(registry.open({ owner: 'bob', timeoutMs })).rejects.toMatchObject({ code: 'BAD_TIMEOUT' });
      }
      expect(await registry.list('bob')).toEqual([]);
    });

    it('withdraws: waiters learn it was withdrawn, later answers are refused as expired', async () => {
      const { registry, id } = await setup();
      const waiting = registry.wait(id);
      await registry.withdraw(id);
      expect(await waiting).toEqual(WITHDRAWN);
      expect(await registry.wait(id)).toEqual(WITHDRAWN);
      expect(await registry.resolve(id, 'alice', ACCEPT)).toBe('expired');
      await registry.withdraw('no-such-id');
    });

    it('withdraws when the waiter’s signal aborts (already or later)', async () => {
      const { registry, id } = await setup();
      const controller = new AbortController();
      const waiting = registry.wait(id, controller.signal);
      controller.abort();
      expect(await waiting).toEqual(WITHDRAWN);
      expect(await registry.resolve(id, 'alice', ACCEPT)).toBe('expired');
      const other = await registry.open({ owner: 'alice' });
      expect(await registry.wait(other, AbortSignal.abort())).toEqual(WITHDRAWN);
      expect(await registry.resolve(other, 'alice', ACCEPT)).toBe('expired');
    });

    it('does not withdraw an answered question when a signal aborts afterwards', async () => {
      const { registry, id } = await setup();
      const controller = new AbortController();
      const waiting = registry.wait(id, controller.signal);
      expect(await registry.resolve(id, 'alice', ACCEPT)).toBe('ok');
      controller.abort();
      expect(await waiting).toEqual(ANSWERED);
      expect(await registry.wait(id)).toEqual(ANSWERED);
    });

    it('stores a copy of the answer: later changes by the caller do not leak in', async () => {
      const { registry, id } = await setup();
      const answer = { action: 'accept' as const, content: { tags: ['a'] } };
      await registry.resolve(id, 'alice', answer);
      answer.content.tags.push('b');
      expect(await registry.wait(id)).toEqual({
        reason: 'answered',
        answer: { action: 'accept', content: { tags: ['a'] } },
      });
    });

    it('tells the person’s cancel apart from an answer, and takes it once', async () => {
      const { registry, id } = await setup();
      const waiting = registry.wait(id);
      expect(await registry.resolve(id, 'alice', { action: 'cancel' })).toBe('ok');
      expect(await waiting).toEqual(CANCELLED);
      expect(await registry.resolve(id, 'alice', ACCEPT)).toBe('already-answered');
      expect((await registry.get(id))?.settlement).toEqual(CANCELLED);
    });

    it('tells each way of settling apart, to every waiter and in get()', async () => {
      const { clock, registry } = await setup();
      const open = (timeoutMs = 60_000) => registry.open({ owner: 'bob', timeoutMs });
      const [answered, declined, cancelled, expired, withdrawn] = await Promise.all([
        open(),
        open(),
        open(),
        open(500),
        open(),
      ]);
      const waits = [answered, declined, cancelled, expired, withdrawn].map((id) => [
        registry.wait(id),
        registry.wait(id),
      ]);
      await registry.resolve(answered, 'bob', ACCEPT);
      await registry.resolve(declined, 'bob', { action: 'decline' });
      await registry.resolve(cancelled, 'bob', { action: 'cancel' });
      clock.advance(500);
      await registry.withdraw(withdrawn);
      const expected: Settlement[] = [
        ANSWERED,
        { reason: 'answered', answer: { action: 'decline' } },
        CANCELLED,
        EXPIRED,
        WITHDRAWN,
      ];
      for (const [i, pair] of waits.entries()) expect(await Promise.all(pair)).toEqual([expected[i], expected[i]]);
      const ids = [answered, declined, cancelled, expired, withdrawn];
      for (const [i, id] of ids.entries()) expect((await registry.get(id))?.settlement).toEqual(expected[i]);
    });

    it('does not let a withdrawal or a deadline overwrite an answer', async () => {
      const { clock, registry, id } = await setup(1_000);
      await registry.resolve(id, 'alice', { action: 'decline' });
      await registry.withdraw(id);
      clock.advance(5_000);
      expect(await registry.wait(id)).toEqual({ reason: 'answered', answer: { action: 'decline' } });
    });

    it('keeps the host’s data with the question, and lists an owner’s questions oldest first', async () => {
      const { clock, registry, id } = await setup(1_000);
      const data = { server: 'opsdesk', prompt: { message: '环境?', fields: [{ name: 'env' }] } };
      clock.jump(10);
      const second = await registry.open({ owner: 'alice', timeoutMs: 5_000, data });
      await registry.open({ owner: 'bob', data: { other: true } });
      data.server = 'changed';
      expect(await registry.get(second)).toEqual({
        id: second,
        owner: 'alice',
        openedAt: 1_000_010,
        expiresAt: 1_005_010,
        data: { server: 'opsdesk', prompt: { message: '环境?', fields: [{ name: 'env' }] } },
        settlement: undefined,
      });
      expect((await registry.get(id))?.data).toBeNull();
      expect((await registry.list('alice')).map((e) => e.id)).toEqual([id, second]);
      await registry.resolve(second, 'alice', ACCEPT);
      clock.jump(1_000);
      const listed = await registry.list('alice');
      expect(listed.map((e) => e.settlement)).toEqual([EXPIRED, ANSWERED]);
      expect((await registry.list('bob')).map((e) => e.owner)).toEqual(['bob']);
    });
  });
}
