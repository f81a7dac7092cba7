/**
 * The claim-store contract, written once and run against every implementation (memory and SQLite
 * now, Redis later), like hono's `common.case.test.ts` for routers. Time is a manual clock handed to
 * the factory, so leases and expiry are tested without waiting.
 *
 * @example
 * // redis.test.ts
 * claimStoreSuite('redis', (clock) => createRedisClaimStore(redis, { now: clock.now }));
 */
import { describe, expect, it } from 'vitest';
import type { ClaimStore } from './types.js';

export interface ManualClock {
  now: () => number;
  /** Moves time forward. */
  jump(ms: number): void;
}

export function manualClock(start = 1_000_000): ManualClock {
  let at = start;
  return {
    now: () => at,
    jump(ms) {
      at += ms;
    },
  };
}

export type ClaimStoreFactory = (clock: ManualClock) => ClaimStore | Promise<ClaimStore>;

const LEASE = { leaseMs: 1_000, ttlMs: 60_000 };

/**
 * `atomic`: the store implements `atomically`; `atomicAsync`: `atomicallyAsync` (and each must
 * pass its part of the contract).
 */
export function claimStoreSuite(
  name: string,
  factory: ClaimStoreFactory,
  options: { atomic?: boolean; atomicAsync?: boolean } = {},
): void {
  describe(`claim store: ${name}`, () => {
    const setup = async () => {
      const clock = manualClock();
      return { clock, store: await factory(clock) };
    };

    it('claims an id once: the holder gets `claimed`, everyone after sees it running', async () => {
      const { store, clock } = await setup();
      expect(await store.claim('call-1', 'a', LEASE)).toEqual({ state: 'claimed' });
      expect(await store.claim('call-1', 'b', LEASE)).toEqual({
        state: 'running',
        owner: 'a',
        leaseUntil: clock.now() + LEASE.leaseMs,
      });
      expect(await store.read('call-1')).toMatchObject({ state: 'running', owner: 'a' });
      expect(await store.read('call-2')).toBeUndefined();
    });

    it('20 concurrent claims of one id: exactly one wins', async () => {
      const { store } = await setup();
      const results = await Promise.all(Array.from({ length: 20 }, (_, i) => store.claim('race', `o${i}`, LEASE)));
      expect(results.filter((r) => r.state === 'claimed')).toHaveLength(1);
      expect(results.filter((r) => r.state === 'running')).toHaveLength(19);
    });

    it('records the result once; every later read and claim gets the same bytes', async () => {
      const { store } = await setup();
      await store.claim('call-1', 'a', LEASE);
      const result = JSON.stringify({ content: [{ type: 'text', text: '部署 #7 ✓ "quoted" \\ \u2028' }], n: 1 });
      expect(await store.complete('call-1', 'a', result)).toBe(true);
      expect(await store.read('call-1')).toEqual({ state: 'done', result });
      expect(await store.claim('call-1', 'b', LEASE)).toEqual({ state: 'done', result });
      // A second completion (a replayed effect) cannot overwrite it.
      expect(await store.complete('call-1', 'a', '"other"')).toBe(false);
      expect(await store.read('call-1')).toEqual({ state: 'done', result });
    });

    it('only the holder may renew, complete or release a claim', async () => {
      const { store } = await setup();
      await store.claim('call-1', 'a', LEASE);
      expect(await store.renew('call-1', 'b', 5_000)).toBe(false);
      expect(await store.complete('call-1', 'b', '"b"')).toBe(false);
      expect(await store.release('call-1', 'b')).toBe(false);
      expect(await store.read('call-1')).toMatchObject({ state: 'running', owner: 'a' });
      expect(await store.renew('unknown', 'a', 5_000)).toBe(false);
    });

    it('a released claim frees the id: the next attempt may run', async () => {
      const { store } = await setup();
      await store.claim('call-1', 'a', LEASE);
      expect(await store.release('call-1', 'a')).toBe(true);
      expect(await store.read('call-1')).toBeUndefined();
      expect(await store.claim('call-1', 'b', LEASE)).toEqual({ state: 'claimed' });
      // A done claim is not released by anyone.
      await store.complete('call-1', 'b', '"r"');
      expect(await store.release('call-1', 'b')).toBe(false);
      expect(await store.read('call-1')).toEqual({ state: 'done', result: '"r"' });
    });

    it('renewing extends the lease; a lapsed lease is still never taken over', async () => {
      const { store, clock } = await setup();
      await store.claim('call-1', 'a', LEASE);
      clock.jump(900);
      expect(await store.renew('call-1', 'a', 1_000)).toBe(true);
      expect(await store.read('call-1')).toMatchObject({ leaseUntil: clock.now() + 1_000 });
      clock.jump(5_000); // the holder stopped renewing: it may have crashed mid-effect
      const seen = await store.claim('call-1', 'b', LEASE);
      expect(seen).toMatchObject({ state: 'running', owner: 'a' });
      expect(seen.state === 'running' && seen.leaseUntil < clock.now()).toBe(true);
    });

    it('claims expire with their ttl: gone from reads, claimable again, swept', async () => {
      const { store, clock } = await setup();
      await store.claim('old', 'a', LEASE);
      await store.complete('old', 'a', '"done"');
      await store.claim('stale', 'a', LEASE);
      clock.jump(30_000);
      await store.claim('young', 'a', LEASE);
      clock.jump(LEASE.ttlMs - 30_000);
      expect(await store.sweep()).toBe(2);
      expect(await store.sweep()).toBe(0);
      expect(await store.read('old')).toBeUndefined();
      expect(await store.read('young')).toMatchObject({ state: 'running' });
      expect(await store.claim('old', 'b', LEASE)).toEqual({ state: 'claimed' });
      expect(await store.renew('stale', 'a', 1_000)).toBe(false);
    });

    it('keeps ids apart', async () => {
      const { store } = await setup();
      await store.claim('x', 'a', LEASE);
      await store.claim('y', 'a', LEASE);
      await store.complete('x', 'a', '"x"');
      expect(await store.read('x')).toEqual({ state: 'done', result: '"x"' });
      expect(await store.read('y')).toMatchObject({ state: 'running' });
    });

    it(`${options.atomic ? 'offers' : 'does not offer'} atomically`, async () => {
      const { store } = await setup();
      expect(typeof store.atomically).toBe(options.atomic ? 'function' : 'undefined');
    });

    it(`${options.atomicAsync ? 'offers' : 'does not offer'} atomicallyAsync`, async () => {
      const { store } = await setup();
      expect(typeof store.atomicallyAsync).toBe(options.atomicAsync ? 'function' : 'undefined');
    });

    describe.runIf(options.atomicAsync === true)('atomicallyAsync', () => {
      const WAIT = { waitMs: 5_000 };
      const atomically = (store: ClaimStore, id: string, effect: (tx: unknown) => Promise<string>, wait = WAIT) => {
        if (!store.atomicallyAsync) throw new Error('no atomicallyAsync');
        return store.atomicallyAsync(id, 60_000, effect, wait);
      };

      it('runs the effect once, handed the transaction, and records it; later calls get the record', async () => {
        const { store } = await setup();
        const handed: unknown[] = [];
        const effect = async (tx: unknown) => {
          handed.push(tx);
          return '"deployed #1"';
        };
        expect(await atomically(store, 'call-1', effect)).toEqual({ state: 'ran', result: '"deployed #1"' });
        expect(await atomically(store, 'call-1', effect)).toEqual({ state: 'done', result: '"deployed #1"' });
        expect(await store.claim('call-1', 'b', LEASE)).toEqual({ state: 'done', result: '"deployed #1"' });
        expect(handed).toHaveLength(1);
        expect(handed[0]).toBeTruthy();
      });

      it('an effect that throws leaves no claim behind', async () => {
        const { store } = await setup();
        await expect(
          atomically(store, 'call-1', async () => {
            throw new Error('constraint failed');
          }),
        ).rejects.toThrow('constraint failed');
        expect(await store.read('call-1')).toBeUndefined();
        expect(await store.claim('call-1', 'b', LEASE)).toEqual({ state: 'claimed' });
      });

      it('does not run past a running claim', async () => {
        const { store } = await setup();
        await store.claim('call-1', 'a', LEASE);
        let runs = 0;
        expect(await atomically(store, 'call-1', async () => String(++runs))).toMatchObject({ state: 'running' });
        expect(runs).toBe(0);
      });

      it('nothing of a running transaction shows, and a duplicate waits for it: one run, one result', async () => {
        const { store } = await setup();
        let open = () => {};
        const gate = new Promise<void>((resolve) => {
          open = resolve;
        });
        let runs = 0;
        let started = () => {};
        const running = new Promise<void>((resolve) => {
          started = resolve;
        });
        const effect = async () => {
          runs++;
          started();
          await gate;
          return `"run ${runs}"`;
        };
        const first = atomically(store, 'call-1', effect);
        await running;
        expect(await store.read('call-1')).toBeUndefined();
        const second = atomically(store, 'call-1', effect);
        await new Promise((resolve) => setTimeout(resolve, 50));
        open();
        expect(await first).toEqual({ state: 'ran', result: '"run 1"' });
        expect(await second).toEqual({ state: 'done', result: '"run 1"' });
        expect(runs).toBe(1);
      });

      it('a duplicate that waits past waitMs is told busy, and runs nothing', async () => {
        const { store } = await setup();
        let open = () => {};
        const gate = new Promise<void>((resolve) => {
          open = resolve;
        });
        let runs = 0;
        const first = atomically(store, 'call-1', async () => {
          runs++;
          await gate;
          return '"first"';
        });
        await expect.poll(() => runs).toBe(1);
        expect(await atomically(store, 'call-1', async () => String(++runs), { waitMs: 50 })).toEqual({
          state: 'busy',
        });
        open();
        expect(await first).toEqual({ state: 'ran', result: '"first"' });
        expect(runs).toBe(1);
      });

      it('a duplicate of a transaction that rolled back runs itself', async () => {
        const { store } = await setup();
        let fail = (_: Error) => {};
        const gate = new Promise<void>((_, reject) => {
          fail = reject;
        });
        let runs = 0;
        const first = atomically(store, 'call-1', async () => {
          runs++;
          await gate;
          return '"never"';
        });
        await expect.poll(() => runs).toBe(1);
        const second = atomically(store, 'call-1', async () => `"second ${++runs}"`);
        await new Promise((resolve) => setTimeout(resolve, 50));
        fail(new Error('the first failed'));
        await expect(first).rejects.toThrow('the first failed');
        expect(await second).toEqual({ state: 'ran', result: '"second 2"' });
      });
    });

    describe.runIf(options.atomic === true)('atomically', () => {
      it('runs the effect once and records it; later calls get the record without running', async () => {
        const { store } = await setup();
        let runs = 0;
        const effect = () => {
          runs++;
          return '"deployed #1"';
        };
        expect(store.atomically?.('call-1', 60_000, effect)).toEqual({ state: 'ran', result: '"deployed #1"' });
        expect(store.atomically?.('call-1', 60_000, effect)).toEqual({ state: 'done', result: '"deployed #1"' });
        expect(await store.claim('call-1', 'b', LEASE)).toEqual({ state: 'done', result: '"deployed #1"' });
        expect(runs).toBe(1);
      });

      it('an effect that throws leaves no claim behind', async () => {
        const { store } = await setup();
        expect(() =>
          store.atomically?.('call-1', 60_000, () => {
            throw new Error('constraint failed');
          }),
        ).toThrow('constraint failed');
        expect(await store.read('call-1')).toBeUndefined();
        expect(await store.claim('call-1', 'b', LEASE)).toEqual({ state: 'claimed' });
      });

      it('does not run past a running claim', async () => {
        const { store } = await setup();
        await store.claim('call-1', 'a', LEASE);
        let runs = 0;
        expect(store.atomically?.('call-1', 60_000, () => String(++runs))).toMatchObject({ state: 'running' });
        expect(runs).toBe(0);
      });
    });
  });
}
