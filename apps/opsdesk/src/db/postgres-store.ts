import { createPostgresClaimStore, transactionFate } from '@elicitkit/server/postgres';
import type { Pool, PoolClient } from 'pg';
import { redactedUrl } from '../redacted-url.js';
import { CommitOutcomeUnknownError } from './commit-outcome.js';
import { DataDirError } from './open.js';
import { POSTGRES_HOLDINGS, POSTGRES_HOLDINGS_V8, POSTGRES_SCHEMA } from './postgres-schema.js';
import type { Query, Step } from './query.js';
import { ACCOUNT_COLUMNS, SCHEMA_VERSION } from './schema.js';
import { seed } from './seed.js';
import { runStepsAsync, type Store } from './store.js';

/** opsdesk on Postgres: its pool, for what only Postgres has. */
export interface PostgresStore extends Store {
  readonly dialect: 'postgres';
  readonly pool: Pool;
  /** Runs `query` in the transaction an atomic effect was handed (`tx`), as `atomic` runs the effect's own. */
  runIn<T>(tx: never, query: Query<T>): Promise<T>;
}

/** The database could not be reached or opened (refused, unknown database, no rights): the start fails with why. */
export class PostgresUnavailableError extends Error {
  readonly code = 'POSTGRES_UNAVAILABLE';
  constructor(url: string, cause: unknown) {
    super(`Cannot use the Postgres database at ${redactedUrl(url)}: ${(cause as Error)?.message ?? String(cause)}`, {
      cause,
    });
    this.name = 'PostgresUnavailableError';
  }
}

/** How long a transaction whose COMMIT's answer was lost may spend learning whether it committed. */
const SETTLE_MS = 5_000;

/** The advisory lock opsdesk's transactions hold (and its schema is created under): "opsd". */
const WRITE_LOCK = 0x6f707364;
/** `bigint`: ids and epoch milliseconds, all well inside a double's exact integers. */
const INT8_OID = 20;

/**
 * Connects to the Postgres database at `url` and makes it opsdesk's: its schema (`opsdesk`) is
 * created and seeded on first use, under a lock, so replicas starting together do it once. The
 * pool's connections look up unqualified names in that schema only.
 *
 * @example
 * const store = await openPostgresStore('postgres://opsdesk@db.internal/opsdesk');
 */
export async function openPostgresStore(url: string, now: () => Date = () => new Date()): Promise<PostgresStore> {
  const { default: pg } = await import('pg');
  const parse = pg.types.getTypeParser;
  const pool = new pg.Pool({
    connectionString: url,
    options: '-c search_path=opsdesk',
    types: {
      getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
        oid === INT8_OID ? Number : parse(oid, format as 'text')) as typeof parse,
    },
  });
  // An idle connection lost (the server restarted): the pool drops it and the next query opens another.
  pool.on('error', () => {});
  try {
    await migrate(pool, now);
  } catch (error) {
    await pool.end();
    if (error instanceof DataDirError) throw error;
    throw new PostgresUnavailableError(url, error);
  }
  return postgresStore(pool);
}

function postgresStore(pool: Pool): PostgresStore {
  return {
    dialect: 'postgres',
    pool,
    run: (query) => runStepsAsync(query, answerOn(pool)),
    transaction: <T>(query: Query<T>) =>
      held(pool, async (client) => {
        await client.query(`BEGIN; SELECT pg_advisory_xact_lock(${WRITE_LOCK})`);
        const result = await runStepsAsync(query, answerOn(client));
        await committed(pool, client);
        return result;
      }),
    atomic: (make) => async (tx: PoolClient) => runStepsAsync(make(), answerOn(tx)),
    runIn: (tx: PoolClient, query) => runStepsAsync(query, answerOn(tx)),
    claims: createPostgresClaimStore(pool, { table: 'opsdesk.elicitkit_claims' }),
    isOpen: () => !pool.ended,
    close: () => pool.end(),
  };
}

/**
 * Commits the transaction open on `client`. When the COMMIT's answer is lost (the connection
 * dropped as it went out), the database is asked what became of the transaction (its id read
 * first): committed is as if the answer had come; rolled back throws the error it had, nothing
 * written; no answer in time throws `CommitOutcomeUnknownError`. A transaction that wrote nothing
 * has nothing to lose. A refusal at ERROR severity (a deferred constraint) is a rollback.
 */
async function committed(pool: Pool, client: PoolClient): Promise<void> {
  const { rows } = await client.query('SELECT txid_current_if_assigned()::text AS xid');
  const xid = (rows[0] as { xid: string | null } | undefined)?.xid ?? null;
  try {
    await client.query('COMMIT');
  } catch (error) {
    // The server's own refusal (a deferred constraint) rolled it back.
    if ((error as { severity?: unknown } | null)?.severity === 'ERROR') throw error;
    // Nothing written: nothing to lose, whatever became of the COMMIT.
    if (xid === null) return;
    const fate = await transactionFate(pool, xid, { withinMs: SETTLE_MS });
    if (fate === 'committed') return;
    if (fate === 'aborted') throw error;
    throw new CommitOutcomeUnknownError(error);
  }
}

