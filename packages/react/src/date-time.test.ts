import { afterAll, describe, expect, it, vi } from 'vitest';
import { isoToLocal, localToIso, offsetOf } from './date-time.js';
import { plain } from './text.js';

describe('date-time between a datetime-local input and the protocol', () => {
  it('adds the local offset, keeping what the person typed', () => {
    vi.stubEnv('TZ', 'Asia/Shanghai');
    expect(localToIso('2026-02-28T08:00')).toBe('2026-02-28T08:00:00+08:00');
    expect(localToIso('2026-02-28T08:00:05.5')).toBe('2026-02-28T08:00:05.500+08:00');
    expect(isoToLocal('2026-03-01T09:30:00Z')).toBe('2026-03-01T17:30:00');
    vi.stubEnv('TZ', 'America/St_Johns');
    expect(localToIso('2026-01-15T12:00')).toBe('2026-01-15T12:00:00-03:30');
    vi.stubEnv('TZ', 'UTC');
    expect(localToIso('2026-01-15T12:00:00')).toBe('2026-01-15T12:00:00Z');
    expect(offsetOf(new Date())).toBe('Z');
  });

  it('reads years before 100 as themselves, not as 19xx', () => {
    // New York kept local mean time (UTC-04:56:02) until 1883; 1950 had daylight saving time.
    vi.stubEnv('TZ', 'America/New_York');
    expect(localToIso('0050-07-01T12:00')).toBe('0050-07-01T12:00:00-04:56');
    vi.stubEnv('TZ', 'UTC');
    expect(isoToLocal('0050-07-01T12:00:00Z')).toBe('0050-07-01T12:00:00');
    expect(localToIso('0050-07-01T12:00')).toBe('0050-07-01T12:00:00Z');
  });

  it('gives nothing for incomplete or unreadable values', () => {
    expect(localToIso('')).toBe('');
    expect(localToIso('2026-02-28')).toBe('');
    expect(isoToLocal('')).toBe('');
    expect(isoToLocal('tomorrow')).toBe('');
  });

  afterAll(() => {
    vi.unstubAllEnvs();
  });
});

describe('plain', () => {
  it('removes bidi overrides and control characters, keeping line breaks and tabs', () => {
    expect(plain('a\u202eb\u2066c\u200fd\u0000e\u009bf\ng\th')).toBe('abcdef\ng\th');
    // The Arabic letter mark is a bidi control too.
    expect(plain('a\u061cb')).toBe('ab');
  });
});
