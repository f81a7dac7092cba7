import { ELICIT_ACTIONS } from '@elicitkit/form';
import { type InputRequest, inputResponse } from '@modelcontextprotocol/server';
import { type AskRecord, type CallState, questionDigest } from '../state.js';
import type { Channel, Question, RawAnswer, Refusal } from './channel.js';
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
  /** The keys this round has asked (made on the first ask). */
  private reached: Set<string> | undefined;
  /** The keys first asked this round, not in the state it came with (made on the first). */
  private added: Set<string> | undefined;
  /** What each question this round asks anew tells the audit trail once the round goes out (`sent`). */
  private unsent: [onSent: (superseded?: RawAnswer) => void, superseded: RawAnswer | undefined][] | undefined;
  /** Called when the handler is waiting on a question this round cannot answer. */
  onSuspend: () => void = ignore;

  constructor(
    previous: CallState | undefined,
    responses: Record<string, unknown> | undefined,
    private readonly now: () => number,
    /** How many answers to one key may be set aside because its question changed before the call ends. */
    private readonly maxChanges: number = DEFAULT_MAX_CHANGES,
  ) {
    // Each opened state is its own objects (call-state-codec.ts), so this round changes them in place.
    this.records = previous?.asks ?? {};
    const at = now();
    for (const [key, record] of Object.entries(this.records)) {
      if (record.answer) continue;
      const view = inputResponse(responses, key);
      if (view.kind !== 'elicit' || !ELICIT_ACTIONS.some((action) => action === view.action)) continue;
      record.answer = { action: view.action, at, ...(isRecord(view.content) ? { content: view.content } : {}) };
      this.fresh.add(key);
    }
  }

  send(
    key: string,
    question: Question,
    timeoutMs: number,
    onSent: (superseded?: RawAnswer) => void,
  ): Promise<RawAnswer> {
    this.reached ??= new Set();
    this.reached.add(key);
    const digest = questionDigest(question);
    // Own keys only: an ask key may be named like an Object.prototype member (`constructor`).
    const record = Object.hasOwn(this.records, key) ? this.records[key] : undefined;
    // This round builds the question again from what is true now. When that is no longer what the
    // person was shown (the version to deploy moved on, a file changed), their answer was to
    // another question: it does not count, and the question as it is now is asked instead.
    // (A late answer stays a timeout, whatever the question has become.)
    const changed = record !== undefined && record.question !== undefined && record.question !== digest;
    let superseded: Extract<RawAnswer, { kind: 'answer' }> | undefined;
    if (record?.answer && changed && record.answer.at - record.asked <= record.timeoutMs) {
      const { action, content, at } = record.answer;
      const fresh = this.fresh.has(key);
      // An answer from an earlier round is in the trail already; one from this round is noted with the new question.
      if (fresh)
        superseded = {
          kind: 'answer',
          action,
          ...(content ? { content } : {}),
          elapsedMs: at - record.asked,
          fresh: true,
        };
      delete record.answer;
      this.fresh.delete(key);
      // A question that changes on every look (a clock, a count) could be asked for ever and never
      // answered: past the budget the call ends, typed, instead of asking it once more. Counted in
      // the sealed state, so a client echoing each round's state with the same answer cannot loop
      // it; an older state replayed restarts from its own count, but only until its question's time is up.
      const changes = (record.changes ?? 0) + 1;
      record.changes = changes;
      if (changes >= this.maxChanges)
        return Promise.resolve({
          kind: 'unstable',
          changes,
          ...(superseded ? { setAside: superseded } : {}),
          elapsedMs: at - record.asked,
          fresh,
        });
    }
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
      const asked: AskRecord = {
        asked: this.now(),
        timeoutMs,
        question: digest,
        ...(adaptation ? { adaptation } : {}),
      };
      // Defined, not assigned: assigning `__proto__` would set the object's prototype instead.
      Object.defineProperty(this.records, key, { value: asked, enumerable: true, writable: true, configurable: true });
      this.added ??= new Set();
      this.added.add(key);
      this.toSend(onSent, undefined);
    } else {
      if (adaptation) {
        // Asked again unanswered: its answer comes in the shape sent last.
        record.adaptation = adaptation;
      } else {
        delete record.adaptation;
      }
      if (changed) {
        // A different question from here on: its own time to answer, and its own request record.
        record.asked = this.now();
        record.timeoutMs = timeoutMs;
        this.toSend(onSent, superseded);
      }
      record.question = digest;
    }
    this.queued.set(key, inputRequest(question));
    this.onSuspend();
    return new Promise<RawAnswer>(() => {});
  }

  async complete(): Promise<void> {
    // 2026-07-28 has no completion notification: the retried call itself is the signal.
  }

  refusal(key: string): Refusal | undefined {
    const record = Object.hasOwn(this.records, key) ? this.records[key] : undefined;
    const held = record && this.refusalIn(key, record);
    if (held) {
      this.reached ??= new Set();
      this.reached.add(key);
    }
    return held;
  }

  askedEarlier(key: string): boolean {
    return Object.hasOwn(this.records, key) && this.added?.has(key) !== true;
  }

  answered(key: string): boolean {
    return Object.hasOwn(this.records, key) && this.records[key]?.answer !== undefined;
  }

  refusedUnasked(): Refusal | undefined {
    for (const [key, record] of Object.entries(this.records)) {
      if (this.reached?.has(key)) continue;
      const held = this.refusalIn(key, record);
      if (held) return held;
    }
    return undefined;
  }

  acceptedUnasked(): { key: string; answer: RawAnswer } | undefined {
    for (const [key, record] of Object.entries(this.records)) {
      const answer = record.answer;
      if (this.reached?.has(key) || answer?.action !== 'accept') continue;
      const elapsedMs = answer.at - record.asked;
      if (elapsedMs > record.timeoutMs) continue;
      const { action, content } = answer;
      return {
        key,
        answer: { kind: 'answer', action, ...(content ? { content } : {}), elapsedMs, fresh: this.fresh.has(key) },
      };
    }
    return undefined;
  }

  /** The decline or cancel `record` holds, when it came in time (a late answer counts as none). */
  private refusalIn(key: string, record: AskRecord): Refusal | undefined {
    const answer = record.answer;
    if (!answer || (answer.action !== 'decline' && answer.action !== 'cancel')) return undefined;
    const elapsedMs = answer.at - record.asked;
    if (elapsedMs > record.timeoutMs) return undefined;
    return {
      key,
      action: answer.action,
      answer: { kind: 'answer', action: answer.action, elapsedMs, fresh: this.fresh.has(key) },
    };
  }

  /**
   * This round goes out with its questions: each asked anew is on the audit trail from now. A round
   * that ends otherwise (the person's no it holds, a tool's error) sent none of them.
   */
  sent(): void {
    for (const [onSent, superseded] of this.unsent ?? []) onSent(superseded);
    this.unsent = undefined;
  }

  private toSend(onSent: (superseded?: RawAnswer) => void, superseded: RawAnswer | undefined): void {
    this.unsent ??= [];
    this.unsent.push([onSent, superseded]);
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

/** Answers set aside for one key before the call ends (`ElicitkitOptions.maxQuestionChanges`). */
export const DEFAULT_MAX_CHANGES = 3;

/** The default `onSuspend`: one function for every channel, not a closure per round. */
function ignore(): void {}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
