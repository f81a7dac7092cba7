/**
 * The requests a replica sent through Redis that their holder has not answered (`unanswered.ts`): kept
 * until answered, or until their frame can no longer be taken; and, for holders that never answer
 * again (gone for good, never asked about again), not kept for ever.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { FRAME_TTL_MS } from './frames.js';
import { Unanswered } from './unanswered.js';

const core = () => new Unanswered();

describe('requests through Redis not yet answered', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('are waited on until answered, each by its own answer', () => {
    const c = core();
    c.record('h1', 's1', 'r1');
    c.record('h1', 's1', 'r2');
    expect(c.awaits('h1', 's1')).toBe(true);
    expect(c.awaits('h2', 's1')).toBe(false);
    c.answered('h1', 'r1');
    // Another holder's answer for r2 is not h1's.
    c.answered('h2', 'r2');
    expect(c.awaits('h1', 's1')).toBe(true);
    c.answered('h1', 'r2');
    expect(c.awaits('h1', 's1')).toBe(false);
    expect(c.size).toBe(0);
  });

  it("keep their own session's requests behind them, not another session's on the same holder", () => {
    const c = core();
    c.record('h1', 's1', 'r1');
    c.record('h1', 's2', 'r2');
    c.record('h1', 's2', 'r3');
    expect(c.awaits('h1', 's3')).toBe(false);
    c.answered('h1', 'r2');
    expect(c.awaits('h1', 's2')).toBe(true);
    c.answered('h1', 'r3');
    // Answered twice (two frames of one response) counts once.
    c.answered('h1', 'r3');
    expect(c.awaits('h1', 's2')).toBe(false);
    expect(c.awaits('h1', 's1')).toBe(true);
    c.answered('h1', 'r1');
    expect(c.size).toBe(0);
  });

  it('are no longer waited on once their frame has expired wherever it is', () => {
    vi.useFakeTimers();
    const c = core();
    c.record('h1', 's1', 'r1');
    vi.advanceTimersByTime(2 * FRAME_TTL_MS);
    expect(c.awaits('h1', 's1')).toBe(true);
    vi.advanceTimersByTime(1);
    expect(c.awaits('h1', 's1')).toBe(false);
    expect(c.size).toBe(0);
  });

  it('holders never asked about again are forgotten once their requests expired', () => {
    vi.useFakeTimers();
    const c = core();
    for (let i = 0; i < 1_000; i++) c.record(`gone-${i}`, 's', 'r');
    vi.advanceTimersByTime(2 * FRAME_TTL_MS + 1);
    for (let i = 0; i < 1_000; i++) c.record(`live-${i}`, 's', 'r');
    // The gone ones were swept as the live ones came.
    expect(c.waited().some((h) => h.startsWith('gone-'))).toBe(false);
    expect(c.size).toBe(1_000);
  });
});
