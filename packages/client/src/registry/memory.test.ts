import { describe, expect, it } from 'vitest';
import { createMemoryRegistry } from './memory.js';
import { manualClock, registrySuite } from './registry.suite.js';

registrySuite('memory', (clock) => createMemoryRegistry({ now: clock.now, setTimer: clock.setTimer }));

describe('memory registry specifics', () => {
  it('remembers settled questions for retainMs, then forgets them', async () => {
    const clock = manualClock();
    const registry = createMemoryRegistry({ now: clock.now, setTimer: clock.setTimer, retainMs: 5_000 });
    const id = await registry.open({ owner: 'alice' });
    expect(await registry.resolve(id, 'alice', { action: 'decline' })).toBe('ok');
    clock.advance(4_999);
    await registry.open({ owner: 'alice' });
    expect(await registry.resolve(id, 'alice', { action: 'decline' })).toBe('already-answered');
    clock.advance(1);
    await registry.open({ owner: 'alice' });
    expect(await registry.resolve(id, 'alice', { action: 'decline' })).toBe('unknown');
  });

  it.each([Number.NaN, Number.POSITIVE_INFINITY, -1, 1e20])(
    'refuses retainMs %s (never forgotten, or never kept)',
    (retainMs) => {
      expect(() => createMemoryRegistry({ retainMs })).toThrow(expect.objectContaining({ code: 'BAD_TIMEOUT' }));
    },
  );

  it('uses the registry-wide default timeout', async () => {
    const clock = manualClock();
    const registry = createMemoryRegistry({ now: clock.now, setTimer: clock.setTimer, timeoutMs: 50 });
    const id = await registry.open({ owner: 'alice' });
    const waiting = registry.wait(id);
    clock.advance(50);
    expect(await waiting).toEqual({ reason: 'expired' });
  });

  it('re-arms a timer that fires before the clock says the question is due', async () => {
    let at = 0;
    const timers: (() => void)[] = [];
    const registry = createMemoryRegistry({
      now: () => at,
      setTimer: (fn) => {
        timers.push(fn);
        return () => {};
      },
    });
    const id = await registry.open({ owner: 'alice', timeoutMs: 100 });
    at = 99;
    timers.shift()?.();
    expect(timers).toHaveLength(1);
    at = 100;
    timers.shift()?.();
    expect(await registry.wait(id)).toEqual({ reason: 'expired' });
  });

  it('expires on real time with the default timer, for short timeouts', async () => {
    const registry = createMemoryRegistry();
    const id = await registry.open({ owner: 'alice', timeoutMs: 5 });
    expect(await registry.wait(id)).toEqual({ reason: 'expired' });
    expect(await registry.resolve(id, 'alice', { action: 'decline' })).toBe('expired');
  });
});
