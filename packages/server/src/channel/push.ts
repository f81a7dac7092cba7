import { ProtocolError, SdkError, SdkErrorCode, type Server, type ServerContext } from '@modelcontextprotocol/server';
import type { Channel, ElicitParams, RawAnswer } from './channel.js';

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
      if (error instanceof ProtocolError) return { kind: 'failed', detail, elapsedMs, fresh: true };
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
