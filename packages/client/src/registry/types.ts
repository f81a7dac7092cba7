import type { Answer } from '../types.js';

/**
 * Why an answer was or was not taken, as data: `ok` (taken), `unknown` (no such question),
 * `forbidden` (someone else's question), `already-answered` (answers are taken once),
 * `expired` (timed out or withdrawn; the asking side has answered `cancel`). `get(id)` tells
 * which of the two ended it.
 *
 * @example
 * const status = { ok: 204, unknown: 404, forbidden: 403, 'already-answered': 409, expired: 410 }[result];
 */
export type ResolveResult = 'ok' | 'unknown' | 'forbidden' | 'already-answered' | 'expired';

/**
 * How a question ended — the one truth about it:
 * - `answered`: the person accepted or declined (`answer` says which, with the content);
 * - `cancelled`: the person cancelled (abandoned the whole operation);
 * - `expired`: nobody answered before its deadline;
 * - `withdrawn`: the asking side gave up (the server cancelled it, the call or chat ended);
 * - `unknown`: the registry has no such question (never issued, or forgotten since).
 *
 * @example
 * switch (settlement.reason) {
 *   case 'answered': return settlement.answer;
 *   case 'cancelled': case 'expired': case 'withdrawn': case 'unknown': return { action: 'cancel' };
 * }
 */
export type Settlement =
  | { reason: 'answered'; answer: Exclude<Answer, { action: 'cancel' }> }
  | { reason: 'cancelled' }
  | { reason: 'expired' }
  | { reason: 'withdrawn' }
  | { reason: 'unknown' };

/** A settlement's reason: `'answered' | 'cancelled' | 'expired' | 'withdrawn' | 'unknown'`. */
export type SettleReason = Settlement['reason'];

/**
 * What the asking side does with a settlement: the person's accept or decline, otherwise
 * `cancel` (nothing may be done on an expired, withdrawn or cancelled question).
 *
 * @example
 * const answer = answerOf(await registry.wait(id, signal));
 */
export function answerOf(settlement: Settlement): Answer {
  return settlement.reason === 'answered' ? structuredClone(settlement.answer) : { action: 'cancel' };
}

/**
 * A new question's owner, timeout and what the host wants kept with it.
 *
 * @example
 * const id = await registry.open({ owner: chat.id, timeoutMs: 5 * 60_000, data: { server: 'opsdesk', prompt } });
 */
export interface OpenOptions {
  /** Who may answer: a browser chat, a user id. Answers from anyone else are `forbidden`. */
  owner: string;
  /** How long the question waits; afterwards it counts as `expired`. Default: the registry's. */
  timeoutMs?: number;
  /** What the host shows for the question (JSON: a shared store keeps it as text). Default `null`. */
  data?: unknown;
}

/**
 * One question as the registry holds it: who owns it, its deadline, the host's data, and how it
 * settled (`undefined` while it waits).
 *
 * @example
 * const entry = await registry.get(id);
 * if (entry?.owner !== chat.id) return notFound();
 */
export interface PendingEntry {
  id: string;
  owner: string;
  /** Epoch ms it was opened, and when it stops waiting (by the registry's clock). */
  openedAt: number;
  expiresAt: number;
  data: unknown;
  settlement: Exclude<Settlement, { reason: 'unknown' }> | undefined;
}

/**
 * Questions waiting for an answer given somewhere else (a web page): id → pending answer with a
 * timeout, exactly-once resolution, owner binding, and how each one settled. Every method is
 * async so that a shared store (Redis, for several replicas) can implement the same contract;
 * `registrySuite` from `@elicitkit/client/testing` is that contract.
 *
 * @example
 * // POST /api/elicitations/{id}, after validating the body against the published prompt:
 * const result = await registry.resolve(params.id, chat.id, body);
 * return new Response(null, { status: result === 'ok' ? 204 : 409 });
 */
export interface PendingRegistry {
  /** Opens a question and returns its unguessable id. */
  open(options: OpenOptions): Promise<string>;
  /**
   * How the question settled, once it does. An aborted `signal` withdraws the question (unless
   * it already settled); an unknown id reads `unknown`. Rejects only when its store cannot be
   * reached (the Redis registry while its subscription is down).
   */
  wait(id: string, signal?: AbortSignal): Promise<Settlement>;
  /**
   * Answers the question on behalf of `owner`: exactly one call ever gets `ok`. A `cancel`
   * settles it as `cancelled`, accept and decline as `answered`.
   */
  resolve(id: string, owner: string, answer: Answer): Promise<ResolveResult>;
  /** The asking side gave up: waiters get `withdrawn`, later answers get `expired`. */
  withdraw(id: string): Promise<void>;
  /** The question, settled or not, or `undefined` when unknown. Settles it as `expired` if it is due. */
  get(id: string): Promise<PendingEntry | undefined>;
  /** The questions of one owner (a chat), oldest first: still waiting, or settled and remembered. */
  list(owner: string): Promise<PendingEntry[]>;
}

/**
 * Schedules `fn` after `ms` and returns a function that unschedules it. Injectable for tests.
 *
 * @example
 * const setTimer: SetTimer = (fn, ms) => { const t = setTimeout(fn, ms); return () => clearTimeout(t); };
 */
export type SetTimer = (fn: () => void, ms: number) => () => void;
