import { transactionFate } from '@elicitkit/server/postgres';
import type { Client, ClientConfig, Pool, PoolClient, QueryConfig } from 'pg';
import Cursor from 'pg-cursor';
import type { PostgresStore } from '../db/postgres-store.js';
import type { ShopClient, ShopOptions } from './client.js';
import { ShopError } from './client.js';
import { beyond, type Execution, type Limit } from './effect.js';
import { type Executed, ExecutionTimeout } from './execute.js';
import type { Inspection, Refusal } from './inspect.js';
import {
  countedSince,
  outsideTheShop,
  putBack,
  rowCounts,
  schemaChanges,
  sequencePositions,
  sequencesMoved,
  snapshot,
  tableEffects,
  targetsOf,
  transactionCounts,
  variesOf,
} from './postgres-measure.js';
import { provisionShop, type ShopAccess, seedShopIfEmpty } from './postgres-provision.js';
import { type Rows, rowCollector } from './run.js';

const SQL_TIMEOUT_MS = 10_000;
/** How long a write whose COMMIT's answer was lost may spend learning whether it was kept. */
const SETTLE_MS = 5_000;
const QUEUED_PER_USER = 8;
const CONNECTIONS = 4;
/** Rows fetched from a cursor at a time, at most. */
const FETCH = 500;
/** Rows of a cursor's first batch: few, until it is known how large its rows are. */
const FIRST_FETCH = 16;
/**
 * The most bytes opsdesk takes from the shop's database for one statement: its rows, its errors
 * and notices, and what measuring it reads. Past it the connection is dropped — a write is rolled
 * back by the server, nothing of it kept — so no statement (a million rows RETURNING, one value
 * of hundreds of megabytes, a schema object made enormous) can fill opsdesk's memory.
 */
const RESULT_BYTES = 64 * 1024 * 1024;

/** The first words that make a statement one execute_sql does not run, and why. */
const REFUSED: Record<string, Refusal> = {
  BEGIN: 'transaction',
  START: 'transaction',
  COMMIT: 'transaction',
  END: 'transaction',
  ROLLBACK: 'transaction',
  ABORT: 'transaction',
  SAVEPOINT: 'transaction',
  RELEASE: 'transaction',
  PREPARE: 'transaction',
  SET: 'session',
  RESET: 'session',
  DISCARD: 'session',
  LISTEN: 'session',
  UNLISTEN: 'session',
  NOTIFY: 'session',
  COPY: 'session',
  LOAD: 'session',
  DEALLOCATE: 'session',
  EXECUTE: 'session',
  DECLARE: 'session',
  FETCH: 'session',
  MOVE: 'session',
  CLOSE: 'session',
  VACUUM: 'vacuum',
  ANALYZE: 'vacuum',
  CLUSTER: 'vacuum',
  CHECKPOINT: 'vacuum',
  EXPLAIN: 'explain',
  'CREATE EXTENSION': 'extension',
  'ALTER EXTENSION': 'extension',
  'ALTER SYSTEM': 'session',
  'ALTER ROLE': 'role',
  'ALTER USER': 'role',
  'ALTER GROUP': 'role',
  'CREATE ROLE': 'role',
  'CREATE USER': 'role',
  'CREATE GROUP': 'role',
  'DROP ROLE': 'role',
  'DROP USER': 'role',
  'DROP GROUP': 'role',
};

/**
 * The demo shop on Postgres, as execute_sql sees it: schema `shop`, reached only through its own
 * role (`provisionShop`), so no statement can read or change opsdesk's tables whatever it says.
 * Each statement runs on a connection of that role, in its own transaction, with a time limit
 * that starts when it runs; each user's statements one at a time, in order. A connection is
 * cleared (`DISCARD ALL`) after every statement: nothing one leaves in the session meets the next.
 *
 * @example
 * const shop = await startPostgresShop(store, 'postgres://opsdesk@db/opsdesk');
 * const rows = await shop.read('alice', 'SELECT count(*) AS n FROM orders');
 */
