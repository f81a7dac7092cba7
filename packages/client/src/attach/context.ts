import type { FormContent } from '@elicitkit/form';
import type { ResolvedPolicy } from '../policy/index.js';
import type { RateLimiter } from '../policy/rate-limit.js';
import type { Opener, Renderer, ServerIdentity } from '../types.js';
import { deadline, STOPPED, type Stopped } from './deadline.js';
import type { ElicitationEvent } from './events.js';

/** What goes back to the SDK as the `elicitation/create` result. */
export type WireResult = { action: 'accept'; content?: FormContent } | { action: 'decline' } | { action: 'cancel' };

/** Everything one attached client shares between its requests. */
export interface Session {
  renderer: Renderer;
  policy: ResolvedPolicy;
  limiter: RateLimiter | undefined;
  opener: Opener | undefined;
  emit(event: ElicitationEvent): void;
  /** Runs a renderer call in turn (see `createSerial`). */
  serial<T>(signal: AbortSignal, task: () => Promise<T>): Promise<T | Stopped>;
}

/** One incoming request. */
export interface IncomingRequest {
  id: number;
  server: ServerIdentity | undefined;
  /** The SDK's signal: aborts when the server cancels the request. */
  signal: AbortSignal;
}

/** Per-server budget: a question beyond it is declined unseen (the decline is returned), else `undefined`. */
export function overRateLimit(session: Session, request: IncomingRequest): WireResult | undefined {
  const limit = session.policy.rateLimit;
  if (!session.limiter || limit === false) return undefined;
  const key = request.server ? `${request.server.name}@${request.server.version}` : '(unidentified server)';
  if (session.limiter.take(key)) return undefined;
  const message = `${key} asked more than ${limit.max} questions within ${limit.perMs} ms; declined without asking.`;
  return autoDecline(session, request, 'rate-limit', message);
}

export function autoDecline(
  session: Session,
  request: IncomingRequest,
  reason: 'secret-field' | 'rate-limit',
  message: string,
): WireResult {
  session.emit({ type: 'auto-declined', id: request.id, reason, message });
  return { action: 'decline' };
}

/**
 * Runs `body` under the human-length timeout and the request's abort signal. Stopping early, or a
 * renderer that throws, answers `cancel`: the person did not answer, so nothing may be assumed.
 */
export async function underDeadline(
  session: Session,
  request: IncomingRequest,
  body: (signal: AbortSignal) => Promise<WireResult | Stopped>,
): Promise<WireResult> {
  const limit = deadline(request.signal, session.policy.timeoutMs);
  try {
    const result = await body(limit.signal);
    if (result !== STOPPED) return result;
  } catch (error) {
    if (limit.reason() === undefined) {
      session.emit({ type: 'renderer-failed', id: request.id, error });
      return { action: 'cancel' };
    }
  } finally {
    limit.dispose();
  }
  if (limit.reason() === 'timeout') {
    session.emit({ type: 'timed-out', id: request.id, timeoutMs: session.policy.timeoutMs });
  } else {
    session.emit({ type: 'aborted', id: request.id });
  }
  return { action: 'cancel' };
}
