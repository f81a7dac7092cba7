import { ElicitkitError } from '@elicitkit/form';
import type { CallToolResult } from '@modelcontextprotocol/server';
import type { AsyncAtomicResult, Claim, ClaimStore } from './claims/types.js';
import { ElicitkitUsageError } from './errors.js';
import type { Locale } from './messages.js';
import {
  claimsUnreachableResult,
  commitOutcomeUnknownResult,
  stillRunningResult,
  unknownOutcomeResult,
  unrecordedResult,
} from './results.js';
import { sleep } from './wait.js';

/** How `ctx.commit` runs an effect. */
export interface CommitOptions {
  /**
   * The effect writes only through the database the claim store lives in: the claim, the effect's
   * writes and its result then commit as one transaction — exactly once, even across a crash.
   * With the Postgres store the effect is handed the transaction's client and may be async; with
   * the SQLite store (same connection) it must be synchronous. With a store that cannot do this,
   * the usual claim-then-act is used (still at most once) — unless the effect takes the
   * transaction as a parameter, which is then refused.
   */
  atomic?: boolean;
}

/**
 * A tool's side effect: does the work and returns the tool's result. Committed `{ atomic: true }`
 * on a store with asynchronous transactions (Postgres), it is handed the transaction's client:
 * declare it with its type (`async (tx: PoolClient) => …`), write through it, and never commit or
 * roll back yourself. Typed `never` so that an effect declares what it takes.
 */
export type Effect = (tx: never) => CallToolResult | Promise<CallToolResult>;

/**
 * A side effect that may find, once it has done its work and measured it, that the person must be
 * asked first: it then undoes its own work (rolls back its transaction) and returns
 * `withhold(what)`, where `what` is what the question needs to show.
 */
export type AttemptEffect<W> = (
  withhold: (what: W) => Withheld<W>,
  tx: never,
) => CallToolResult | Withheld<W> | Promise<CallToolResult | Withheld<W>>;

/** How `ctx.attempt` ended: the call's result (the effect ran, or the call was cancelled), or what was withheld. */
export type Attempt<W> = { done: true; result: CallToolResult } | { done: false; withheld: W };

/** The mark an attempt's effect returns when it undid its work; thrown through the committer so the claim is released. */
export class Withheld<W> {
  constructor(readonly what: W) {}
}

export interface CommitterSettings {
  store: ClaimStore;
  /** How long a claim and its result are kept: the life of the call's sealed state. */
  ttlMs: number;
  /** How long a running claim's holder counts as alive without renewing. */
  leaseMs: number;
  /** How long a duplicate waits for a running first attempt before answering "still running". */
  waitMs: number;
  now: () => number;
}

/** A released claim: the attempt being waited on failed, so nothing happened and the id is free. */
const RELEASED = Symbol('released');
const LATE = Symbol('late');
/** The claim store could not be read. */
const UNREACHABLE = Symbol('unreachable');
const SWEEP_EVERY_MS = 60_000;

/**
 * Runs each call's side effect at most once, keyed by the call's id. The first attempt claims the
 * id, acts, and records its result; a retried, replayed or concurrently duplicated attempt gets that
 * recorded result and never acts. An effect that throws releases its claim (the effect is one
 * transaction: nothing happened), so a later attempt may act. An attempt that finds a claim whose
 * holder stopped renewing (the process died mid-effect) does not act either: at most once wins over
 * liveness, and the caller is told the outcome is unknown.
 */
export class Committer {
  /** Effects running in this process, so a duplicate here waits on the promise, not the store. */
  private readonly running = new Map<string, Promise<CallToolResult>>();
  private lastSweep = 0;

  constructor(private readonly settings: CommitterSettings) {}

  /** The claim store this committer records in. */
  get store(): ClaimStore {
    return this.settings.store;
  }

