import { bounded, StoreTimeoutError, storeTimeout } from './bounded.js';
import { ClaimStoreNotDurableError, ClaimStoreUnavailableError } from './errors.js';
import type { AsyncAtomicResult, Claim, ClaimStore } from './types.js';

export { ClaimStoreNotDurableError, ClaimStoreUnavailableError };

/** What a query returns, as node-postgres (`pg`) returns it. */
export interface PostgresQueryResult {
  rows: Record<string, unknown>[];
  rowCount: number | null;
}

/** The part of a `pg` client the store uses: a pool's client, held for one transaction. */
export interface PostgresClient {
  query(text: string, values?: unknown[]): Promise<PostgresQueryResult>;
}

/** A client checked out of the pool for one transaction. */
export interface PostgresPoolClient extends PostgresClient {
  /** Quotes a string as an SQL literal (`pg`'s own). */
  escapeLiteral(value: string): string;
  release(error?: Error | boolean): void;
  on(event: 'error', listener: (error: Error) => void): unknown;
  off(event: 'error', listener: (error: Error) => void): unknown;
}

/** The part of a `pg` `Pool` the store uses (so this package does not depend on `pg`). */
export interface PostgresPool extends PostgresClient {
  connect(): Promise<PostgresPoolClient>;
  /** `pg`'s: the store hears each new connection (`connect`), to check the server again. */
  on?(event: 'connect', listener: () => void): unknown;
}

/** Where `createPostgresClaimStore` keeps its claims. */
export interface PostgresClaimStoreOptions {
  /** Table to keep claims in (created if missing), optionally schema-qualified. Default `elicitkit_claims`. */
  table?: string;
  /** The clock, for tests. */
  now?: () => number;
  /**
   * Accept a PostgreSQL that may forget what it acknowledged. By default the store checks, before
   * its first claim and again after each new connection (a server restarted or failed over may be
   * set up otherwise), that `fsync`, `synchronous_commit` and `full_page_writes` are on — as this
   * store's connections see them, a role's or a database's own setting included — and refuses to
   * claim anything otherwise (`ClaimStoreNotDurableError`): a crash that loses a claim lets a
   * replayed call act again. `volatile: true` accepts that.
   */
  volatile?: boolean;
  /**
   * The longest the store waits for PostgreSQL in one step, ms: a connection from the pool, one
   * statement (an atomic claim waits on a duplicate's row lock up to the commit's wait, and this
   * on top), a statement whose answer was lost sent again for as long. Default 5 s. Past it the
   * step fails as with the database unreachable (`ClaimStoreUnavailableError`, or after an atomic
   * COMMIT went out, the database asked what became of it), even on a pool that would wait for
   * ever (no `connectionTimeoutMillis`, no `query_timeout`). A whole number, at least 1 (else a
   * `RangeError`). An effect's own statements are not bounded by it.
   */
  timeoutMs?: number;
}

/** SQLSTATE 55P03: a lock was not granted within `lock_timeout`. */
const LOCK_NOT_AVAILABLE = '55P03';

/**
 * The longest an atomic commit whose COMMIT went out and then failed spends asking the database
 * whether it committed (bounded by the commit's wait as well): a database that is down too must
 * not hold the person's call, which is then told its outcome is unknown.
 */
const SETTLE_MS = 5_000;

/** The longest pause between two questions about a transaction still committing. */
const SETTLE_PAUSE_MS = 250;

/**
 * Claims in PostgreSQL (`pg`, node-postgres 8), for replicas on several hosts: every replica on
 * one database sees the same claims, and a final round replayed on two of them acts once.
 *
 * Its `atomicallyAsync` is what `ctx.commit(effect, { atomic: true })` uses: one transaction on
 * one of the pool's clients takes the claim, runs the effect — which is handed that client and
 * writes the tool's own rows through it — and records the result, then commits. Nothing of it is
 * visible before the commit, and a process killed mid-effect leaves nothing: the server rolls the
 * transaction back when the connection drops, so a replay acts, once. A duplicate arriving while
 * the first holds the transaction waits for it (on the claim row's lock, up to the kit's commit
 * wait) and gets its recorded result.
 *
 * @example
 * import pg from 'pg';
 * import { createPostgresClaimStore } from '@elicitkit/server/postgres';
 * const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL });
 * const kit = createElicitkit({ claims: createPostgresClaimStore(pool) });
 */
