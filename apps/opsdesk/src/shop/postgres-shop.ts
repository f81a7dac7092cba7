import { transactionFate } from '@elicitkit/server/postgres';
import type { Pool, PoolClient, QueryConfig } from 'pg';
import type { PostgresStore } from '../db/postgres-store.js';
import type { ShopClient, ShopOptions } from './client.js';
import { ShopError } from './client.js';
import { beyond, type Execution, type Limit } from './effect.js';
import { type Executed, ExecutionTimeout } from './execute.js';
import type { Inspection, Refusal } from './inspect.js';
import {
  countedSince,
  rowCounts,
  schemaChanges,
  snapshot,
  tableEffects,
  targetsOf,
  transactionCounts,
  variesOf,
} from './postgres-measure.js';
import { provisionShop, seedShopIfEmpty } from './postgres-provision.js';
import { type Rows, rowCollector } from './run.js';

const SQL_TIMEOUT_MS = 10_000;
/** How long a write whose COMMIT's answer was lost may spend learning whether it was kept. */
const SETTLE_MS = 5_000;
const QUEUED_PER_USER = 8;
const CONNECTIONS = 4;
/** Rows fetched from a read's cursor at a time. */
const FETCH = 500;

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
  const access = await provisionShop(store.pool, url);
  const { default: pg } = await import('pg');
  const pool = new pg.Pool({
    connectionString: access.url,
    max: options.workers ?? CONNECTIONS,
    options: '-c search_path=shop',
  });
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

  /** Each user's statements, chained: one at a time, in the order sent. */
  const queues = new Map<string, { tail: Promise<unknown>; size: number }>();
  const inTurn = <T>(user: string, work: (client: PoolClient) => Promise<T>): Promise<T> => {
    const queue = queues.get(user) ?? { tail: Promise.resolve(), size: 0 };
    if (queue.size >= perUser) return Promise.reject(new ShopError('SHOP_BUSY', 'too many statements waiting'));
    queue.size++;
    queues.set(user, queue);
    const run = queue.tail.then(() => onConnection(pool, timeoutMs, work));
    queue.tail = run.catch(() => {});
    return run.finally(() => {
      queue.size--;
      if (queue.size === 0 && queues.get(user) === queue) queues.delete(user);
    });
  };

  return {
    dialect: 'postgres',
    inspect: (user, sql) => inTurn(user, (client) => inspect(client, sql)),
    read: (user, sql) => inTurn(user, (client) => read(client, sql)),
    // A COMMIT whose answer was lost is asked about on opsdesk's own connections: the shop's may
    // all be taken, one by the very statement in question.
    execute: (user, sql, limit) =>
      inTurn(user, (client) => execute(client, sql, limit, Date.now() + timeoutMs, settling)),
    settings: () =>
      onConnection(pool, timeoutMs, async (client) => {
        const { rows } = await client.query(
          "SELECT current_user AS role, current_setting('search_path') AS search_path, current_setting('statement_timeout') AS statement_timeout",
        );
        return rows[0] as Record<string, unknown>;
      }),
    close: () => pool.end(),
  };
}

/**
 * Runs `work` on one of the shop's connections, its statements under `timeoutMs` each, and clears
 * the session afterwards. A statement stopped for time is a SQL_TIMEOUT; a connection that broke
 * is not used again.
 */
async function onConnection<T>(pool: Pool, timeoutMs: number, work: (client: PoolClient) => Promise<T>): Promise<T> {
  let client: PoolClient;
  try {
    client = await pool.connect();
  } catch (error) {
    throw new ShopError('SHOP_UNAVAILABLE', `the shop database cannot be reached: ${(error as Error).message}`);
  }
  let broken: Error | undefined;
  const lost = (error: Error) => {
    broken = error;
  };
  client.on('error', lost);
  try {
    await client.query(`SET statement_timeout = ${Math.max(1, Math.trunc(timeoutMs))}`);
    return await work(client);
  } catch (error) {
    // 57014: canceled by statement_timeout; or past the deadline before it could commit.
    if ((error as { code?: string }).code === '57014' || error instanceof ExecutionTimeout)
      throw new ShopError('SQL_TIMEOUT', (error as Error).message);
    throw error;
  } finally {
    await client.query('ROLLBACK; DISCARD ALL').catch((error: unknown) => {
      broken ??= error as Error;
    });
    if (!broken) client.off('error', lost);
    client.release(broken ?? false);
  }
}

