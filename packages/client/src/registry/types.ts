import type { Answer } from '../types.js';

/**
 * Why an answer was or was not taken, as data: `ok` (taken), `unknown` (no such question),
 * `forbidden` (someone else's question), `already-answered` (answers are taken once),
 * `expired` (timed out or withdrawn; the asking side has answered `cancel`).
 *
 * @example
 * const status = { ok: 204, unknown: 404, forbidden: 403, 'already-answered': 409, expired: 410 }[result];
 */
export type ResolveResult = 'ok' | 'unknown' | 'forbidden' | 'already-answered' | 'expired';

/**
 * A new question's owner and timeout.
 *
 * @example
 * const id = await registry.open({ owner: chat.id, timeoutMs: 5 * 60_000 });
 */
export interface OpenOptions {
  /** Who may answer: a browser chat, a user id. Answers from anyone else are `forbidden`. */
  owner: string;
  /** How long the question waits; afterwards it counts as `cancel`. Default: the registry's. */
  timeoutMs?: number;
}

/**
 * Questions waiting for an answer given somewhere else (a web page): id → pending answer with a
 * timeout, exactly-once resolution and owner binding. Every method is async so that a shared
 * store (Redis, for several replicas) can implement the same contract.
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
   * The question's answer once it comes. Expiry, withdrawal, an aborted `signal` (which also
   * withdraws the question) and an unknown id all read as `cancel`; it never rejects.
   */
  wait(id: string, signal?: AbortSignal): Promise<Answer>;
  /** Answers the question on behalf of `owner`: exactly one call ever gets `ok`. */
  resolve(id: string, owner: string, answer: Answer): Promise<ResolveResult>;
  /** The asking side gave up: waiters get `cancel`, later answers get `expired`. */
  withdraw(id: string): Promise<void>;
}

/**
 * Schedules `fn` after `ms` and returns a function that unschedules it. Injectable for tests.
 *
 * @example
 * const setTimer: SetTimer = (fn, ms) => { const t = setTimeout(fn, ms); return () => clearTimeout(t); };
 */
export type SetTimer = (fn: () => void, ms: number) => () => void;