  async run(
    id: string,
    tool: string,
    locale: Locale,
    effect: Effect,
    options: CommitOptions,
    signal: AbortSignal,
    replayable = true,
  ): Promise<CallToolResult> {
    const { store, ttlMs, leaseMs, waitMs } = this.settings;
    // A call no round of which can come again: one transaction, nothing recorded, where the store
    // can (SQLite's `transaction`); elsewhere claimed and recorded as any other.
    if (!replayable && options.atomic && store.transaction && store.atomically && !store.atomicallyAsync)
      return store.transaction(() => {
        const result = runSync(effect, tool);
        // Nothing is recorded, but the result still goes out as JSON: one that cannot rolls back here.
        recordedInTransaction(result, tool);
        return result;
      });
    this.sweepNow();
    if (options.atomic && store.atomicallyAsync) {
      // A duplicate of a transaction this process runs waits for it here, holding nothing: on the
      // claim row's lock it would hold one of the pool's connections for as long (a client replaying
      // its final round as often as the pool has connections held them all).
      const here = this.running.get(id);
      if (here) {
        const settled = await this.waitHere(here, tool, locale, signal, this.settings.now() + waitMs);
        if (settled !== RELEASED) return settled;
        return this.run(id, tool, locale, effect, options, signal, replayable);
      }
      const transaction = store.atomicallyAsync(
        id,
        ttlMs,
        async (tx) => recordedInTransaction(await effect(tx as never), tool),
        {
          waitMs,
        },
      );
      // What a duplicate here gets: this attempt's answer; a rejection (it threw, or found someone
      // else's claim) sends it to try for itself.
      this.track(
        id,
        transaction.then((found) => {
          if (found.state === 'running') throw RELEASED;
          return answerOf(found, tool, locale);
        }),
      );
      const found = await transaction;
      if (found.state !== 'running') return answerOf(found, tool, locale);
      // A claim taken without a transaction (a commit that was not atomic): wait for it as usual.
      const settled = await this.waitFor(id, tool, locale, found, signal);
      if (settled !== RELEASED) return settled;
      return this.run(id, tool, locale, effect, options, signal);
    }
    if (options.atomic && store.atomically) {
      const found = store.atomically(id, ttlMs, () => recordedInTransaction(runSync(effect, tool), tool));
      if (found.state !== 'running') return parse(found.result);
      const settled = await this.waitFor(id, tool, locale, found, signal);
      if (settled !== RELEASED) return settled;
      return this.run(id, tool, locale, effect, options, signal);
    }
    const owner = crypto.randomUUID();
    for (;;) {
      const found = await store.claim(id, owner, { leaseMs, ttlMs });
      if (found.state === 'claimed') return this.act(id, owner, effect, tool, locale);
      if (found.state === 'done') return parse(found.result);
      const settled = await this.waitFor(id, tool, locale, found, signal);
      if (settled !== RELEASED) return settled;
    }
  }

  /**
   * What an earlier attempt of call `id` recorded, if its effect ran (waiting while it runs), or
   * undefined when nothing was claimed: a replay of any round of a committed call answers from here.
   */
  async recorded(id: string, tool: string, locale: Locale, signal: AbortSignal): Promise<CallToolResult | undefined> {
    const found = await this.read(id);
    if (found === UNREACHABLE) return claimsUnreachableResult(tool, locale);
    if (!found) return undefined;
    if (found.state === 'done') return parse(found.result);
    const settled = await this.waitFor(id, tool, locale, found, signal);
    return settled === RELEASED ? undefined : settled;
  }

