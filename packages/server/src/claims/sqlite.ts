import type { Claim, ClaimStore } from './types.js';

// Spelled as better-sqlite3's own types spell them, so its Database fits this interface structurally.
// biome-ignore lint/suspicious/noExplicitAny: see above.
type VariableArgFunction = (...params: any[]) => unknown;
type ArgumentTypes<F extends VariableArgFunction> = F extends (...args: infer A) => unknown ? A : never;

/** The part of a better-sqlite3 `Database` the store uses (so this package does not depend on it). */
export interface SqliteDatabase {
  exec(sql: string): unknown;
  prepare(sql: string): SqliteStatement;
  transaction<F extends VariableArgFunction>(fn: F): { immediate(...params: ArgumentTypes<F>): ReturnType<F> };
}

/** The part of a better-sqlite3 `Statement` the store uses. */
export interface SqliteStatement {
  get(...params: unknown[]): unknown;
  run(...params: unknown[]): { changes: number };
}

/** Where `createSqliteClaimStore` keeps its claims. */
export interface SqliteClaimStoreOptions {
  /** Table to keep claims in (created if missing). Default `elicitkit_claims`. */
  table?: string;
  /** The clock, for tests. */
  now?: () => number;
}

interface Row {
  owner: string | null;
  state: 'running' | 'done';
  result: string | null;
  lease_until: number | null;
}

/**
 * Claims in a SQLite database (better-sqlite3), so they survive a restart and every process on
 * the same file sees them: a final round replayed after the server came back still acts once.
 * Claims are taken in `BEGIN IMMEDIATE` transactions, so two processes cannot both win one.
 *
 * Given the database the effect itself writes to, it also offers `atomically`: claim, effect and
 * result commit in one transaction (`ctx.commit(effect, { atomic: true })`), which is exactly
 * once for a synchronous effect that writes only through this same connection. It stops there:
 * anything else the effect touches (files, HTTP calls, another database) is not rolled back.
 *
 * @example
 * import Database from 'better-sqlite3';
 * import { createSqliteClaimStore } from '@elicitkit/server/sqlite';
 * const db = new Database('data/app.db');
 * db.pragma('journal_mode = WAL');
 * const kit = createElicitkit({ claims: createSqliteClaimStore(db) });
 */
export function createSqliteClaimStore(db: SqliteDatabase, options: SqliteClaimStoreOptions = {}): ClaimStore {
  const table = options.table ?? 'elicitkit_claims';
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(table)) throw new TypeError(`"${table}" is not a plain SQL table name`);
  const now = options.now ?? Date.now;
  db.exec(`CREATE TABLE IF NOT EXISTS ${table} (
    id TEXT PRIMARY KEY,
    state TEXT NOT NULL CHECK (state IN ('running', 'done')),
    owner TEXT,
    result TEXT,
    lease_until INTEGER,
    expires_at INTEGER NOT NULL
  );
  CREATE INDEX IF NOT EXISTS ${table}_expiry ON ${table}(expires_at);`);
  const select = db.prepare(`SELECT owner, state, result, lease_until FROM ${table} WHERE id = ? AND expires_at > ?`);
  const insertRunning = db.prepare(
    `INSERT OR REPLACE INTO ${table} (id, state, owner, lease_until, expires_at) VALUES (?, 'running', ?, ?, ?)`,
  );
  const insertDone = db.prepare(
    `INSERT OR REPLACE INTO ${table} (id, state, result, expires_at) VALUES (?, 'done', ?, ?)`,
  );
  const renew = db.prepare(
    `UPDATE ${table} SET lease_until = ? WHERE id = ? AND owner = ? AND state = 'running' AND expires_at > ?`,
  );
  const complete = db.prepare(
    `UPDATE ${table} SET state = 'done', result = ?, owner = NULL, lease_until = NULL WHERE id = ? AND owner = ? AND state = 'running' AND expires_at > ?`,
  );
  const release = db.prepare(`DELETE FROM ${table} WHERE id = ? AND owner = ? AND state = 'running'`);
  const sweep = db.prepare(`DELETE FROM ${table} WHERE expires_at <= ?`);
  const read = (id: string): Claim | undefined => {
    const row = select.get(id, now()) as Row | undefined;
    if (!row) return undefined;
    return row.state === 'done'
      ? { state: 'done', result: row.result ?? '' }
      : { state: 'running', owner: row.owner ?? '', leaseUntil: row.lease_until ?? 0 };
  };
  const claim = db.transaction((id: string, owner: string, leaseMs: number, ttlMs: number) => {
    const existing = read(id);
    if (existing) return existing;
    insertRunning.run(id, owner, now() + leaseMs, now() + ttlMs);
    return { state: 'claimed' as const };
  });
  const atomically = db.transaction((id: string, ttlMs: number, effect: () => string) => {
    const existing = read(id);
    if (existing) return existing;
    const result = effect();
    insertDone.run(id, result, now() + ttlMs);
    return { state: 'ran' as const, result };
  });
  const inTransaction = db.transaction((effect: () => unknown) => effect());
  return {
    claim: async (id, owner, { leaseMs, ttlMs }) => claim.immediate(id, owner, leaseMs, ttlMs),
    renew: async (id, owner, leaseMs) => renew.run(now() + leaseMs, id, owner, now()).changes === 1,
    complete: async (id, owner, result) => complete.run(result, id, owner, now()).changes === 1,
    release: async (id, owner) => release.run(id, owner).changes === 1,
    read: async (id) => read(id),
    sweep: async () => sweep.run(now()).changes,
    atomically: (id, ttlMs, effect) => atomically.immediate(id, ttlMs, effect),
    transaction: <T>(effect: () => T) => inTransaction.immediate(effect) as T,
  };
}
