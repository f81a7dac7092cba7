import type { ElicitAction, Issue } from '@elicitkit/form';
import type { ServerIdentity } from '../types.js';

/**
 * What `attach` did with each elicitation, for logs, audit and status lines. `id` numbers the
 * requests this client has seen, so the events of one request can be grouped. Content is never
 * included: answers may be personal.
 *
 * @example
 * onEvent(event) {
 *   if (event.type === 'auto-declined') console.error(`Declined without asking: ${event.message}`);
 *   if (event.type === 'url-consented' && event.opened !== 'yes') console.error(`Open ${event.url} yourself.`);
 * }
 */
export type ElicitationEvent =
  | {
      type: 'request';
      id: number;
      mode: 'form' | 'url';
      message: string;
      server: ServerIdentity | undefined;
      elicitationId?: string;
    }
  /** Outside the schema subset or not a usable URL: answered with JSON-RPC -32602. */
  | { type: 'rejected'; id: number; message: string }
  /** Answered `decline` without asking the person, and why. */
  | { type: 'auto-declined'; id: number; reason: 'secret-field' | 'rate-limit'; message: string }
  /** The renderer's answer did not fit the form; it is asked again only when `willRetry`. */
  | { type: 'invalid-answer'; id: number; attempt: number; issues: Issue[]; willRetry: boolean }
  /** The renderer threw (a scripted renderer out of answers, a closed terminal): answered `cancel`. */
  | { type: 'renderer-failed'; id: number; error: unknown }
  | { type: 'timed-out'; id: number; timeoutMs: number }
  /** The server (or the caller) withdrew the question. */
  | { type: 'aborted'; id: number }
  /** The person consented to a URL; `opened` says what the opener did with it. */
  | { type: 'url-consented'; id: number; url: string; opened: 'yes' | 'failed' | 'no-opener'; error?: unknown }
  /**
   * The server said (`notifications/elicitation/complete`, 2025-11-25) that the person finished on
   * the page of a URL question this client accepted on this connection; told once per question.
   */
  | { type: 'url-completed'; id: number; elicitationId: string }
  /** The answer sent back to the server. */
  | { type: 'answered'; id: number; action: ElicitAction };