export async function startPostgresShop(
  store: PostgresStore,
  url: string,
  options: ShopOptions = {},
): Promise<ShopClient> {
  const timeoutMs = options.timeoutMs ?? SQL_TIMEOUT_MS;
  const perUser = options.queuedPerUser ?? QUEUED_PER_USER;
  const settling = { pool: store.pool, withinMs: options.settleMs ?? SETTLE_MS };
  const connections = options.workers ?? CONNECTIONS;
  // Twice the pool's size: a connection's login is free again once it has ended, which may be
  // after the pool has made its replacement.
  const access = await provisionShop(store.pool, url, 2 * connections);
  const { default: pg } = await import('pg');
  const pool = ownLogins(pg, access, connections);
  pool.on('error', () => {});
  try {
    const client = await pool.connect();
    try {
      await seedShopIfEmpty(client);
    } finally {
      client.release();
    }
  } catch (error) {
    await pool.end();
    throw error;
  }

  // The role's password is opsdesk's, set at each start: a statement can change it (ALTER ROLE in
  // dynamic SQL, which no measure sees), and every new connection would then be refused. One
  // refused for its password sets it back and tries again.
  const shop: ShopPool = { pool, repair: () => provisionShop(store.pool, url, 2 * connections).then(() => {}) };
  /** Each user's statements, chained: one at a time, in the order sent. */
  const queues = new Map<string, { tail: Promise<unknown>; size: number }>();
  const inTurn = <T>(user: string, work: (client: PoolClient, answers: Answers) => Promise<T>): Promise<T> => {
    const queue = queues.get(user) ?? { tail: Promise.resolve(), size: 0 };
    if (queue.size >= perUser) return Promise.reject(new ShopError('SHOP_BUSY', 'too many statements waiting'));
    queue.size++;
    queues.set(user, queue);
    const run = queue.tail.then(() => onConnection(shop, timeoutMs, work));
    queue.tail = run.catch(() => {});
    return run.finally(() => {
      queue.size--;
      if (queue.size === 0 && queues.get(user) === queue) queues.delete(user);
    });
  };

  return {
    dialect: 'postgres',
    inspect: (user, sql) => inTurn(user, (client) => inspect(client, sql)),
    read: (user, sql) => inTurn(user, (client, answers) => read(client, answers, sql)),
    // A COMMIT whose answer was lost is asked about on opsdesk's own connections: the shop's may
    // all be taken, one by the very statement in question.
    execute: (user, sql, limit) =>
      inTurn(user, (client, answers) => execute(client, answers, sql, limit, Date.now() + timeoutMs, settling)),
    settings: () =>
      onConnection(shop, timeoutMs, async (client) => {
        const { rows } = await client.query(
          "SELECT current_user AS role, current_setting('search_path') AS search_path, current_setting('statement_timeout') AS statement_timeout, current_setting('temp_file_limit') AS temp_file_limit, current_setting('work_mem') AS work_mem",
        );
        return rows[0] as Record<string, unknown>;
      }),
    close: () => pool.end(),
  };
}

/**
 * The shop's pool, each of its connections logged in as a login of its own (`ShopAccess.logins`)
 * and acting as the shop's role: one user's statement cannot stop or read another's running on
 * another connection (Postgres allows both only within one login).
 */
function ownLogins(pg: typeof import('pg').default, access: ShopAccess, max: number): Pool {
  const free = [...access.logins];
  const shared = access.logins.length === 1 ? access.logins[0] : undefined;
  class OwnLogin extends pg.Client {
    constructor(config: ClientConfig) {
      const login = shared ?? free.shift();
      if (login === undefined) throw new Error('every login of the shop is in use');
      super({ ...config, connectionString: access.urlFor(login) });
      if (shared !== undefined) return;
      let done = false;
      const back = () => {
        if (done) return;
        done = true;
        free.push(login);
      };
      this.once('end', back);
    }
  }
  return new pg.Pool({
    max,
    options: '-c search_path=shop',
    Client: OwnLogin as unknown as new () => PoolClient,
  });
}