/** Creates the schema and seeds it on first use, or checks the version a database already has. */
async function migrate(pool: Pool, now: () => Date): Promise<void> {
  await held(pool, async (client) => {
    await client.query(`BEGIN; SELECT pg_advisory_xact_lock(${WRITE_LOCK})`);
    await client.query(POSTGRES_SCHEMA);
    const found = await client.query("SELECT value FROM opsdesk.meta WHERE key = 'schema_version'");
    const version = found.rows[0]?.value as string | undefined;
    if (version === undefined) {
      await client.query(POSTGRES_HOLDINGS);
      await runStepsAsync(seed(now().toISOString()), answerOn(client));
      await client.query("INSERT INTO opsdesk.meta (key, value) VALUES ('schema_version', $1)", [
        String(SCHEMA_VERSION),
      ]);
    } else if (Number(version) > SCHEMA_VERSION) {
      throw new DataDirError(
        'SCHEMA_TOO_NEW',
        `the opsdesk schema in this database has version ${version}; this opsdesk understands up to ${SCHEMA_VERSION}. Use a newer opsdesk or another database.`,
      );
    } else if (Number(version) < SCHEMA_VERSION) {
      // v7: records written by name alone get the account holding that name now (`migrateToAccounts` in open.ts).
      if (Number(version) < 7)
        for (const { table, account, name } of ACCOUNT_COLUMNS)
          await client.query(
            `UPDATE opsdesk.${table} t SET ${account} = (SELECT u.id FROM opsdesk.users u WHERE u.username = t.${name} COLLATE opsdesk.nocase) WHERE t.${account} IS NULL AND t.${name} IS NOT NULL`,
          );
      // v8: grants and tokens by account (`migrateHoldings` in open.ts).
      if (Number(version) < 8) await client.query(POSTGRES_HOLDINGS_V8);
      await client.query(POSTGRES_HOLDINGS);
      await client.query("UPDATE opsdesk.meta SET value = $1 WHERE key = 'schema_version'", [String(SCHEMA_VERSION)]);
    }
    await client.query('COMMIT');
  });
}

/**
 * Runs `work` on one of the pool's clients, rolling back what it left open if it throws. A client
 * whose connection broke, or whose rollback failed, is not handed out again.
 */
async function held<T>(pool: Pool, work: (client: PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  let broken: Error | undefined;
  // A connection lost mid-transaction is reported as an 'error' event as well as by the query in
  // flight: unheard, it would crash the process. A broken client keeps the listener (it may report late).
  const lost = (error: Error) => {
    broken = error;
  };
  client.on('error', lost);
  try {
    return await work(client);
  } catch (error) {
    await client.query('ROLLBACK').catch((rollback: unknown) => {
      broken ??= rollback instanceof Error ? rollback : new Error(String(rollback));
    });
    throw error;
  } finally {
    if (!broken) client.off('error', lost);
    client.release(broken ?? false);
  }
}

type Queryable = Pick<Pool, 'query'>;

/** How a pool or a transaction's client answers each step of a query. */
function answerOn(on: Queryable): (step: Step) => Promise<unknown> {
  const answer = async (step: Step): Promise<unknown> => {
    switch (step.kind) {
      case 'get':
        return (await on.query(numbered(step.sql), [...step.params])).rows[0];
      case 'all':
        return (await on.query(numbered(step.sql), [...step.params])).rows;
      case 'value':
        return (await on.query({ text: numbered(step.sql), values: [...step.params], rowMode: 'array' })).rows[0]?.[0];
      case 'values':
        return (await on.query({ text: numbered(step.sql), values: [...step.params], rowMode: 'array' })).rows.map(
          (row: unknown[]) => row[0],
        );
      case 'run':
        return (await on.query(numbered(step.sql), [...step.params])).rowCount ?? 0;
      case 'dialect':
        return 'postgres';
      case 'remember':
        // Nothing tells this process when another changed the tables: read afresh, every time.
        return runStepsAsync(step.query(), answer);
    }
  };
  return answer;
}

const texts = new Map<string, string>();

/**
 * opsdesk's SQL with Postgres's placeholders: each `?` outside a quoted string or name becomes
 * `$1`, `$2`, … in order. Only for SQL written in the code (the text is remembered).
 *
 * @example
 * numbered("SELECT * FROM users WHERE username = ? AND role = 'owner?'") // … username = $1 AND role = 'owner?'
 */
export function numbered(sql: string): string {
  const known = texts.get(sql);
  if (known !== undefined) return known;
  let out = '';
  let n = 0;
  let quote: string | undefined;
  for (const c of sql) {
    if (quote) {
      if (c === quote) quote = undefined;
      out += c;
    } else if (c === "'" || c === '"') {
      quote = c;
      out += c;
    } else out += c === '?' ? `$${++n}` : c;
  }
  texts.set(sql, out);
  return out;
}
