import type { FormContent } from '@elicitkit/form';
import type { ResolvedPolicy } from '../policy/index.js';
import type { RateLimiter } from '../policy/rate-limit.js';
import type { Opener, Renderer, ServerIdentity, UrlPrompt } from '../types.js';
import { deadline, race, STOPPED, type Stopped, type StopReason } from './deadline.js';
import type { ElicitationEvent } from './events.js';

/** What goes back to the SDK as the `elicitation/create` result. */
export type WireResult = { action: 'accept'; content?: FormContent } | { action: 'decline' } | { action: 'cancel' };

/**
 * What answers the requests of one attached client: its renderer, policy, rate limiter, opener,
 * event sink and turn queue, shared by every request it receives. Internal; what the caller of
 * `attach` holds is the `Attachment`.
 */
export interface Responder {
  renderer: Renderer;
  policy: ResolvedPolicy;
  limiter: RateLimiter | undefined;
  /** The key questions count under in `limiter`; default the server's self-reported `name@version`. */
  budget?: string;
  opener: Opener | undefined;
  emit(event: ElicitationEvent): void;
  /** Runs a renderer call in turn (see `createSerial`). */
  serial<T>(signal: AbortSignal, task: () => Promise<T>): Promise<T | Stopped>;
}

/** One incoming request. */
export interface IncomingRequest {
  id: number;
  /** When it arrived, by attach's clock: each prompt's `receivedAt`. */
  receivedAt: number;
  server: ServerIdentity | undefined;
  /** Aborts when the server cancels the request, or the client closes its connection. */
  signal: AbortSignal;
  /** Called when a URL question is answered accept, so that its completion can be told. */
  accepted(prompt: UrlPrompt): void;
  /**
   * Called as soon as the person cancels, before the next question's turn: the operation stops,
   * so the other questions of its round are withdrawn unasked.
   */
  cancelled(): void;
}

/** The renderer's answer, once the person's cancel has been told (`IncomingRequest.cancelled`). */
export async function heard<A extends { action: string }>(request: IncomingRequest, answer: Promise<A>): Promise<A> {
  const said = await answer;
  if (said.action === 'cancel') request.cancelled();
  return said;
}

/** Per-server budget: a question beyond it is declined unseen (the decline is returned), else `undefined`. */
export async function overRateLimit(responder: Responder, request: IncomingRequest): Promise<WireResult | undefined> {
  const limit = responder.policy.rateLimit;
  if (!responder.limiter || limit === false) return undefined;
  const key =
    responder.budget ?? (request.server ? `${request.server.name}@${request.server.version}` : '(unidentified server)');
  const taken = responder.limiter.take(key);
  if (taken === true) return undefined;
  if (taken !== false) {
    // A budget kept elsewhere (Redis) may never answer (a client that retries for ever): the
    // question waits for it no longer than for the person, and stops when it is withdrawn.
    const waiting = deadline(request.signal, responder.policy.timeoutMs);
    try {
      const within = await race(taken, waiting.signal);
      if (within === STOPPED) return stopped(responder, request, waiting.reason());
      if (within) return undefined;
    } finally {
      waiting.dispose();
    }
  }
  const message = `${key} asked more than ${limit.max} questions within ${limit.perMs} ms; declined without asking.`;
  return autoDecline(responder, request, 'rate-limit', message);
}

export function autoDecline(
  responder: Responder,
  request: IncomingRequest,
  reason: 'secret-field' | 'rate-limit',
  message: string,
): WireResult {
  responder.emit({ type: 'auto-declined', id: request.id, reason, message });
  return { action: 'decline' };
}

/**
 * Runs `body` under the human-length timeout and the request's abort signal. The timeout runs
 * from `shown()`, which `body` calls when its question's turn comes (`responder.serial`): one
 * waiting behind another question loses none of its time, and is never answered `cancel` unseen
 * for a wait that was not the person's. Stopping early, or a renderer that throws, answers
 * `cancel`: the person did not answer, so nothing may be assumed.
 */
export async function underDeadline(
  responder: Responder,
  request: IncomingRequest,
  body: (signal: AbortSignal, shown: () => void) => Promise<WireResult | Stopped>,
): Promise<WireResult> {
  const limit = deadline(request.signal, responder.policy.timeoutMs, { from: 'start' });
  try {
    const result = await body(limit.signal, limit.start);
    if (result !== STOPPED) return result;
  } catch (error) {
    if (limit.reason() === undefined) {
      responder.emit({ type: 'renderer-failed', id: request.id, error });
      return { action: 'cancel' };
    }
  } finally {
    limit.dispose();
  }
  return stopped(responder, request, limit.reason());
}

/** A question stopped before the person answered: says why, and answers `cancel`. */
function stopped(responder: Responder, request: IncomingRequest, reason: StopReason | undefined): WireResult {
  if (reason === 'timeout') {
    responder.emit({ type: 'timed-out', id: request.id, timeoutMs: responder.policy.timeoutMs });
  } else {
    responder.emit({ type: 'aborted', id: request.id });
  }
  return { action: 'cancel' };
}
