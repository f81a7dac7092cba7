/**
 * The types the main entry no longer names (docs/server.md, "The public API") are reached from
 * the ones it does, exactly as that table says: each row is checked here by the compiler.
 */
import { describe, expectTypeOf, it } from 'vitest';
import type { AskUrlOptions } from './ask-options.js';
import type { AuditRequest, AuditViolation } from './audit.js';
import type { Attempt, Withheld } from './commit.js';
import type { AttemptEffect, AuditEvent, Outcome, ToolContext } from './index.js';
import type { Accepted, AnyOutcome, Declined, Pending, TimedOut, UrlOutcome } from './outcome.js';

describe('the types the main entry reaches rather than names', () => {
  it('are the same types', () => {
    expectTypeOf<Extract<Outcome<{ env: string }>, { action: 'accept' }>>().toEqualTypeOf<Accepted<{ env: string }>>();
    expectTypeOf<Extract<Outcome<unknown>, { action: 'decline' }>>().toEqualTypeOf<Declined>();
    expectTypeOf<Extract<Outcome<unknown>, { action: 'timeout' }>>().toEqualTypeOf<TimedOut>();
    expectTypeOf<Awaited<ReturnType<ToolContext['askUrl']>>>().toEqualTypeOf<UrlOutcome>();
    expectTypeOf<Extract<Awaited<ReturnType<ToolContext['askUrl']>>, { action: 'pending' }>>().toEqualTypeOf<Pending>();
    expectTypeOf<Outcome<unknown> | Awaited<ReturnType<ToolContext['askUrl']>>>().toEqualTypeOf<AnyOutcome>();
    expectTypeOf<Extract<AuditEvent, { type: 'request' }>>().toEqualTypeOf<AuditRequest>();
    expectTypeOf<Extract<AuditEvent, { type: 'violation' }>>().toEqualTypeOf<AuditViolation>();
    expectTypeOf<Parameters<ToolContext['askUrl']>[1]>().toEqualTypeOf<AskUrlOptions>();
    expectTypeOf<ReturnType<Parameters<AttemptEffect<string>>[0]>>().toEqualTypeOf<Withheld<string>>();
    expectTypeOf<Awaited<ReturnType<ToolContext['attempt']>>>().toEqualTypeOf<Attempt<unknown>>();
  });
});
