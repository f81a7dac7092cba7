/**
 * The call's signal on 2025 HTTP: it aborts when the SDK's request signal or the HTTP request's
 * does, with that source's reason, and leaves no listener behind on the other once it has.
 */
import { getEventListeners } from 'node:events';
import { describe, expect, it } from 'vitest';
import { either } from './push.js';

describe('either', () => {
  it('aborts with the first source, and unhooks from both', () => {
    const a = new AbortController();
    const b = new AbortController();
    const signal = either(a.signal, b.signal);
    expect(signal.aborted).toBe(false);
    a.abort('cancelled by the client');
    expect(signal.aborted).toBe(true);
    expect(signal.reason).toBe('cancelled by the client');
    expect(getEventListeners(a.signal, 'abort')).toHaveLength(0);
    expect(getEventListeners(b.signal, 'abort')).toHaveLength(0);
    b.abort('later');
    expect(signal.reason).toBe('cancelled by the client');
  });

  it('aborts with the second source', () => {
    const a = new AbortController();
    const b = new AbortController();
    const signal = either(a.signal, b.signal);
    const seen: unknown[] = [];
    signal.addEventListener('abort', () => seen.push(signal.reason));
    const gone = new Error('stream dropped');
    b.abort(gone);
    expect(seen).toEqual([gone]);
    expect(getEventListeners(a.signal, 'abort')).toHaveLength(0);
  });

  it('is an already aborted source itself, with nothing hooked', () => {
    const a = new AbortController();
    const b = new AbortController();
    b.abort('gone');
    expect(either(a.signal, b.signal)).toBe(b.signal);
    a.abort('first');
    expect(either(a.signal, b.signal)).toBe(a.signal);
    expect(getEventListeners(a.signal, 'abort')).toHaveLength(0);
  });
});
