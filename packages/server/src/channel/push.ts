import {
  ProtocolError,
  SdkError,
  SdkErrorCode,
  type Server,
  type ServerContext,
  type StandardSchemaV1Sync,
} from '@modelcontextprotocol/server';
import type { Channel, ElicitParams, RawAnswer } from './channel.js';

interface ElicitResultShape {
  action: 'accept' | 'decline' | 'cancel';
  content?: Record<string, unknown>;
}

/**
 * The shape of an `elicitation/create` result, as a Standard Schema for `ctx.mcpReq.send`. Only
 * the envelope is checked here — the content is validated against the form by the session, with
 * the form's own validator — which spares the SDK's generic result schema on every answer.
 */
const ELICIT_RESULT: StandardSchemaV1Sync<unknown, ElicitResultShape> = {
  '~standard': {
    version: 1,
    vendor: 'elicitkit',
    validate(value: unknown) {
      const v = value as { action?: unknown; content?: unknown } | null;
      if (typeof v !== 'object' || v === null) return { issues: [{ message: 'the result is not an object' }] };
      if (v.action !== 'accept' && v.action !== 'decline' && v.action !== 'cancel')
        return { issues: [{ message: 'action must be accept, decline or cancel', path: ['action'] }] };
      if (v.content !== undefined && (typeof v.content !== 'object' || v.content === null || Array.isArray(v.content)))
        return { issues: [{ message: 'content must be an object', path: ['content'] }] };
      return { value: v as ElicitResultShape };
    },
  },
};

/**
 * 2025 connections: a real `elicitation/create` request related to the tool call, with a
 * human-length timeout and the call's abort signal. The handler runs once, so nothing is replayed.
 */
export class PushChannel implements Channel {
  readonly era = 'legacy' as const;
  private readonly ids = new Map<string, string>();

  constructor(
    private readonly ctx: ServerContext,
    private readonly server: Server,
    private readonly now: () => number,
  ) {}

  async send(key: string, params: ElicitParams, timeoutMs: number, onSent: () => void): Promise<RawAnswer> {
    const started = this.now();
    let wire = params;
    if (params.mode === 'url') {
      const elicitationId = crypto.randomUUID();
      this.ids.set(key, elicitationId);
      wire = { ...params, elicitationId };
    }
    onSent();
    try {
      const result = await this.ctx.mcpReq.send(
        { method: 'elicitation/create', params: wire as unknown as Record<string, unknown> },
        ELICIT_RESULT,
        { timeout: timeoutMs, signal: this.ctx.mcpReq.signal },
      );
      const elapsedMs = this.now() - started;
      const content = result.content as Record<string, unknown> | undefined;
      return { kind: 'answer', action: result.action, ...(content ? { content } : {}), elapsedMs, fresh: true };
    } catch (error) {
      const elapsedMs = this.now() - started;
      const detail = error instanceof Error ? error.message : String(error);
      if (error instanceof SdkError && error.code === SdkErrorCode.RequestTimeout)
        return { kind: 'timeout', elapsedMs, fresh: true };
      if (
        this.ctx.mcpReq.signal.aborted ||
        (error instanceof SdkError && error.code === SdkErrorCode.ConnectionClosed)
      ) {
        return { kind: 'closed', detail, elapsedMs, fresh: true };
      }
      // The client answered with an error, or with something that is not an answer: it could not ask.
      if (error instanceof ProtocolError || (error instanceof SdkError && error.code === SdkErrorCode.InvalidResult))
        return { kind: 'failed', detail, elapsedMs, fresh: true };
      return { kind: 'closed', detail, elapsedMs, fresh: true };
    }
  }

  async complete(key: string): Promise<void> {
    const id = this.ids.get(key);
    if (id === undefined) return;
    try {
      await this.server.createElicitationCompletionNotifier(id, { relatedRequestId: this.ctx.mcpReq.id })();
    } catch {
      // The notification is a courtesy to the client; the outcome stands without it.
    }
  }
}
