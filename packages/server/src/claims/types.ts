/**
 * What a store keeps for one tool call's side effect, keyed by the call's id (the context id every
 * round of a 2026-07-28 call shares): nothing yet, `running` (someone claimed it and is acting),
 * or `done` with the result it recorded.
 */
export type Claim =
  | {
      state: 'running';
      /** Who holds it: only they may renew, complete or release it. */
      owner: string;
      /** Epoch ms until which the holder is known to be alive; renewed while the effect runs. */
      leaseUntil: number;
    }
  | {
      state: 'done';
      /** The effect's tool result, serialized once: every replay gets these same bytes. */
      result: string;
    };

/** What `claim` found: the claim is yours now, or someone else's (running or done). */
export type ClaimResult = { state: 'claimed' } | Claim;

/** What `atomically` did: ran the effect and recorded it, or found an earlier claim. */
export type AtomicResult = { state: 'ran'; result: string } | Claim;

/**
 * What `atomicallyAsync` did: ran the effect and recorded it, found an earlier claim, gave up
 * waiting (`busy`) for another attempt's transaction that holds the id, or sent the transaction to
 * commit and could not learn whether it did (`unknown`: the connection was lost with the COMMIT in
 * flight and the database did not say in time). An attempt that learned it did not commit throws.
 */
export type AsyncAtomicResult = AtomicResult | { state: 'busy' } | { state: 'unknown' };

/** How long a claim lasts: its holder's lease, and how long it is kept with its result. */
export interface ClaimOptions {
  /** How long the holder counts as alive without renewing. */
  leaseMs: number;
  /** How long the claim and its result are kept: at least as long as the call's sealed state lives. */
  ttlMs: number;
}

/**
 * The at-most-once ledger behind `ctx.commit()`: a call's id is claimed once, its result recorded
 * and kept for as long as the call's state could be replayed. Every method is async so that a
 * shared store (Redis, for several replicas) can implement the same contract; the behaviour every
 * implementation must have is written once in `claims.suite.ts`.
 *
 * @example
 * const kit = createElicitkit({ claims: createSqliteClaimStore(db) });
 */
export interface ClaimStore {
  /**
   * Claims `id` for `owner`. Of any number of concurrent calls for one id, exactly one gets
   * `claimed`; the others see the claim. A running claim is never taken over, even when its lease
   * has run out (its holder may have acted before it stopped): only expiry (`ttlMs`) frees an id.
   * A store across a network sends a claim, completion or release whose answer was lost again,
   * and answers it as the first run would have (Redis through ioredis's resend, Postgres its own):
   * a claim the lost run took is `owner`'s (`claimed`), a completion it recorded is `true`.
   */
  claim(id: string, owner: string, options: ClaimOptions): Promise<ClaimResult>;
  /** Extends a running claim's lease. False when `owner` does not hold it (any more). */
  renew(id: string, owner: string, leaseMs: number): Promise<boolean>;
  /** Records the result of `owner`'s running claim; kept until the claim expires. False when not held. */
  complete(id: string, owner: string, result: string): Promise<boolean>;
  /** Drops `owner`'s running claim: its effect failed and did nothing, so a later attempt may run. */
  release(id: string, owner: string): Promise<boolean>;
  /** The live claim for `id`, if any (expired ones read as nothing). */
  read(id: string): Promise<Claim | undefined>;
  /** Deletes expired claims; returns how many. */
  sweep(): Promise<number>;
  /**
   * Optional, for a store inside the database the effect writes to: claim `id`, run the
   * synchronous `effect`, and record what it returns, as one transaction. Nothing is visible until
   * all of it commits; if the effect throws, none of it happened.
   */
  atomically?(id: string, ttlMs: number, effect: () => string): AtomicResult;
  /**
   * Optional, beside `atomically`: run the synchronous `effect` as one transaction of that
   * database and record nothing — for a call no round of which can come again (a 2025 call, a
   * first round that commits), where a record would be found by no one. A store without it
   * records such a call's claim as `atomically` does.
   */
  transaction?<T>(effect: () => T): T;
  /**
   * Optional, for a store in a database with asynchronous transactions (Postgres): claim `id`,
   * run `effect` with the transaction's client, and record what it returns, as one transaction
   * that commits only once all of it succeeded. A concurrent attempt for the same id waits for
   * that transaction up to `waitMs`, then gets the claim it left (`done`), runs itself (the first
   * rolled back), or `busy`. When the COMMIT went out and its answer did not come, the store asks
   * the database what became of that transaction: `ran` if it committed, the error if it did not,
   * `unknown` if it cannot tell — never a guess either way.
   */
  atomicallyAsync?(
    id: string,
    ttlMs: number,
    effect: (tx: unknown) => Promise<string>,
    options: { waitMs: number },
  ): Promise<AsyncAtomicResult>;
}
