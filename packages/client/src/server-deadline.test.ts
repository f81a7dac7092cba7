/**
 * `serverDeadline` (`elicitkit call`'s, the web app's) is the server's time on the call, not the person's: it stands still while a
 * question is open (several at once included) and runs again, with what was left, once the last
 * one is answered. Fake timers and clock: nothing here waits.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { serverDeadline } from './server-deadline.js';

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
});
afterEach(() => {
  vi.useRealTimers();
});

describe('serverDeadline', () => {
  it('expires after its time when nothing is asked', () => {
    const d = serverDeadline(1_000);
    vi.advanceTimersByTime(999);
    expect(d.signal.aborted).toBe(false);
    vi.advanceTimersByTime(1);
    expect(d.signal.reason).toBe('timeout');
  });

  it('stands still while a question is open, then goes on with what was left', () => {
    const d = serverDeadline(1_000);
    vi.advanceTimersByTime(600);
    d.asking(1);
    vi.advanceTimersByTime(60_000);
    expect(d.signal.aborted).toBe(false);
    d.answered(1);
    vi.advanceTimersByTime(399);
    expect(d.signal.aborted).toBe(false);
    vi.advanceTimersByTime(1);
    expect(d.signal.aborted).toBe(true);
  });

  it('questions open at once: it runs again only after the last is answered; an unknown id changes nothing', () => {
    const d = serverDeadline(1_000);
    d.asking(1);
    d.asking(2);
    d.answered(1);
    d.answered(7);
    vi.advanceTimersByTime(5_000);
    expect(d.signal.aborted).toBe(false);
    d.answered(2);
    vi.advanceTimersByTime(1_000);
    expect(d.signal.aborted).toBe(true);
  });

  it('stop() ends it without expiring, and a question answered after it starts nothing again', () => {
    const d = serverDeadline(1_000);
    d.asking(1);
    d.stop();
    d.answered(1);
    expect(vi.getTimerCount()).toBe(0);
    vi.advanceTimersByTime(10_000);
    expect(d.signal.aborted).toBe(false);
  });
});