export function createPostgresClaimStore(pool: PostgresPool, options: PostgresClaimStoreOptions = {}): ClaimStore {
  const table = options.table ?? 'elicitkit_claims';
  if (!/^([A-Za-z_][A-Za-z0-9_]*\.)?[A-Za-z_][A-Za-z0-9_]*$/.test(table))
    throw new TypeError(`"${table}" is not a plain SQL table name`);
  const now = options.now ?? Date.now;
  const timeoutMs = storeTimeout(options.timeoutMs);
  const sql = statements(table);
  // A step the database does not answer within `timeoutMs` fails as the database unreachable does.
  const ask = <T>(promise: Promise<T>, ms = timeoutMs, late?: (value: T) => void) => timed(promise, ms, late);
  let created: Promise<void> | undefined;
  // Created on first use, once; a failed attempt (the database was down) is tried again.
  const create = () => {
    created ??= ask(createTable(pool, table, sql.create)).catch((error: unknown) => {
      created = undefined;
      throw error;
    });
    return created;
  };
  // Checked before the first claim, and again at the first operation after each new connection:
  // a server restarted or failed over may not keep what the first did. A check that could not
  // ask, or that refused, is made again by the next operation.
  let durable: Promise<void> | undefined;
  if (!options.volatile && typeof pool.on === 'function')
    pool.on('connect', () => {
      durable = undefined;
    });
  const checked = () => {
    durable ??= ask(pool.query(sql.durability)).then(
      ({ rows }) => {
        const found = notDurable(rows[0]);
        if (found === undefined) return;
        // Asked again next time: a server set right (ALTER SYSTEM, a reload) is taken at once.
        durable = undefined;
        throw new ClaimStoreNotDurableError(found, 'PostgreSQL');
      },
      (error: unknown) => {
        durable = undefined;
        throw error;
      },
    );
    return durable;
  };
  const ready = async () => {
    await create();
    if (!options.volatile) await checked();
  };
  const query = async (text: string, values: unknown[], late?: (result: PostgresQueryResult) => void) => {
    await ready();
    return ask(pool.query(text, values), timeoutMs, late);
  };

  async function read(id: string, on: PostgresClient = pool): Promise<Claim | undefined> {
    const { rows } = await ask(on.query(sql.select, [id, now()]));
    return rows[0] ? claimOf(rows[0]) : undefined;
  }

  // Claim, complete and release each answer their second run as their first: one whose answer
  // was lost (it may have run) is sent again (`resent`), as ioredis does for the Redis store.
  return {
    async claim(id, owner, { leaseMs, ttlMs }) {
      for (;;) {
        // Sent again, it waits for a first run still in flight (the id's row is being inserted).
        // Taken after this caller gave up (told nothing was done): given back, so a replay may act.
        const late = (result: PostgresQueryResult) => {
          if (result.rowCount === 1) void pool.query(sql.release, [id, owner]).catch(() => {});
        };
        const taken = await resent(
          () => query(sql.take, [id, owner, now() + leaseMs, now() + ttlMs, now()], late),
          timeoutMs,
        );
        if (taken.rowCount === 1) return { state: 'claimed' };
        // Someone's live claim: read it (a new statement, so it sees a claim committed meanwhile).
        const existing = await resent(() => read(id), timeoutMs);
        // This very claim, taken by a run whose answer was lost: still the caller's.
        if (existing?.state === 'running' && existing.owner === owner) return { state: 'claimed' };
        if (existing) return existing;
        // It expired and was swept between the two statements: try again.
      }
    },
    renew: async (id, owner, leaseMs) => (await query(sql.renew, [now() + leaseMs, id, owner, now()])).rowCount === 1,
    complete: (id, owner, result) =>
      resent(async (again) => {
        if ((await query(sql.complete, [result, id, owner, now()])).rowCount === 1) return true;
        // This very completion, run by a send whose answer was lost: recorded if the claim holds it.
        const found = again ? await read(id) : undefined;
        return found?.state === 'done' && found.result === result;
      }, timeoutMs),
    release: (id, owner) =>
      resent(async (again) => {
        if ((await query(sql.release, [id, owner])).rowCount === 1) return true;
        // This very release, run by a send whose answer was lost: done if the claim is not the caller's.
        const found = again ? await read(id) : undefined;
        return again && !(found?.state === 'running' && found.owner === owner);
      }, timeoutMs),
    async read(id) {
      await ready();
      return read(id);
    },
    sweep: async () => (await query(sql.sweep, [now()])).rowCount ?? 0,

    async atomicallyAsync(id, ttlMs, effect, { waitMs }): Promise<AsyncAtomicResult> {
      await ready();
      for (;;) {
        const found = await inOneTransaction(pool, sql, { id, ttlMs, waitMs, now: now(), timeoutMs }, effect, read);
        // Undefined: live when taking it, gone when reading it (expired and swept between the statements): again.
        if (found) return found;
      }
    },
  };
}