/** The shop role's connections, and how to set its password back when a connection is refused for it. */
interface ShopPool {
  pool: Pool;
  repair(): Promise<void>;
}

/**
 * Runs `work` on one of the shop's connections, its statements under `timeoutMs` each, and clears
 * the session afterwards. A statement stopped for time is a SQL_TIMEOUT; a connection that broke
 * is not used again.
 */
async function onConnection<T>(
  shop: ShopPool,
  timeoutMs: number,
  work: (client: PoolClient, answers: Answers) => Promise<T>,
): Promise<T> {
  let client: PoolClient;
  try {
    client = await shop.pool.connect().catch(async (error: unknown) => {
      // 28P01: the password was refused — changed behind opsdesk's back: set it again, once.
      if ((error as { code?: string }).code !== '28P01') throw error;
      await shop.repair();
      return shop.pool.connect();
    });
  } catch (error) {
    throw new ShopError('SHOP_UNAVAILABLE', `the shop database cannot be reached: ${(error as Error).message}`);
  }
  let broken: Error | undefined;
  const lost = (error: Error) => {
    broken = error;
  };
  client.on('error', lost);
  const answers = meter(client);
  try {
    await client.query(`SET statement_timeout = ${Math.max(1, Math.trunc(timeoutMs))}`);
    return await work(client, answers);
  } catch (error) {
    if (answers.over)
      throw new ShopError(
        'SQL_MEMORY',
        `the statement's answer was more than the ${RESULT_BYTES} bytes opsdesk takes for one statement`,
        RESULT_BYTES,
      );
    // 57014: canceled by statement_timeout; or past the deadline before it could commit.
    if ((error as { code?: string }).code === '57014' || error instanceof ExecutionTimeout)
      throw new ShopError('SQL_TIMEOUT', (error as Error).message);
    throw error;
  } finally {
    answers.stop();
    await client.query('ROLLBACK; DISCARD ALL').catch((error: unknown) => {
      broken ??= error as Error;
    });
    if (!broken) client.off('error', lost);
    client.release(broken ?? false);
  }
}

/** What the shop's database sent on one connection for one statement, counted as it arrives. */
interface Answers {
  /** Bytes received so far. */
  readonly received: number;
  /** The answers went past RESULT_BYTES, and the connection was dropped there. */
  readonly over: boolean;
  /** Counting ends (the statement is measured; its COMMIT is never cut). */
  stop(): void;
}

/**
 * Counts the bytes `client`'s socket receives and drops the connection once they pass
 * RESULT_BYTES: node-postgres takes a whole message before anyone sees it, so the bound is set
 * where the bytes come in, whatever the message. What is already on its way is at most one read
 * of the socket more.
 */
function meter(client: PoolClient): Answers {
  const socket = (client as unknown as Client).connection.stream;
  let received = 0;
  let over = false;
  const count = (chunk: Buffer) => {
    received += chunk.length;
    if (received > RESULT_BYTES && !over) {
      over = true;
      socket.destroy();
    }
  };
  socket.prependListener('data', count);
  return {
    get received() {
      return received;
    },
    get over() {
      return over;
    },
    stop: () => socket.off('data', count),
  };
}

/**
 * Rows fetched batch by batch into a row collector until it has enough, the rows end, or the
 * answers pass the bound (the connection is then gone): what was collected so far, stopped for
 * size. A batch is sized from the rows seen so far to at most a quarter of what is left of the
 * bound, so rows of a megabyte come a few at a time and are shown, not refused.
 */
