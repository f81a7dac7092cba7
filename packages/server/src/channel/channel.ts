import type { ElicitRequestFormParams, ElicitRequestURLParams } from '@modelcontextprotocol/server';

/** What came back for one question, whichever way it travelled. */
export type RawAnswer =
  | {
      kind: 'answer';
      action: 'accept' | 'decline' | 'cancel';
      content?: Record<string, unknown>;
      elapsedMs: number;
      fresh: boolean;
    }
  | { kind: 'timeout'; elapsedMs: number; fresh: boolean }
  /** The client answered the request with an error: it cannot ask this. */
  | { kind: 'failed'; detail: string; elapsedMs: number; fresh: boolean }
  /** The call was cancelled or the connection dropped while the question was open. */
  | { kind: 'closed'; detail: string; elapsedMs: number; fresh: boolean };

export type ElicitParams = ElicitRequestFormParams | ElicitRequestURLParams;

/**
 * How questions reach the client. The push channel awaits a real `elicitation/create` (2025
 * connections); the replay channel answers from the round's `inputResponses` and sealed state, and
 * otherwise ends the round (2026-07-28), so its promise for a new question never settles.
 */
export interface Channel {
  readonly era: 'modern' | 'legacy';
  /** `onSent` runs once, when the question is sent for the first time (for the audit trail). */
  send(key: string, params: ElicitParams, timeoutMs: number, onSent: () => void): Promise<RawAnswer>;
  /** URL mode, after the out-of-band flow finished: tell the client (2025-11-25 only). */
  complete(key: string): Promise<void>;
}
