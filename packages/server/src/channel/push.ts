import { ELICIT_ACTIONS, type ElicitAction, type Revision } from '@elicitkit/form';
import {
  ProtocolError,
  SdkError,
  SdkErrorCode,
  type Server,
  type ServerContext,
  type StandardSchemaV1Sync,
} from '@modelcontextprotocol/server';
import { RELAYED, RESUMABLE, STREAM_ONLY, type TellsGone, WHEN_GONE } from '../http/exchange.js';
import type { Channel, CloseReason, Question, RawAnswer } from './channel.js';
import { pushRequest } from './wire.js';

interface ElicitResultShape {
  action: ElicitAction;
  content?: Record<string, unknown>;
}

/**
 * The shape of an `elicitation/create` result, as a Standard Schema for `ctx.mcpReq.send`. Only
 * the envelope is checked here — the content is validated against the form by `CallQuestions`, with
 * the form's own validator — which spares the SDK's generic result schema on every answer.
 */
const ELICIT_RESULT: StandardSchemaV1Sync<unknown, ElicitResultShape> = {
  '~standard': {
    version: 1,
    vendor: 'elicitkit',
    validate(value: unknown) {
      const v = value as { action?: unknown; content?: unknown } | null;
      if (typeof v !== 'object' || v === null) return { issues: [{ message: 'the result is not an object' }] };
      if (!ELICIT_ACTIONS.some((action) => action === v.action))
        return { issues: [{ message: 'action must be accept, decline or cancel', path: ['action'] }] };
      // A decline or a cancel is the person's answer whatever content comes with it (clients send
      // `null`, which the SDK's own result schema reads as none): never taken for a client that
      // could not ask. Only an accept's content is read.
      if (v.action !== 'accept' || v.content === null) return { value: { action: v.action as ElicitAction } };
      if (v.content !== undefined && (typeof v.content !== 'object' || Array.isArray(v.content)))
        return { issues: [{ message: 'content must be an object', path: ['content'] }] };
      return { value: v as ElicitResultShape };
    },
  },
};

/**
 * The signal a 2025 tool call ends on: the SDK's own (`notifications/cancelled`, the connection
 * closing) or the HTTP request that carries the call going away. The SDK does not watch the
 * request's signal — a client that drops its response stream would otherwise leave the question
 * open until its timeout.
 */
export function callSignal(ctx: ServerContext): AbortSignal {
  // A resumable stream (the transport keeps its events: it hands the call `closeSSE` from
  // 2025-11-25 on; the session marks its requests on every revision) may drop and be picked up
  // again with Last-Event-ID: the call ends with its session, not its stream.
  // A relayed one still ends when its relay is given up (`RELAYED`).
  const req = ctx.http?.req;
  if (ctx.http?.closeSSE || !req || RESUMABLE in req)
    return req && RELAYED in req ? unlessStreamOnly(ctx.mcpReq.signal, req.signal) : ctx.mcpReq.signal;
  // The Node listener's request tells of its client going away without a signal of its own
  // (an `AbortSignal` is most of a kilobyte, held as long as the question is open).
  if (WHEN_GONE in req) return untilGone(ctx.mcpReq.signal, req as Request & TellsGone);
  return either(ctx.mcpReq.signal, req.signal);
}

/**
 * A signal that aborts when `a` or `b` does, with its reason. Not `AbortSignal.any`: on Node 20
 * that costs a weak reference and a finalization registration per call (measured at 5–15× this),
 * and both sources here live only as long as the call's request, so plain listeners leak nothing.
 */
export function either(a: AbortSignal, b: AbortSignal): AbortSignal {
  if (a.aborted) return a;
  if (b.aborted) return b;
  const controller = new AbortController();
  const abort = (event: Event) => {
    a.removeEventListener('abort', abort);
    b.removeEventListener('abort', abort);
    controller.abort((event.target as AbortSignal).reason);
  };
  a.addEventListener('abort', abort);
  b.addEventListener('abort', abort);
  return controller.signal;
}

/**
 * `either(a, relay)` where `relay` aborting with `STREAM_ONLY` does not count: a relayed call on a
 * resumable session ends with the call's own signal or with its relay given up, not with its
 * client going away (it may come back with Last-Event-ID).
 */
function unlessStreamOnly(a: AbortSignal, relay: AbortSignal): AbortSignal {
  if (a.aborted || (relay.aborted && relay.reason === STREAM_ONLY)) return a;
  if (relay.aborted) return relay;
  const controller = new AbortController();
  const abort = (event: Event) => {
    a.removeEventListener('abort', abort);
    relay.removeEventListener('abort', abort);
    const from = event.target as AbortSignal;
    if (from === a || from.reason !== STREAM_ONLY) controller.abort(from.reason);
    // Only the stream: the call goes on, ended by its own signal alone.
    else a.addEventListener('abort', () => controller.abort(a.reason), { once: true });
  };
  a.addEventListener('abort', abort);
  relay.addEventListener('abort', abort);
  return controller.signal;
}