  private act(id: string, owner: string, effect: Effect, tool: string, locale: Locale): Promise<CallToolResult> {
    const { store, leaseMs } = this.settings;
    const renew = setInterval(() => void store.renew(id, owner, leaseMs).catch(() => {}), leaseMs / 3);
    (renew as { unref?: () => void }).unref?.();
    const acting = (async () => {
      let result: CallToolResult;
      try {
        result = await effect(undefined as never);
      } catch (error) {
        // The effect is one transaction: it threw, so nothing happened and a later attempt may act.
        await store.release(id, owner).catch(() => {});
        throw error;
      } finally {
        clearInterval(renew);
      }
      // From here on the effect has happened. If recording it fails, the claim is left running (its
      // lease lapses), and replays are told the outcome is unknown rather than acting again. This
      // caller is not told a plain "done" either: its result says it was not recorded.
      // A result JSON cannot hold whole (a BigInt, a cycle), or no tool result at all (a missing
      // return): what it can is recorded, saying the rest was not, so this caller and every replay
      // get the same bytes, none of them a plain "done".
      const whole = isResult(result) ? serialized(result) : undefined;
      const recorded = whole ?? serialize(unrecordedResult(recordable(result), tool, locale));
      const kept = await store.complete(id, owner, recorded).catch(() => false);
      return kept || whole === undefined ? parse(recorded) : unrecordedResult(parse(recorded), tool, locale);
    })();
    this.track(id, acting);
    return acting;
  }

  /** `acting` is this process's attempt at call `id`: a duplicate here waits on it. */
  private track(id: string, acting: Promise<CallToolResult>): void {
    this.running.set(id, acting);
    const done = () => {
      if (this.running.get(id) === acting) this.running.delete(id);
    };
    acting.then(done, done);
  }

  /** Waits on this process's attempt: its result, `RELEASED` when it failed, or "still running" at `deadline`. */
  private async waitHere(
    here: Promise<CallToolResult>,
    tool: string,
    locale: Locale,
    signal: AbortSignal,
    deadline: number,
  ): Promise<CallToolResult | typeof RELEASED> {
    // The timer is dropped as soon as either side settles: nothing lingers to hold the process.
    const done = new AbortController();
    const late = sleep(Math.max(0, deadline - this.settings.now()), AbortSignal.any([signal, done.signal])).then(
      (): typeof LATE => LATE,
    );
    const failed = (): typeof RELEASED => RELEASED;
    const settled = await Promise.race([here.catch(failed), late]);
    done.abort();
    return settled === LATE ? stillRunningResult(tool, locale) : settled;
  }

  /** Waits on someone else's running claim: its result, `RELEASED`, or why no result is coming. */
  private async waitFor(
    id: string,
    tool: string,
    locale: Locale,
    claim: Extract<Claim, { state: 'running' }>,
    signal: AbortSignal,
  ): Promise<CallToolResult | typeof RELEASED> {
    const { now, waitMs, leaseMs } = this.settings;
    const deadline = now() + waitMs;
    let current: Claim | undefined = claim;
    let pause = 10;
    // A lease is stamped with its holder's clock, which may differ from this host's: the holder is
    // taken for dead once its lease has not moved for a whole lease by this host's clock (a live one
    // renews it every third of one), or once it lies a whole lease in the past by this clock — so a
    // clock up to five thirds of a lease ahead of the holder's never reads a live holder as dead.
    let lease = claim.leaseUntil;
    let movedAt = now();
    for (;;) {
      const here = this.running.get(id);
      if (here) return this.waitHere(here, tool, locale, signal, deadline);
      if (!current) return RELEASED;
      if (current.state === 'done') return parse(current.result);
      if (current.leaseUntil !== lease) {
        lease = current.leaseUntil;
        movedAt = now();
      }
      if (lease + leaseMs < now() || now() - movedAt > leaseMs) return unknownOutcomeResult(tool, locale);
      if (now() >= deadline || signal.aborted) return stillRunningResult(tool, locale);
      await sleep(pause, signal);
      pause = Math.min(pause * 2, 250);
      const read = await this.read(id);
      if (read === UNREACHABLE) return claimsUnreachableResult(tool, locale);
      current = read;
    }
  }

  /**
   * The call's claim, or `UNREACHABLE` when the store could not be asked (Redis or Postgres down):
   * then whether the call acted cannot be told, and the caller must not hear "nothing was done".
   * A store's own refusal (an Elicitkit error other than `CLAIMS_UNAVAILABLE`: a Redis that would
   * forget claims, say) is no answer about the call; it is thrown as it is, for the operator.
   */
  private async read(id: string): Promise<Claim | undefined | typeof UNREACHABLE> {
    try {
      return await this.settings.store.read(id);
    } catch (error) {
      if (ElicitkitError.is(error) && error.code !== 'CLAIMS_UNAVAILABLE') throw error;
      return UNREACHABLE;
    }
  }