interface AtomicRun {
  id: string;
  ttlMs: number;
  /** How long a duplicate waits on the first attempt's uncommitted claim row. */
  waitMs: number;
  now: number;
  /** The store's `timeoutMs`: how long a connection, or a statement of the store's own, may take. */
  timeoutMs: number;
}

/**
 * One attempt of `atomicallyAsync`, in three round trips like the plain transaction a tool would
 * write without a claim (BEGIN, its INSERT, COMMIT): the transaction, the lock timeout and the
 * claim go in one simple-protocol message, the effect's own statements follow, and the result is
 * recorded in the message that commits. Values in those two messages are quoted by `pg`'s
 * `escapeLiteral`; numbers are integers made here.
 */
async function inOneTransaction(
  pool: PostgresPool,
  sql: Statements,
  run: AtomicRun,
  effect: (tx: unknown) => Promise<string>,
  read: (id: string, on: PostgresClient) => Promise<Claim | undefined>,
): Promise<AsyncAtomicResult | undefined> {
  // A connection handed over after this gave up on it goes back to the pool at once.
  const client = await timed(pool.connect(), run.timeoutMs, (late) => late.release());
  let broken: Error | undefined;
  // A connection lost mid-transaction (the server restarted, the backend was terminated) is
  // reported as an 'error' event as well as by the query in flight: unheard, it would crash the process.
  const lost = (error: Error) => {
    broken = error;
  };
  client.on('error', lost);
  // A statement of the store's own, bounded: one the database does not answer in time leaves the
  // connection broken (destroyed on release, so its transaction rolls back on the server).
  const send = (text: string, ms = run.timeoutMs) =>
    timed(client.query(text), ms).catch((error: unknown) => {
      if (error instanceof ClaimStoreUnavailableError) broken ??= error;
      throw error;
    });
  let released = false;
  const release = () => {
    if (released) return;
    released = true;
    // A broken client is destroyed, and its connection may still report the loss after this:
    // it keeps the listener. A healthy one goes back to the pool without it.
    if (!broken) client.off('error', lost);
    // A client whose connection broke, or whose rollback failed, is not handed out again.
    client.release(broken ?? false);
  };
  const text = (value: string) => client.escapeLiteral(value);
  const int = (value: number) => String(Math.trunc(value));
  const { table } = sql;
  const owner = crypto.randomUUID();
  // Only the wait on the claim row is bounded by `waitMs`: the effect's own statements run under
  // the session's lock timeout, and a lock they wait on is theirs, not a duplicate still running.
  let claiming = true;
  // The transaction's id, from the claim's own statement: what the database is asked about when a
  // COMMIT's answer is lost.
  let xid: string | undefined;
  let sent: string | undefined;
  try {
    // It may wait on a duplicate's row lock for `waitMs`, and is bounded past that.
    const begun = await send(
      `BEGIN; SET LOCAL lock_timeout = ${int(Math.max(1, Math.ceil(run.waitMs)))};
      INSERT INTO ${table} AS c (id, state, owner, result, lease_until, expires_at)
      VALUES (${text(run.id)}, 'running', ${text(owner)}, NULL, ${int(run.now + run.ttlMs)}, ${int(run.now + run.ttlMs)})
      ON CONFLICT (id) DO UPDATE SET state = 'running', owner = EXCLUDED.owner, result = NULL,
        lease_until = EXCLUDED.lease_until, expires_at = EXCLUDED.expires_at
      WHERE c.expires_at <= ${int(run.now)}
      RETURNING txid_current()::text AS xid;
      SET LOCAL lock_timeout = DEFAULT`,
      run.waitMs + run.timeoutMs,
    );
    claiming = false;
    const taken = claimTaken(begun);
    if (taken.rowCount !== 1) {
      const existing = await read(run.id, client);
      await send('ROLLBACK');
      return existing;
    }
    xid = String(taken.rows[0]?.xid);
    const result = await effect(client);
    sent = result;
    // Fails in a transaction the effect broke (an error it caught): the COMMIT after it is then not run.
    await send(
      `UPDATE ${table} SET state = 'done', result = ${text(result)}, lease_until = NULL WHERE id = ${text(run.id)};
      COMMIT`,
    );
    return { state: 'ran', result };
  } catch (error) {
    // A broken connection is not asked: it is destroyed, and the server rolls back with it.
    if (!broken)
      await send('ROLLBACK').catch((rollback: unknown) => {
        broken ??= rollback instanceof Error ? rollback : new Error(String(rollback));
      });
    if (claiming && (error as { code?: unknown }).code === LOCK_NOT_AVAILABLE) return { state: 'busy' };
    // The COMMIT went out and no answer came (the connection dropped, the server shut down): it
    // may have committed, or be committing still. An answer at ERROR severity is the server's
    // own: it rolled back, and the session went on. Otherwise the database is asked what became
    // of the transaction, on another connection (this one goes back first: a pool of one has
    // nothing else to ask on).
    if (sent !== undefined && xid !== undefined && !answeredWithError(error)) {
      release();
      const fate = await transactionFate(pool, xid, { withinMs: Math.min(SETTLE_MS, run.waitMs) });
      if (fate === 'committed') return { state: 'ran', result: sent };
      if (fate === 'unknown') return { state: 'unknown' };
    }
    throw error;
  } finally {
    release();
  }
}