async function collectBatches(
  answers: Answers,
  fetch: (rows: number) => Promise<{ rows: Record<string, unknown>[]; fields: { name: string }[] }>,
): Promise<{ rows: Rows; ended: boolean }> {
  let collector: ReturnType<typeof rowCollector> | undefined;
  let size = FIRST_FETCH;
  for (;;) {
    const start = answers.received;
    let batch: Awaited<ReturnType<typeof fetch>>;
    try {
      batch = await fetch(size);
    } catch (error) {
      if (!answers.over) throw error;
      return { rows: (collector ?? rowCollector([])).cut(), ended: false };
    }
    collector ??= rowCollector(batch.fields.map((f) => f.name));
    for (const row of batch.rows) if (!collector.add(row)) return { rows: collector.rows(), ended: false };
    if (batch.rows.length < size) return { rows: collector.rows(), ended: true };
    const perRow = Math.max(1, (answers.received - start) / Math.max(1, batch.rows.length));
    size = Math.max(1, Math.min(FETCH, Math.floor((RESULT_BYTES - answers.received) / 4 / perRow)));
  }
}

/**
 * `text` sent with the extended protocol, which takes exactly one statement: `SELECT 1; DROP …`
 * is refused by Postgres itself, never run in part. (`pg` supports `queryMode`; its types lack it.)
 */
function extended(text: string): QueryConfig {
  return { text, queryMode: 'extended' } as QueryConfig;
}

/**
 * The statement's first word (two for CREATE/ALTER/DROP), comments skipped as Postgres reads them:
 * a `--` comment ends at a line feed or a carriage return, and `/* … *\/` comments nest (`/* /* *\/
 * *\/` is one comment, so what follows it is the statement).
 */
function leading(sql: string): string {
  let at = 0;
  for (;;) {
    while (at < sql.length && /\s/.test(sql[at] as string)) at++;
    if (sql.startsWith('--', at)) {
      const end = sql.slice(at).search(/[\n\r]/);
      at = end < 0 ? sql.length : at + end + 1;
    } else if (sql.startsWith('/*', at)) {
      let depth = 0;
      while (at < sql.length) {
        if (sql.startsWith('/*', at)) {
          depth++;
          at += 2;
        } else if (sql.startsWith('*/', at)) {
          at += 2;
          if (--depth === 0) break;
        } else at++;
      }
    } else break;
  }
  const words = /^([A-Za-z]+)(?:\s+([A-Za-z]+))?/.exec(sql.slice(at));
  if (!words) return '';
  const first = (words[1] as string).toUpperCase();
  return first === 'CREATE' || first === 'ALTER' || first === 'DROP'
    ? `${first} ${(words[2] ?? '').toUpperCase()}`
    : first;
}

function refusalOf(sql: string): Refusal | undefined {
  const words = leading(sql);
  return REFUSED[words] ?? REFUSED[words.split(' ')[0] as string];
}

/** The plan Postgres makes for `sql` (nothing runs), or undefined for a statement without one (DDL). */
async function planOf(client: PoolClient, sql: string): Promise<{ text: string; json: unknown } | undefined> {
  await client.query('SAVEPOINT ek_plan');
  try {
    const { rows } = await client.query(extended(`EXPLAIN (VERBOSE, FORMAT JSON) ${sql}`));
    await client.query('RELEASE SAVEPOINT ek_plan');
    const json = (rows[0] as Record<string, unknown>)['QUERY PLAN'];
    return { text: JSON.stringify(json), json };
  } catch {
    await client.query('ROLLBACK TO SAVEPOINT ek_plan');
    return undefined;
  }
}

/**
 * What the statement is, from its plan (made in a read-only transaction, never run): a query with
 * no ModifyTable reads; anything else — writes, DDL, statements without a plan — takes the
 * measured write path.
 */
async function inspect(
  client: PoolClient,
  sql: string,
): Promise<Inspection | { refusal: Refusal } | { error: string }> {
  const refusal = refusalOf(sql);
  if (refusal) return { refusal };
  await client.query('BEGIN READ ONLY');
  const plan = await planOf(client, sql);
  const direct = plan ? targetsOf(plan.json) : [];
  const reads = plan !== undefined && direct.length === 0;
  return {
    readonly: reads,
    reader: reads,
    direct,
    writes: direct,
    creates: false,
    drops: false,
    schema: plan === undefined,
    varies: plan ? await variesOf(client, sql, plan.text, []) : [],
  };
}

