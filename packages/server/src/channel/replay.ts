import { type InputRequest, inputResponse } from '@modelcontextprotocol/server';
import type { AskRecord, CallState } from '../state.js';
import { ANSWER_ACTIONS, type Channel, type Question, type RawAnswer } from './channel.js';
import { inputRequest } from './wire.js';

/**
 * 2026-07-28: the handler is re-entered once per round. Answers come from this round's
 * `inputResponses` and, for earlier rounds, from the sealed state; a question not answered yet is
 * queued for this round's `input_required` result and its promise never settles.
 */
export class ReplayChannel implements Channel {
  private readonly records: Record<string, AskRecord>;
  private readonly fresh = new Set<string>();
  private readonly queued = new Map<string, InputRequest>();
  /** Called when the handler is waiting on a question this round cannot answer. */
  onSuspend: () => void = ignore;

  constructor(
    previous: CallState | undefined,
    responses: Record<string, unknown> | undefined,
    private readonly now: () => number,
  ) {
    // Each opened state is its own objects (call-state-codec.ts), so this round changes them in place.
    this.records = previous?.asks ?? {};
    const at = now();
    for (const [key, record] of Object.entries(this.records)) {
      if (record.answer) continue;
      const view = inputResponse(responses, key);
      if (view.kind !== 'elicit' || !ANSWER_ACTIONS.some((action) => action === view.action)) continue;
      record.answer = { action: view.action, at, ...(isRecord(view.content) ? { content: view.content } : {}) };
      this.fresh.add(key);
    }
  }

  send(key: string, question: Question, timeoutMs: number, onSent: () => void): Promise<RawAnswer> {
    // Own keys only: an ask key may be named like an Object.prototype member (`constructor`).
    const record = Object.hasOwn(this.records, key) ? this.records[key] : undefined;
    if (record?.answer) {
      const elapsedMs = record.answer.at - record.asked;
      const fresh = this.fresh.has(key);
      // A late answer counts as no answer: the person may no longer mean it.
      if (elapsedMs > record.timeoutMs) return Promise.resolve({ kind: 'timeout', elapsedMs, fresh });
      const { action, content } = record.answer;
      // The shape it was sent in (sealed), not this round's: the client may announce itself differently now.
      const adaptation = record.adaptation;
      return Promise.resolve({
        kind: 'answer',
        action,
        ...(content ? { content } : {}),
        ...(adaptation ? { adaptation } : {}),
        elapsedMs,
        fresh,
      });
    }
    if (record && this.now() - record.asked > record.timeoutMs) {
      return Promise.resolve({ kind: 'timeout', elapsedMs: this.now() - record.asked, fresh: true });
    }
    const adaptation = question.kind === 'form' ? question.adaptation : undefined;
    if (!record) {
      const asked: AskRecord = { asked: this.now(), timeoutMs, ...(adaptation ? { adaptation } : {}) };
      // Defined, not assigned: assigning `__proto__` would set the object's prototype instead.
      Object.defineProperty(this.records, key, { value: asked, enumerable: true, writable: true, configurable: true });
      onSent();
    } else if (adaptation) {
      // Asked again unanswered: its answer comes in the shape sent last.
      record.adaptation = adaptation;
    } else {
      delete record.adaptation;
    }
    this.queued.set(key, inputRequest(question));
    this.onSuspend();
    return new Promise<RawAnswer>(() => {});
  }

  async complete(): Promise<void> {
    // 2026-07-28 has no completion notification: the retried call itself is the signal.
  }

  /** The requests this round ends with. */
  requests(): Record<string, InputRequest> {
    return Object.fromEntries(this.queued);
  }

  /** The state the next round starts from. */
  state(call: string, callText: string, cid: string): CallState {
    return { call, callText, cid, asks: this.records };
  }
}

/** The default `onSuspend`: one function for every channel, not a closure per round. */
function ignore(): void {}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