/**
 * `either(a, request.signal)` for a request that tells of its client going away directly: it
 * aborts with `a`'s reason, or with the reason the request's own signal has then (an `AbortError`).
 */
function untilGone(a: AbortSignal, request: Request & TellsGone): AbortSignal {
  if (a.aborted) return a;
  const controller = new AbortController();
  const abort = () => controller.abort(a.reason);
  a.addEventListener('abort', abort, { once: true });
  request[WHEN_GONE](() => {
    a.removeEventListener('abort', abort);
    // Made now, aborted: the reason a signal followed from the start would have had.
    if (!controller.signal.aborted) controller.abort(request.signal.reason);
  });
  return controller.signal;
}

/**
 * Questions pushed on the connection (2025 revisions): a real `elicitation/create` request related
 * to the tool call, with a human-length timeout and the call's abort signal. The handler runs once,
 * so nothing is replayed.
 */
export class PushChannel implements Channel {
  /** URL-mode questions' ids, by key: made by the first one (most calls ask none). */
  private ids: Map<string, string> | undefined;

  constructor(
    private readonly ctx: ServerContext,
    private readonly server: Server,
    private readonly revision: Revision,
    private readonly signal: AbortSignal,
    private readonly now: () => number,
  ) {}

  async send(key: string, question: Question, timeoutMs: number, onSent: () => void): Promise<RawAnswer> {
    const shaped = pushRequest(question, this.revision);
    if (!shaped.ok) return { kind: 'unshowable', detail: shaped.detail };
    const { params, elicitationId } = shaped.wire;
    if (elicitationId !== undefined) {
      this.ids ??= new Map();
      this.ids.set(key, elicitationId);
    }
    const started = this.now();
    onSent();
    try {
      const result = await this.ctx.mcpReq.send({ method: 'elicitation/create', params }, ELICIT_RESULT, {
        timeout: timeoutMs,
        signal: this.signal,
      });
      const answer: RawAnswer = { kind: 'answer', action: result.action, elapsedMs: this.now() - started, fresh: true };
      // Set only when present (exactOptionalPropertyTypes), without a spread per answer.
      if (result.content) answer.content = result.content;
      if (question.kind === 'form' && question.adaptation) answer.adaptation = question.adaptation;
      return answer;
    } catch (error) {
      const elapsedMs = this.now() - started;
      const detail = error instanceof Error ? error.message : String(error);
      // Checked first: the SDK reports every aborted request as a timeout, whatever aborted it.
      const reason = closeReason(this.ctx, error);
      if (reason) return { kind: 'closed', reason, detail, elapsedMs, fresh: true };
      if (error instanceof SdkError && error.code === SdkErrorCode.RequestTimeout)
        return { kind: 'timeout', elapsedMs, fresh: true };
      // The client answered with an error, or with something that is not an answer: it could not ask.
      if (error instanceof ProtocolError || (error instanceof SdkError && error.code === SdkErrorCode.InvalidResult))
        return { kind: 'failed', detail, elapsedMs, fresh: true };
      return { kind: 'closed', reason: 'disconnected', detail, elapsedMs, fresh: true };
    }
  }

  async complete(key: string): Promise<void> {
    const id = this.ids?.get(key);
    if (id === undefined) return;
    try {
      await this.server.createElicitationCompletionNotifier(id, { relatedRequestId: this.ctx.mcpReq.id })();
    } catch {
      // The notification is a courtesy to the client; the outcome stands without it.
    }
  }
}

/**
 * Why a call's signal ended before its effect: its HTTP request went away or its connection
 * closed (a stdio client that exited: nobody cancelled anything), or the client cancelled it.
 */
export function endedBy(ctx: ServerContext): CloseReason {
  return closeReason(ctx, undefined) ?? 'client-cancelled';
}

/** How the call's connection ended the question, if it did. */
function closeReason(ctx: ServerContext, error: unknown): CloseReason | undefined {
  if (ctx.http?.req?.signal.aborted) return 'disconnected';
  const own = ctx.mcpReq.signal;
  if (isConnectionClosed(error) || (own.aborted && isConnectionClosed(own.reason))) {
    // A 2025 HTTP session has an id; stdio and in-memory connections do not.
    return ctx.sessionId ? 'session-closed' : 'disconnected';
  }
  return own.aborted ? 'client-cancelled' : undefined;
}

/** Whether `value` (an error, or an abort's reason) says the call's connection closed. */
export function isConnectionClosed(value: unknown): boolean {
  return value instanceof SdkError && value.code === SdkErrorCode.ConnectionClosed;
}