/**
 * A read, in a read-only transaction, through a cursor: rows fetched in batches up to the caps; an
 * answer past the bound (one enormous value) ends it, stopped for size, with the rows before it.
 */
async function read(client: PoolClient, answers: Answers, sql: string): Promise<Rows> {
  await client.query('BEGIN READ ONLY');
  try {
    await client.query(extended(`DECLARE ek_rows NO SCROLL CURSOR FOR ${sql}`));
  } catch (error) {
    if (answers.over) throw error;
    throw new ShopError('SQL_RUNTIME', (error as Error).message);
  }
  const { rows } = await collectBatches(answers, (n) => client.query(`FETCH FORWARD ${n} FROM ek_rows`));
  return rows;
}

/**
 * Runs `sql` once in a transaction, measured (rows per table, schema objects), and commits only
 * within `limit` and before `deadline`; otherwise rolls back and says what went beyond. A COMMIT
 * whose answer is lost is settled by asking `settling.pool` what became of the transaction, for
 * up to `settling.withinMs`.
 */
async function execute(
  client: PoolClient,
  answers: Answers,
  sql: string,
  limit: Limit,
  deadline: number,
  settling: { pool: Pool; withinMs: number },
): Promise<Executed> {
  const refusal = refusalOf(sql);
  if (refusal) return { refusal };
  await client.query('BEGIN');
  const countedBefore = await transactionCounts(client);
  const schemaBefore = await snapshot(client);
  const sequencesBefore = await sequencePositions(client);
  const outsideBefore = await outsideTheShop(client);
  const tablesBefore = [...schemaBefore.values()].filter((o) => o.type === 'table').map((o) => o.name);
  const before = await rowCounts(client, tablesBefore);
  const plan = await planOf(client, sql);
  let ran: { returned: Rows; rowCount: number | null };
  try {
    ran = await returning(client, answers, sql);
  } catch (error) {
    if ((error as { code?: string }).code === '57014' || answers.over) throw error;
    return { error: (error as Error).message };
  }
  // What no confirmation could cover: the role every statement runs as, storage outside the
  // tables. Rolled back (the connection's ROLLBACK) and refused, whatever the statement's form
  // (a DO block, a function, a comment before ALTER ROLE).
  const outsideAfter = await outsideTheShop(client);
  if (outsideAfter.role !== outsideBefore.role) return { refusal: 'role' };
  if (outsideAfter.largeObjects !== outsideBefore.largeObjects) return { refusal: 'large-object' };
  const schemaAfter = await snapshot(client);
  const tablesAfter = [...schemaAfter.values()].filter((o) => o.type === 'table').map((o) => o.name);
  const tables = tableEffects(
    before,
    await rowCounts(client, tablesAfter),
    countedSince(await transactionCounts(client), countedBefore),
  );
  const schema = schemaChanges(schemaBefore, schemaAfter);
  // A sequence moved other than by the values its inserts took is changed: asked about as such.
  const inserted = Object.values(tables).reduce((n, t) => n + t.inserted, 0);
  const sequencesAfter = await sequencePositions(client);
  const moved = sequencesMoved(sequencesBefore, sequencesAfter, inserted);
  for (const name of moved)
    if (!schema.altered.some((o) => o.type === 'sequence' && o.name === name))
      schema.altered.push({ type: 'sequence', name });
  const changed = Object.entries(tables)
    .filter(([, t]) => t.inserted + t.updated + t.deleted > 0)
    .map(([name]) => name);
  const direct = plan ? targetsOf(plan.json) : [];
  // Rows past the collector's caps were never fetched: the whole statement ran at the first batch
  // (Postgres runs a data-modifying statement to its end before its first row), but its own count
  // never came. Then its count is what it did to its own tables, measured.
  const ownRows = direct.reduce((n, name) => n + touched(tables[name]), 0);
  const execution: Execution = {
    tables,
    schema,
    changes: ran.rowCount ?? (ran.returned.complete ? 0 : ownRows),
    varies: await variesOf(client, sql, plan?.text, changed),
    writes: [...new Set([...direct, ...changed])],
    direct,
    returned: ran.returned,
  };
  // Measured: what follows is opsdesk's own small questions and the COMMIT, never cut.
  answers.stop();
  const why = beyond(execution, limit);
  if (why !== undefined) {
    await putBack(client, moved, sequencesBefore, sequencesAfter);
    return { kept: false, execution, beyond: why };
  }
  if (Date.now() > deadline) throw new ExecutionTimeout();
  // The transaction's id, if it wrote anything: what the database is asked about if the COMMIT's
  // answer is lost.
  const { rows } = await client.query('SELECT txid_current_if_assigned()::text AS xid');
  const xid = (rows[0] as { xid: string | null } | undefined)?.xid ?? null;
  try {
    await client.query('COMMIT');
  } catch (error) {
    // The server's own refusal (a deferred constraint, a serialization failure) rolled it back.
    if (refusedByServer(error)) throw error;
    // No answer (the connection dropped once COMMIT was on its way): the server may have
    // committed, or be committing still. A transaction that wrote nothing has nothing to keep.
    if (xid === null) return { kept: true, execution };
    const fate = await transactionFate(settling.pool, xid, settling);
    if (fate === 'committed') return { kept: true, execution };
    if (fate === 'aborted')
      throw new ShopError(
        'ROLLED_BACK',
        `the connection to the shop database was lost while it committed the statement (${(error as Error).message}), and the database rolled it back`,
      );
    throw new ShopError(
      'OUTCOME_UNKNOWN',
      `the connection to the shop database was lost while it committed the statement (${(error as Error).message}), and the database did not say whether it was kept`,
    );
  }
  return { kept: true, execution };
}