/**
 * Runs `send` (told whether it is a resend) until it answers: a statement whose answer was lost
 * (the connection dropped, the database restarting or down) may or may not have run, so it is
 * sent again, at growing intervals, for up to `windowMs` (the store's `timeoutMs`); then its last error is thrown. Only
 * for statements that answer a second run as their first. An error the database answered with
 * is its verdict on the statement, thrown at once.
 */
async function resent<T>(send: (again: boolean) => Promise<T>, windowMs: number): Promise<T> {
  const deadline = Date.now() + windowMs;
  let pause = 10;
  for (let again = false; ; again = true) {
    try {
      return await send(again);
    } catch (error) {
      if (answeredWithError(error) || Date.now() + pause > deadline) throw error;
    }
    await new Promise((resolve) => setTimeout(resolve, pause));
    pause = Math.min(pause * 2, SETTLE_PAUSE_MS);
  }
}

/** The server refused the statement itself (rolled back, the session goes on): not a lost answer. */
function answeredWithError(error: unknown): boolean {
  return (error as { severity?: unknown } | null)?.severity === 'ERROR';
}

/** What became of a transaction: see `transactionFate`. */
export type TransactionFate = 'committed' | 'aborted' | 'unknown';

/**
 * What became of transaction `xid` (its `txid_current()`, read before the COMMIT went out), whose
 * COMMIT's answer was lost, asked on another connection with `txid_status` (PostgreSQL 10+):
 * `committed`, or `aborted` (rolled back, or its backend ended before committing). A transaction
 * still in progress (its COMMIT running deferred triggers, waiting on the disk or a synchronous
 * standby, or its backend not yet aware its client left) is asked about again, at growing
 * intervals. `unknown` when the database does not tell within `withinMs`: down too, or the id too
 * old for it to remember. The atomic commits of `createPostgresClaimStore` settle a lost COMMIT
 * this way; it is exported for an effect's own transactions.
 *
 * @example
 * const { rows } = await client.query('SELECT txid_current()::text AS xid'); // inside the transaction
 * try {
 *   await client.query('COMMIT');
 * } catch (error) {
 *   if (error.severity === 'ERROR') throw error; // the server refused it: rolled back
 *   const fate = await transactionFate(pool, rows[0].xid, { withinMs: 5_000 });
 * }
 */