/**
 * `text` sent with the extended protocol, which takes exactly one statement: `SELECT 1; DROP …`
 * is refused by Postgres itself, never run in part. (`pg` supports `queryMode`; its types lack it.)
 */
function extended(text: string): QueryConfig {
  return { text, queryMode: 'extended' } as QueryConfig;
}

/** The statement's first word (two for CREATE/ALTER), comments skipped. */
function leading(sql: string): string {
  const text = sql.replace(/^(\s+|--[^\n]*\n?|\/\*[\s\S]*?\*\/)+/, '');
  const words = /^([A-Za-z]+)(?:\s+([A-Za-z]+))?/.exec(text);
  if (!words) return '';
  const first = (words[1] as string).toUpperCase();
  return first === 'CREATE' || first === 'ALTER' ? `${first} ${(words[2] ?? '').toUpperCase()}` : first;
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
    varies: plan ? await variesOf(client, plan.text, []) : [],
  };
}

/** A read, in a read-only transaction, through a cursor: rows fetched in batches up to the caps. */
async function read(client: PoolClient, sql: string): Promise<Rows> {
  await client.query('BEGIN READ ONLY');
  try {
    await client.query(extended(`DECLARE ek_rows NO SCROLL CURSOR FOR ${sql}`));
  } catch (error) {
    throw new ShopError('SQL_RUNTIME', (error as Error).message);
  }
  let collector: ReturnType<typeof rowCollector> | undefined;
  for (;;) {
    const batch = await client.query(`FETCH FORWARD ${FETCH} FROM ek_rows`);
    collector ??= rowCollector(batch.fields.map((f) => f.name));
    let more = batch.rows.length === FETCH;
    for (const row of batch.rows) {
      if (!collector.add(row)) {
        more = false;
        break;
      }
    }
    if (!more) return collector.rows();
  }
}

/**
 * Runs `sql` once in a transaction, measured (rows per table, schema objects), and commits only
 * within `limit` and before `deadline`; otherwise rolls back and says what went beyond. A COMMIT
 * whose answer is lost is settled by asking `settling.pool` what became of the transaction, for
 * up to `settling.withinMs`.
 */
async function execute(
  client: PoolClient,
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
  const tablesBefore = [...schemaBefore].filter(([, o]) => o.type === 'table').map(([name]) => name);
  const before = await rowCounts(client, tablesBefore);
  const plan = await planOf(client, sql);
  let result: { rows: Record<string, unknown>[]; fields: { name: string }[]; rowCount: number | null };
  try {
    result = await client.query(extended(sql));
  } catch (error) {
    if ((error as { code?: string }).code === '57014') throw error;
    return { error: (error as Error).message };
  }
  const schemaAfter = await snapshot(client);
  const tablesAfter = [...schemaAfter].filter(([, o]) => o.type === 'table').map(([name]) => name);
  const tables = tableEffects(
    before,
    await rowCounts(client, tablesAfter),
    countedSince(await transactionCounts(client), countedBefore),
  );
  const changed = Object.entries(tables)
    .filter(([, t]) => t.inserted + t.updated + t.deleted > 0)
    .map(([name]) => name);
  const direct = plan ? targetsOf(plan.json) : [];
  const returned = rowCollector(result.fields.map((f) => f.name));
  for (const row of result.rows) if (!returned.add(row)) break;
  const execution: Execution = {
    tables,
    schema: schemaChanges(schemaBefore, schemaAfter),
    changes: result.rowCount ?? 0,
    varies: await variesOf(client, plan?.text, changed),
    writes: [...new Set([...direct, ...changed])],
    direct,
    returned: returned.rows(),
  };
  const why = beyond(execution, limit);
  if (why !== undefined) return { kept: false, execution, beyond: why };
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

/**
 * An error the server sent at `ERROR` severity: it refused the statement, rolled the transaction
 * back and the session goes on. Not a socket's error (`EPIPE` looks like an SQLSTATE), nor a
 * `FATAL` ending the session (the server's shutdown), where whether it committed is not said.
 */
function refusedByServer(error: unknown): boolean {
  return (error as { severity?: unknown } | null)?.severity === 'ERROR';
}