function touched(t: { inserted: number; updated: number; deleted: number } | undefined): number {
  return t ? t.inserted + t.updated + t.deleted : 0;
}

/**
 * Runs `sql` (one statement: the extended protocol takes no more) through a portal of its own,
 * its rows — a write's RETURNING, a data-modifying WITH's — fetched in batches into a row
 * collector and the rest left unfetched: opsdesk never holds more than a batch of them. The
 * statement's own count when it came (all rows fetched), else null.
 */
async function returning(
  client: PoolClient,
  answers: Answers,
  sql: string,
): Promise<{ returned: Rows; rowCount: number | null }> {
  const cursor = client.query(new Cursor(sql));
  let rowCount: number | null = null;
  const fetch = (n: number) =>
    new Promise<{ rows: Record<string, unknown>[]; fields: { name: string }[] }>((resolve, reject) => {
      cursor.read(n, (error, rows, result) => {
        if (error) return reject(error);
        rowCount = result.rowCount ?? rowCount;
        resolve({ rows, fields: result.fields });
      });
    });
  // An error ends the cursor itself (pg-cursor syncs): the transaction is then aborted.
  const collected = await collectBatches(answers, fetch);
  if (answers.over) throw new Error('the statement’s answer passed the bound');
  // Rows left unfetched: the portal is closed (its statement has run; the transaction goes on).
  if (!collected.ended) await cursor.close();
  return { returned: collected.rows, rowCount: collected.ended ? rowCount : null };
}

/**
 * An error the server sent at `ERROR` severity: it refused the statement, rolled the transaction
 * back and the session goes on. Not a socket's error (`EPIPE` looks like an SQLSTATE), nor a
 * `FATAL` ending the session (the server's shutdown), where whether it committed is not said.
 */
function refusedByServer(error: unknown): boolean {
  return (error as { severity?: unknown } | null)?.severity === 'ERROR';
}