  private sweepNow(): void {
    if (this.settings.now() - this.lastSweep < SWEEP_EVERY_MS) return;
    this.lastSweep = this.settings.now();
    void this.settings.store.sweep().catch(() => {});
  }
}

/**
 * Refuses an effect that takes a transaction (`wanted`: it declares the parameter) where none
 * would be given: it would write through `undefined`.
 */
export function checkTransaction(wanted: boolean, store: ClaimStore, tool: string, options: CommitOptions): void {
  if (wanted && !givesTransaction(store, options)) throw takesTransaction(tool, options);
}

/**
 * Whether a commit with `options` on `store` runs its effect in one transaction with its claim
 * (SQLite's `atomically`, Postgres's `atomicallyAsync`): then it always goes through the store,
 * even for a call no round of which can come again — `atomic` promises the transaction, not only
 * the claim.
 */
export function runsAtomically(store: ClaimStore, options: CommitOptions): boolean {
  return options.atomic === true && (store.atomicallyAsync !== undefined || store.atomically !== undefined);
}

/** Whether a commit with `options` on `store` runs its effect in a transaction it hands the effect. */
export function givesTransaction(store: ClaimStore, options: CommitOptions): boolean {
  return options.atomic === true && store.atomicallyAsync !== undefined;
}

function takesTransaction(tool: string, options: CommitOptions): ElicitkitUsageError {
  return new ElicitkitUsageError(
    'NO_TRANSACTION',
    options.atomic
      ? `${tool}: the effect takes a transaction, but the kit's claim store has no asynchronous transactions to give it (use createPostgresClaimStore, or an effect without a parameter).`
      : `${tool}: the effect takes a transaction, which only commit(effect, { atomic: true }) gives.`,
  );
}

/** A synchronous effect, for a one-transaction commit: an async one cannot be held in the transaction. */
function runSync(effect: Effect, tool: string): CallToolResult {
  const asyncUsage = () =>
    new ElicitkitUsageError(
      'ASYNC_ATOMIC_EFFECT',
      `${tool}: commit(effect, { atomic: true }) needs a synchronous effect; drop atomic or make the effect synchronous.`,
    );
  if (effect.constructor.name === 'AsyncFunction') throw asyncUsage();
  const result = effect(undefined as never);
  // Thrown inside the transaction, so whatever the effect wrote before returning is rolled back.
  if (typeof (result as { then?: unknown } | null | undefined)?.then === 'function') throw asyncUsage();
  return result as CallToolResult;
}

function serialize(result: CallToolResult): string {
  return JSON.stringify(result);
}

/** `result` as JSON, or undefined when JSON cannot hold it (a BigInt, a cycle, a `toJSON` that throws). */
function serialized(result: unknown): string | undefined {
  try {
    return JSON.stringify(result);
  } catch {
    return undefined;
  }
}

/**
 * An atomic effect's result as it is recorded, inside its transaction: one that is no tool result,
 * or that JSON cannot hold, is thrown there, so the transaction rolls back and the effect did not
 * happen.
 */
function recordedInTransaction(result: unknown, tool: string): string {
  if (!isResult(result))
    throw new ElicitkitUsageError(
      'NOT_A_RESULT',
      `${tool}: the effect returned ${shapeOf(result)}, not a tool result, so it could not be recorded; its transaction was rolled back and nothing was done. Return done(…), rejected(…) or pending(…) from the effect.`,
    );
  const recorded = serialized(result);
  if (recorded !== undefined) return recorded;
  throw new ElicitkitUsageError(
    'UNSERIALIZABLE_RESULT',
    `${tool}: the effect's result holds a value JSON cannot (a BigInt, a cycle), so it could not be recorded; its transaction was rolled back and nothing was done. Return plain JSON values (a BigInt as a string or number).`,
  );
}

