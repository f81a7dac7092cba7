import type { ClaimStore, Effect } from '@elicitkit/server';
import type { CallToolResult } from '@modelcontextprotocol/server';
import type { PostgresStore } from './postgres-store.js';
import type { Dialect, Query, Step } from './query.js';
import type { SqliteStore } from './sqlite-store.js';

/**
 * Where opsdesk keeps its own state — users, tokens, grants, deployments, tickets, the audit trail,
 * password links and claims — on SQLite (the embedded default) or Postgres (replicas on several
 * hosts). Queries (`query.ts`) are written once and run on either.
 */
export interface Store {
  readonly dialect: Dialect;
  /** Runs `query`; each statement commits on its own. */
  run<T>(query: Query<T>): Promise<T>;
  /**
   * Runs `query` as one transaction holding opsdesk's write lock from its start (SQLite: `BEGIN
   * IMMEDIATE`; Postgres: a transaction-level advisory lock), so a read-then-write cannot lose a
   * race with another process on the same database. Rolled back if it throws.
   */
  transaction<T>(query: Query<T>): Promise<T>;
  /**
   * The effect `ctx.commit(…, { atomic: true })` takes, running `make()`'s query in the claim's
   * own transaction: the claim, the query's writes and the result commit together.
   */
  atomic(make: () => Query<CallToolResult>): Effect;
  /** The claims of every call's side effect, in this database. */
  readonly claims: ClaimStore;
  /** False once closed. */
  isOpen(): boolean;
  /** Closes the database (the connections, for Postgres). */
  close(): Promise<void>;
}

/** The store opsdesk opened, by its dialect: each has what only its database has. */
export type OpsdeskStore = SqliteStore | PostgresStore;

/**
 * Runs `query` to its end, answering each step with `answer`: a statement that throws is thrown
 * into the query (which may catch it), as `await` would.
 */
export function runSteps<T>(query: Query<T>, answer: (step: Step) => unknown): T {
  let next = query.next();
  while (!next.done) {
    let result: unknown;
    try {
      result = answer(next.value);
    } catch (error) {
      next = query.throw(error);
      continue;
    }
    next = query.next(result);
  }
  return next.value;
}

/** `runSteps` for a store whose statements are asynchronous. */
export async function runStepsAsync<T>(query: Query<T>, answer: (step: Step) => Promise<unknown>): Promise<T> {
  let next = query.next();
  while (!next.done) {
    let result: unknown;
    try {
      result = await answer(next.value);
    } catch (error) {
      next = query.throw(error);
      continue;
    }
    next = query.next(result);
  }
  return next.value;
}
