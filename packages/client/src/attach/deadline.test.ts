import { afterEach, describe, expect, it, vi } from 'vitest';
import { MAX_TIMER_MS } from './after.js';
import { deadline } from './deadline.js';

// One setTimeout holds at most 2^31-1 ms (24.8 days); a longer delay fired at once, so a policy
// giving the person 30 days to answer cancelled every question a millisecond after it was asked.

afterEach(() => {
  vi.useRealTimers();
});

const DAY = 24 * 60 * 60_000;

describe('deadline', () => {
  it.each([MAX_TIMER_MS + 1, 30 * DAY, 100 * DAY])('waits the whole %s ms, however many timers that takes', (ms) => {
    vi.useFakeTimers();
    const limit = deadline(new AbortController().signal, ms);
    vi.advanceTimersByTime(1);
    expect(limit.signal.aborted).toBe(false);
    vi.advanceTimersByTime(ms - 2);
    expect(limit.reason()).toBeUndefined();
    vi.advanceTimersByTime(1);
    expect(limit.reason()).toBe('timeout');
    expect(limit.signal.aborted).toBe(true);
  });

  it('disposed, it never fires, past one timer or within it', () => {
    vi.useFakeTimers();
    const long = deadline(new AbortController().signal, 30 * DAY);
    vi.advanceTimersByTime(MAX_TIMER_MS + 1);
    long.dispose();
    const short = deadline(new AbortController().signal, 10);
    short.dispose();
    vi.advanceTimersByTime(30 * DAY);
    expect(long.reason()).toBeUndefined();
    expect(short.reason()).toBeUndefined();
    expect(vi.getTimerCount()).toBe(0);
  });

  it("from 'start': no time runs before start() — the request's signal still stops it — and the whole time after", () => {
    vi.useFakeTimers();
    const waiting = deadline(new AbortController().signal, 1_000, { from: 'start' });
    vi.advanceTimersByTime(5_000);
    expect(waiting.reason()).toBeUndefined();
    waiting.start();
    vi.advanceTimersByTime(999);
    waiting.start(); // again: the time runs on, not anew
    expect(waiting.reason()).toBeUndefined();
    vi.advanceTimersByTime(1);
    expect(waiting.reason()).toBe('timeout');
    const withdrawn = new AbortController();
    const queued = deadline(withdrawn.signal, 1_000, { from: 'start' });
    withdrawn.abort();
    expect(queued.reason()).toBe('aborted');
    queued.start();
    const disposed = deadline(new AbortController().signal, 1_000, { from: 'start' });
    disposed.dispose();
    disposed.start();
    vi.advanceTimersByTime(5_000);
    expect(disposed.reason()).toBeUndefined();
    expect(vi.getTimerCount()).toBe(0);
  });
});
