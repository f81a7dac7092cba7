/**
 * The kit's durations — a state's lifetime, a claim's lease, a duplicate's wait — are checked when
 * the kit is made. Taken as they came, an infinite or `NaN` lifetime sealed states that opened in
 * the process that sealed them (their wire array kept the number) and nowhere else (JSON made it
 * `null`), with claims kept for ever; a fractional lease was refused by Postgres's BIGINT column on
 * every claim; an infinite wait was a timer Node fires at once, and a `lock_timeout` Postgres refuses.
 */
import { describe, expect, it } from 'vitest';
import { createElicitkit } from './kit.js';

const SECRET = 'a secret of at least thirty-two characters, for this test';

describe('createElicitkit: durations out of range are refused, naming the option', () => {
  it.each([
    ['stateTtlSeconds', Number.POSITIVE_INFINITY],
    ['stateTtlSeconds', Number.NaN],
    ['stateTtlSeconds', 0],
    ['stateTtlSeconds', -60],
    ['stateTtlSeconds', 1.5],
    ['stateTtlSeconds', 1e300],
    ['claimLeaseMs', 0],
    ['claimLeaseMs', -1],
    ['claimLeaseMs', 1500.5],
    ['claimLeaseMs', Number.NaN],
    ['claimLeaseMs', 2 ** 31],
    ['commitWaitMs', Number.POSITIVE_INFINITY],
    ['commitWaitMs', -1],
    ['commitWaitMs', Number.NaN],
    ['commitWaitMs', 2 ** 31],
    ['commitWaitMs', '60000'],
  ])('%s: %s', (name, value) => {
    expect(() => createElicitkit({ secret: SECRET, [name]: value })).toThrow(
      expect.objectContaining({ name: 'RangeError', message: expect.stringContaining(`${name} must be`) }),
    );
  });

  it('takes the edges of each range', () => {
    for (const options of [
      { stateTtlSeconds: 1, claimLeaseMs: 100, commitWaitMs: 0 },
      { stateTtlSeconds: 10 * 365 * 24 * 3600, claimLeaseMs: 2 ** 31 - 1, commitWaitMs: 2 ** 31 - 1 },
      { commitWaitMs: 2.5 },
    ])
      expect(() => createElicitkit({ secret: SECRET, ...options })).not.toThrow();
  });
});
