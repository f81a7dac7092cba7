/**
 * `transactionFate`: what became of a transaction whose COMMIT's answer was lost, asked of a real
 * PostgreSQL — committed, rolled back, still committing (asked again until it ends, or until the
 * time given is up), and a database that does not answer at all.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPostgres, type TestPostgres, withPostgres } from '../../../../test/support/postgres-server.js';
import { transactionFate } from '../postgres.js';

const POSTGRES = withPostgres('claims/postgres-transaction-fate.test.ts');

describe.skipIf(!POSTGRES)('transactionFate', () => {
  let server: TestPostgres;
  let pool: pg.Pool;
  beforeAll(async () => {
    server = await startPostgres();
    pool = new pg.Pool({ connectionString: server.url });
    await pool.query('CREATE TABLE notes (note text)');
  });
  afterAll(async () => {
    await pool?.end();
    await server?.stop();
  });

  /** A transaction that wrote a row, left open on a client of its own, and its id. */
  const open = async () => {
    const client = await pool.connect();
    await client.query('BEGIN');
    await client.query("INSERT INTO notes VALUES ('x')");
    const { rows } = await client.query('SELECT txid_current()::text AS xid');
    return { client, xid: rows[0].xid as string };
  };

  it('committed, and rolled back', async () => {
    const kept = await open();
    await kept.client.query('COMMIT');
    kept.client.release();
    expect(await transactionFate(pool, kept.xid, { withinMs: 10_000 })).toBe('committed');
    const dropped = await open();
    await dropped.client.query('ROLLBACK');
    dropped.client.release();
    expect(await transactionFate(pool, dropped.xid, { withinMs: 10_000 })).toBe('aborted');
  });

  it('a transaction still open is asked about again until it ends', async () => {
    const later = await open();
    const fate = transactionFate(pool, later.xid, { withinMs: 10_000 });
    // Asked at least once meanwhile: in progress then.
    await new Promise((resolve) => setTimeout(resolve, 100));
    await later.client.query('COMMIT');
    later.client.release();
    expect(await fate).toBe('committed');
  });

  it('one still open when the time is up: unknown', async () => {
    const stuck = await open();
    try {
      expect(await transactionFate(pool, stuck.xid, { withinMs: 150 })).toBe('unknown');
    } finally {
      await stuck.client.query('ROLLBACK');
      stuck.client.release();
    }
  });

  it('a database that does not answer: unknown once the time is up, not an error or a wait without end', async () => {
    const silent = { query: () => new Promise<never>(() => {}) };
    expect(await transactionFate(silent, '1234', { withinMs: 100 })).toBe('unknown');
    const refusing = { query: () => Promise.reject(new Error('connect ECONNREFUSED')) };
    expect(await transactionFate(refusing, '1234', { withinMs: 100 })).toBe('unknown');
  });

  it('an id the database has not given out yet is never taken for an answer: unknown', async () => {
    // txid_status refuses an id in the future (an error, asked again until the time is up).
    expect(await transactionFate(pool, '999999999999', { withinMs: 100 })).toBe('unknown');
  });

  it('refuses what is not a transaction id, before asking anything', async () => {
    let asked = 0;
    const counting = {
      query: async () => {
        asked++;
        return { rows: [], rowCount: 0 };
      },
    };
    for (const bad of ['', '12; DROP TABLE notes', '-1', '1.5', 'undefined', '1'.repeat(21)])
      await expect(transactionFate(counting, bad, { withinMs: 100 }), bad).rejects.toThrow(/is not a transaction id/);
    expect(asked).toBe(0);
  });
});