/**
 * The result of an effect that ran unclaimed (no round of its call can come again), as it can be
 * sent: itself, or when JSON cannot hold it whole (a BigInt, a cycle) what it can, saying the rest
 * was not kept — never a result no transport can send, which would leave its caller waiting.
 */
export function sendable(result: CallToolResult, tool: string, locale: Locale): CallToolResult {
  return isResult(result) && serialized(result) !== undefined
    ? result
    : unrecordedResult(recordable(result), tool, locale);
}

/**
 * A tool's result is an object: anything else (nothing returned, a string, `null`, an array) is the
 * tool's mistake, named as one — not "Cannot read properties of undefined", nor the SDK's schema
 * dump.
 */
export function checkShape(result: unknown, tool: string): asserts result is CallToolResult {
  if (isResult(result)) return;
  throw new ElicitkitUsageError(
    'NOT_A_RESULT',
    `${tool} returned ${shapeOf(result)}, not a tool result. Return done(…), rejected(…) or pending(…), or the outcome's result().`,
  );
}

/** Whether `result` has a tool result's shape: an object, not a list. */
function isResult(result: unknown): result is CallToolResult {
  return typeof result === 'object' && result !== null && !Array.isArray(result);
}

/** What a value that is no tool result is, in a sentence. */
function shapeOf(result: unknown): string {
  return result === undefined
    ? 'nothing (a missing return?)'
    : result === null
      ? 'null'
      : Array.isArray(result)
        ? 'an array'
        : `a ${typeof result}`;
}

/**
 * A tool's result as it leaves the call: a transport sends it as JSON, and one JSON cannot hold (a
 * BigInt, a cycle, a `toJSON` that throws) is never sent — the SDK reports the failure to no one and
 * the caller waits for ever. After the call's effect ran (`acted`), what JSON can hold of it is
 * sent, saying the rest was not kept; with nothing done, the tool's mistake is thrown, and the
 * caller gets it as the tool's error. A result `commit` handed over is measured again too: the
 * handler may have changed it since (given it a BigInt, a cycle).
 */
export function leaving(result: CallToolResult, tool: string, locale: Locale, acted: boolean): CallToolResult {
  checkShape(result, tool);
  if (serialized(result) !== undefined) return result;
  if (acted) return unrecordedResult(recordable(result), tool, locale);
  throw new ElicitkitUsageError(
    'UNSERIALIZABLE_RESULT',
    `${tool} returned a result holding a value JSON cannot (a BigInt, a cycle), so it could not be sent. Return plain JSON values (a BigInt as a string or number).`,
  );
}

/**
 * What JSON can hold of `result`: each of its fields, content blocks and structured fields kept
 * whole or left out (one holding a BigInt or a cycle). Of an effect's return that is no tool
 * result (nothing, `null`, a string, a list), nothing is kept but that it was done.
 */
function recordable(result: unknown): CallToolResult {
  if (!isResult(result)) return { content: [], structuredContent: { status: 'done' } };
  const fits = ([, value]: [string, unknown]) => serialized(value) !== undefined;
  const fields = Object.fromEntries(Object.entries(result).filter(fits)) as CallToolResult;
  const content = (result.content ?? []).filter((block) => serialized(block) !== undefined);
  const structured =
    result.structuredContent && Object.fromEntries(Object.entries(result.structuredContent).filter(fits));
  return { ...fields, content, ...(structured ? { structuredContent: structured } : {}) };
}

/** What an atomic commit's caller is told of what the store did (`running` excepted: that is waited for). */
function answerOf(
  found: Exclude<AsyncAtomicResult, { state: 'running' }>,
  tool: string,
  locale: Locale,
): CallToolResult {
  if (found.state === 'busy') return stillRunningResult(tool, locale);
  if (found.state === 'unknown') return commitOutcomeUnknownResult(tool, locale);
  return parse(found.result);
}

function parse(recorded: string): CallToolResult {
  return JSON.parse(recorded) as CallToolResult;
}
