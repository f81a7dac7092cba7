// @vitest-environment jsdom
import type { FormSchema } from '@elicitkit/form';
import { act, cleanup, fireEvent, render, renderHook, screen } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { formPrompt, urlPrompt } from '../test/prompts.js';
import { ElicitationForm } from './elicitation-form.js';
import { formatClock } from './text.js';
import { UrlConsent } from './url-consent.js';
import { useTimeLeft } from './use-time-left.js';

const START = Date.UTC(2026, 2, 1, 9, 0, 0);
const SCHEMA: FormSchema = { type: 'object', properties: { ok: { type: 'boolean', title: 'OK', default: true } } };

beforeEach(() => {
  vi.useFakeTimers();
  vi.setSystemTime(START);
});
afterEach(() => {
  cleanup();
  vi.useRealTimers();
});

describe('useTimeLeft', () => {
  it('counts down a second at a time and stops at zero', () => {
    const { result } = renderHook(() => useTimeLeft(START + 2_500));
    expect(result.current).toEqual({ msLeft: 2_500, expired: false });
    act(() => vi.advanceTimersByTime(500));
    expect(result.current.msLeft).toBe(2_000);
    act(() => vi.advanceTimersByTime(1_000));
    expect(result.current.msLeft).toBe(1_000);
    act(() => vi.advanceTimersByTime(1_000));
    expect(result.current).toEqual({ msLeft: 0, expired: true });
    expect(vi.getTimerCount()).toBe(0);
  });

  it('has nothing to count without a deadline, and follows a new one', () => {
    const { result, rerender } = renderHook(({ at }: { at: number | undefined }) => useTimeLeft(at), {
      initialProps: { at: undefined as number | undefined },
    });
    expect(result.current).toEqual({ msLeft: undefined, expired: false });
    expect(vi.getTimerCount()).toBe(0);
    rerender({ at: START - 1 });
    expect(result.current.expired).toBe(true);
    rerender({ at: START + 60_000 });
    expect(result.current).toEqual({ msLeft: 60_000, expired: false });
  });

  it('formats the clock in whole seconds, rounding up', () => {
    expect([formatClock(0), formatClock(1), formatClock(59_999), formatClock(61_000), formatClock(3_600_000)]).toEqual([
      '0:00',
      '0:01',
      '1:00',
      '1:01',
      '1:00:00',
    ]);
  });
});

describe('time left on screen', () => {
  it('shows the time left and, once expired, says so and disables Submit', () => {
    const onSubmit = vi.fn();
    const onDecline = vi.fn();
    render(
      <ElicitationForm
        prompt={formPrompt(SCHEMA)}
        expiresAt={START + 61_000}
        onSubmit={onSubmit}
        onDecline={onDecline}
        onCancel={vi.fn()}
      />,
    );
    expect(screen.getByRole('timer').textContent).toBe('Time left 1:01');
    act(() => vi.advanceTimersByTime(2_000));
    expect(screen.getByRole('timer').textContent).toBe('Time left 0:59');
    act(() => vi.advanceTimersByTime(59_000));
    expect(screen.queryByRole('timer')).toBeNull();
    expect(screen.getByRole('alert').textContent).toContain('Expired');
    const submit = screen.getByRole('button', { name: 'Submit' }) as HTMLButtonElement;
    expect(submit.disabled).toBe(true);
    fireEvent.submit(submit.form as HTMLFormElement);
    expect(onSubmit).not.toHaveBeenCalled();
    fireEvent.click(screen.getByRole('button', { name: 'Decline' }));
    expect(onDecline).toHaveBeenCalledOnce();
  });

  it('disables Open on an expired link', () => {
    render(
      <UrlConsent
        prompt={urlPrompt('https://opsdesk.example.com/password/abc')}
        expiresAt={START - 1}
        onOpen={vi.fn()}
        onDecline={vi.fn()}
        onCancel={vi.fn()}
      />,
    );
    expect((screen.getByRole('button', { name: 'Open link' }) as HTMLButtonElement).disabled).toBe(true);
    expect(screen.getByRole('alert').textContent).toContain('Expired');
  });
});
