import type { ElicitAction, FormSchema } from '@elicitkit/form';
import type { Adaptation } from '@elicitkit/form/clients';

/**
 * One question as the tool call asks it, before any revision's wire shape: the channel turns it
 * into what its revision sends (see `wire.ts`).
 */
export type Question =
  /**
   * `adaptation`: how the form was shaped for the client's quirks, so its answer can be read back;
   * `declared`: then the form as the tool declared it (a client's shape of a question is the same question).
   */
  | {
      kind: 'form';
      message: string;
      schema: FormSchema;
      adaptation?: Adaptation;
      declared?: FormSchema;
      /** What the answer is about beyond what is shown (`AskOptions.about`): part of the question's identity, never sent. */
      about?: string;
    }
  | { kind: 'url'; message: string; url: string; about?: string };

/**
 * Why an open question ended without an answer from the person:
 * - `client-cancelled`: the client sent `notifications/cancelled` for the tool call;
 * - `disconnected`: the stream carrying the call went away (HTTP response stream dropped, stdio
 *   pipe or in-memory connection closed);
 * - `session-closed`: the 2025 HTTP session was closed (DELETE, eviction, server shutdown).
 */
export type CloseReason = 'client-cancelled' | 'disconnected' | 'session-closed';

/** What came back for one question, whichever way it travelled. */
export type RawAnswer =
  | {
      kind: 'answer';
      action: ElicitAction;
      content?: Record<string, unknown>;
      /** How the question was shaped for the client when it was first sent (content is in that shape). */
      adaptation?: Adaptation;
      elapsedMs: number;
      fresh: boolean;
    }
  | { kind: 'timeout'; elapsedMs: number; fresh: boolean }
  /** The client answered the request with an error: it cannot ask this. */
  | { kind: 'failed'; detail: string; elapsedMs: number; fresh: boolean }
  /** The call was cancelled or its connection went away while the question was open. */
  | { kind: 'closed'; reason: CloseReason; detail: string; elapsedMs: number; fresh: boolean }
  /** The client's revision cannot express this question; nothing was sent. */
  | { kind: 'unshowable'; detail: string }
  /**
   * 2026-07-28: the question changed before its answer arrived `changes` times (the budget), so no
   * answer to it can ever count; `setAside` is the answer of this round that did not count, if any.
   */
  | {
      kind: 'unstable';
      changes: number;
      setAside?: Extract<RawAnswer, { kind: 'answer' }>;
      elapsedMs: number;
      fresh: boolean;
    };

/**
 * How questions reach the client. The push channel awaits a real `elicitation/create` (2025
 * connections); the replay channel answers from the round's `inputResponses` and sealed state, and
 * otherwise ends the round (2026-07-28), so its promise for a new question never settles.
 */
export interface Channel {
  /**
   * `onSent` runs when the question is sent for the first time (for the audit trail), and again
   * when a later round sends it changed: then with the answer that had arrived for it as it was
   * before, if one did (that answer does not count). On 2026-07-28 it runs once the round goes out
   * asking it (`ReplayChannel.sent`), not for a round that ends otherwise.
   */
  send(
    key: string,
    question: Question,
    timeoutMs: number,
    onSent: (superseded?: RawAnswer) => void,
  ): Promise<RawAnswer>;
  /** URL mode, after the out-of-band flow finished: tell the client (2025-11-25 only). */
  complete(key: string): Promise<void>;
  /**
   * 2026-07-28: a decline or cancel the person gave in time to a question this round has not
   * asked: the handler, run again, is heading for its side effect (or another question) another
   * way than the one they answered. (2025: a call runs once, every answer reaches its ask.)
   */
  refusedUnasked?(): Refusal | undefined;
  /**
   * 2026-07-28: an accept the person gave in time to a question this round has not asked, as the
   * handler heads for its side effect: it goes another way than the one they confirmed (what it
   * found changed since), so the effect must not run on their answer.
   */
  acceptedUnasked?(): { key: string; answer: RawAnswer } | undefined;
  /**
   * 2026-07-28: whether `key` was asked in an earlier round (the state this round came with holds
   * it): asked again now, the handler retraces its way, as it does every round — a question asked
   * beside one the person then refused is no question asked after their no.
   */
  askedEarlier?(key: string): boolean;
  /**
   * 2026-07-28: the decline or cancel the person gave in time to `key`, in an earlier round or in
   * this one. It stands whatever this round would ask or could show: the question built again
   * differently (the version moved on), or a client that declares less this round (no form
   * capability, another client) must not turn a refusal into a question asked again or into
   * "unsupported", from which a model could fill the values in itself.
   */
  refusal?(key: string): Refusal | undefined;
  /**
   * 2026-07-28: whether an answer to `key` came back, in an earlier round or in this one. The
   * question was asked when the client could show it; a client that declares less this round (no
   * URL or form capability) must not turn the person's answer into "unsupported" — a page they
   * finished reported as nothing done. `send` still holds the answer to its question and its time.
   */
  answered?(key: string): boolean;
}

/** A decline or cancel of `key`, as it came (`answer`: for the audit trail). */
export interface Refusal {
  key: string;
  action: 'decline' | 'cancel';
  answer: Extract<RawAnswer, { kind: 'answer' }>;
}