export async function transactionFate(
  on: PostgresClient,
  xid: string,
  { withinMs }: { withinMs: number },
): Promise<TransactionFate> {
  if (!/^\d{1,20}$/.test(xid)) throw new TypeError(`"${xid}" is not a transaction id (txid_current() as text)`);
  const deadline = Date.now() + withinMs;
  let pause = 10;
  for (;;) {
    const left = deadline - Date.now();
    if (left <= 0) return 'unknown';
    // A query still pending when time is up is left to finish or fail on its own, unheard.
    const status = await within(
      left,
      on.query('SELECT txid_status($1::bigint) AS status', [xid]).then(
        ({ rows }) => rows[0]?.status ?? null,
        (): undefined => undefined, // the database restarting, say: asked again
      ),
    );
    if (status === 'committed' || status === 'aborted') return status;
    if (status === null) return 'unknown';
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, Math.min(pause, deadline - Date.now()))));
    pause = Math.min(pause * 2, SETTLE_PAUSE_MS);
  }
}

/** `bounded`, its timeout told as the database unreachable (`ClaimStoreUnavailableError`). */
function timed<T>(promise: Promise<T>, ms: number, late?: (value: T) => void): Promise<T> {
  return bounded(promise, ms, late).catch((error: unknown) => {
    throw error instanceof StoreTimeoutError ? new ClaimStoreUnavailableError(error, 'PostgreSQL') : error;
  });
}

/**
 * What PostgreSQL says about keeping what it acknowledged: undefined when `fsync`,
 * `synchronous_commit` and `full_page_writes` are on (`synchronous_commit` `local`, `remote_write`
 * or `remote_apply` too: each flushes the commit to this server's disk before answering), else
 * what it does instead. `fsync` off loses committed work on an operating system crash,
 * `synchronous_commit` off the last commits on any crash, `full_page_writes` off may tear pages.
 */
function notDurable(row: Record<string, unknown> | undefined): string | undefined {
  const found: string[] = [];
  if (row?.fsync !== 'on') found.push(`fsync = ${String(row?.fsync)}`);
  if (row?.synchronous_commit === 'off' || row?.synchronous_commit === undefined)
    found.push(`synchronous_commit = ${String(row?.synchronous_commit)}`);
  if (row?.full_page_writes !== 'on') found.push(`full_page_writes = ${String(row?.full_page_writes)}`);
  return found.length ? found.join(', ') : undefined;
}

