import { describe, expect, it } from 'vitest';
import { createRateLimiter } from './rate-limit.js';

describe('createRateLimiter', () => {
  it('counts each server on its own', () => {
    const limiter = createRateLimiter({ max: 1, perMs: 1_000, now: () => 0 });
    expect([limiter.take('a'), limiter.take('b'), limiter.take('a'), limiter.take('b')]).toEqual([
      true,
      true,
      false,
      false,
    ]);
  });

  it('does not count refused questions, so a flood ends when it stops', () => {
    let now = 0;
    const limiter = createRateLimiter({ max: 2, perMs: 100, now: () => now });
    expect([limiter.take('a'), limiter.take('a')]).toEqual([true, true]);
    for (now = 1; now < 100; now += 10) expect(limiter.take('a')).toBe(false);
    now = 100;
    expect(limiter.take('a')).toBe(true);
  });

  // NaN counted nothing: every question got through.
  it.each([
    ['max NaN', { max: Number.NaN, perMs: 60_000 }],
    ['max 0', { max: 0, perMs: 60_000 }],
    ['max 1.5', { max: 1.5, perMs: 60_000 }],
    ['perMs NaN', { max: 5, perMs: Number.NaN }],
    ['perMs 0', { max: 5, perMs: 0 }],
  ])('refuses a budget that cannot work: %s', (_what, budget) => {
    expect(() => createRateLimiter(budget)).toThrow(expect.objectContaining({ code: 'BAD_POLICY' }));
  });
});