/** `promise`'s value, or undefined once `ms` have passed without one. */
async function within<T>(ms: number, promise: Promise<T>): Promise<T | undefined> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), Math.max(0, ms));
  });
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * A multi-statement text returns one result per statement (whatever `pg`'s types say); the claim's
 * is the third (after BEGIN and SET).
 */
function claimTaken(results: PostgresQueryResult | PostgresQueryResult[]): PostgresQueryResult {
  return Array.isArray(results) ? (results[2] ?? { rows: [], rowCount: 0 }) : results;
}

/**
 * Runs `work` in a transaction on one of the pool's clients: committed when it returns
 * `{ commit }`, rolled back when it returns `{ rollback }` or throws. A client whose rollback
 * failed is not handed out again.
 */
async function inTransaction<C, R>(
  pool: PostgresPool,
  work: (client: PostgresClient) => Promise<{ commit: C } | { rollback: R }>,
): Promise<{ commit: C } | { rollback: R }> {
  const client = await pool.connect();
  let broken: Error | undefined;
  // A connection lost mid-transaction (the server restarted, the backend was terminated) is
  // reported as an 'error' event as well as by the query in flight: unheard, it would crash the process.
  const lost = (error: Error) => {
    broken = error;
  };
  client.on('error', lost);
  try {
    await client.query('BEGIN');
    const outcome = await work(client);
    await client.query('commit' in outcome ? 'COMMIT' : 'ROLLBACK');
    return outcome;
  } catch (error) {
    await client.query('ROLLBACK').catch((rollback: unknown) => {
      broken = rollback instanceof Error ? rollback : new Error(String(rollback));
    });
    throw error;
  } finally {
    if (!broken) client.off('error', lost); // a broken client keeps it: the loss may still be reported
    client.release(broken ?? false);
  }
}

type Statements = ReturnType<typeof statements>;

function statements(table: string) {
  return {
    table,
    create: `CREATE TABLE IF NOT EXISTS ${table} (
      id TEXT PRIMARY KEY,
      state TEXT NOT NULL CHECK (state IN ('running', 'done')),
      owner TEXT,
      result TEXT,
      lease_until BIGINT,
      expires_at BIGINT NOT NULL
    );
    CREATE INDEX IF NOT EXISTS ${table.replace('.', '_')}_expiry ON ${table} (expires_at);`,
    durability: `SELECT current_setting('fsync') AS fsync, current_setting('synchronous_commit') AS synchronous_commit,
      current_setting('full_page_writes') AS full_page_writes`,
    select: `SELECT owner, state, result, lease_until FROM ${table} WHERE id = $1 AND expires_at > $2`,
    // Inserts a running claim, or takes over an expired one; returns no row when a live one is there.
    take: `INSERT INTO ${table} AS c (id, state, owner, result, lease_until, expires_at)
      VALUES ($1, 'running', $2, NULL, $3, $4)
      ON CONFLICT (id) DO UPDATE SET state = 'running', owner = EXCLUDED.owner, result = NULL,
        lease_until = EXCLUDED.lease_until, expires_at = EXCLUDED.expires_at
      WHERE c.expires_at <= $5
      RETURNING id`,
    renew: `UPDATE ${table} SET lease_until = $1 WHERE id = $2 AND owner = $3 AND state = 'running' AND expires_at > $4`,
    complete: `UPDATE ${table} SET state = 'done', result = $1, owner = NULL, lease_until = NULL
      WHERE id = $2 AND owner = $3 AND state = 'running' AND expires_at > $4`,
    release: `DELETE FROM ${table} WHERE id = $1 AND owner = $2 AND state = 'running'`,
    sweep: `DELETE FROM ${table} WHERE expires_at <= $1`,
  };
}

/**
 * `CREATE TABLE IF NOT EXISTS` is not safe against itself: two replicas starting at once can both
 * pass the check and one fails on the catalog. A transaction-scoped advisory lock on the table's
 * name makes the second wait for the first.
 */
async function createTable(pool: PostgresPool, table: string, create: string): Promise<void> {
  await inTransaction(pool, async (client) => {
    await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`elicitkit:${table}`]);
    await client.query(create);
    return { commit: undefined };
  });
}

function claimOf(row: Record<string, unknown>): Claim {
  return row.state === 'done'
    ? { state: 'done', result: String(row.result ?? '') }
    : { state: 'running', owner: String(row.owner ?? ''), leaseUntil: Number(row.lease_until ?? 0) };
}
