/**
 * A `pg` pool with no connection or query timeout waits as long as its server does not answer.
 * Was: a claim, a read or an atomic commit waited as long, so the tool call never ended. Now each
 * step the store takes gives up after `timeoutMs` and ends as with the database unreachable.
 */
import { createServer, type Socket } from 'node:net';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { startPostgres, withPostgres } from '../../../../test/support/postgres-server.js';
import { ClaimStoreUnavailableError, createPostgresClaimStore } from './postgres.js';

const POSTGRES = withPostgres('claims/postgres-timeout.test.ts');
const LEASE = { leaseMs: 1_000, ttlMs: 60_000 };

describe.skipIf(!POSTGRES)('a PostgreSQL that does not answer, a pool that would wait for ever', () => {
  const closing: (() => Promise<unknown>)[] = [];
  afterEach(async () => {
    for (const close of closing.splice(0).reverse()) await close();
  });

  it('a server that accepts connections and says nothing: every operation ends with CLAIMS_UNAVAILABLE', async () => {
    const sockets: Socket[] = [];
    const silent = createServer((socket) => sockets.push(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    closing.push(async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => silent.close(resolve));
    });
    const { port } = silent.address() as { port: number };
    const pool = new pg.Pool({ connectionString: `postgres://postgres@127.0.0.1:${port}/postgres` });
    pool.on('error', () => {});
    const store = createPostgresClaimStore(pool, { table: 'silent', timeoutMs: 200 });
    const failed = await Promise.allSettled([
      store.claim('call-1', 'a', LEASE),
      store.read('call-1'),
      store.complete('call-1', 'a', '"r"'),
      store.atomicallyAsync?.('call-1', 60_000, async () => '"r"', { waitMs: 100 }),
    ]);
    for (const outcome of failed) {
      expect(outcome.status).toBe('rejected');
      const reason = (outcome as PromiseRejectedResult).reason as Error;
      expect(reason).toBeInstanceOf(ClaimStoreUnavailableError);
      expect(reason.message).toContain('The claim store (PostgreSQL) cannot be reached');
      expect(reason.message).toContain('no answer within 200 ms (timeoutMs)');
    }
  });

  it('a claim held up by a lock is given up, and given back once it is taken after all', async () => {
    const server = await startPostgres();
    closing.push(() => server.stop());
    const pool = new pg.Pool({ connectionString: server.url });
    closing.push(() => pool.end());
    // Bounded well past what a loaded machine takes for a claim: only the lock holds it that long.
    // The late claim's release (a DELETE once the INSERT that waited on the lock answers), waited
    // for itself: the table holds no row before that INSERT runs either, so a poll for 0 rows can
    // pass before the late claim lands.
    let released!: () => void;
    const release = new Promise<void>((resolve) => {
      released = resolve;
    });
    const query = pool.query.bind(pool) as (text: string, values?: unknown[]) => Promise<pg.QueryResult>;
    const watched = Object.assign(Object.create(pool) as pg.Pool, {
      query: (text: string, values?: unknown[]) => {
        const done = query(text, values);
        if (text.trimStart().startsWith('DELETE'))
          void done.then(
            () => released(),
            () => {},
          );
        return done;
      },
      connect: () => pool.connect(),
    });
    const store = createPostgresClaimStore(watched, { table: 'locked', timeoutMs: 1_000 });
    expect(await store.read('call-1')).toBeUndefined(); // the table made, the server checked
    const admin = await pool.connect();
    try {
      await admin.query('BEGIN; LOCK TABLE locked IN ACCESS EXCLUSIVE MODE');
      await expect(store.claim('call-1', 'a', LEASE)).rejects.toMatchObject({ code: 'CLAIMS_UNAVAILABLE' });
      await admin.query('COMMIT');
    } finally {
      admin.release();
    }
    // The INSERT waiting on the lock ran once it was free; its caller had given up: released.
    await release;
    expect((await pool.query('SELECT count(*)::int AS n FROM locked')).rows[0]?.n).toBe(0);
    expect(await store.claim('call-1', 'b', LEASE)).toEqual({ state: 'claimed' });
  });

  it('an atomic COMMIT that does not answer in time is asked about: it committed, so it ran', async () => {
    const server = await startPostgres();
    closing.push(() => server.stop());
    const pool = new pg.Pool({ connectionString: server.url });
    pool.on('error', () => {});
    closing.push(() => pool.end());
    // A deferred trigger that takes a second at COMMIT: longer than the store waits for it.
    await pool.query(`CREATE TABLE slow (id int);
      CREATE FUNCTION sleepy() RETURNS trigger AS $$ BEGIN PERFORM pg_sleep(1); RETURN NULL; END $$ LANGUAGE plpgsql;
      CREATE CONSTRAINT TRIGGER slow_commit AFTER INSERT ON slow DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION sleepy();`);
    // Half the trigger's second: every step before the COMMIT (connect, the table, the claim, the
    // INSERT) answers well within it on a loaded machine, the COMMIT never.
    const store = createPostgresClaimStore(pool, { table: 'slow_claims', timeoutMs: 500 });
    const found = await store.atomicallyAsync?.(
      'call-1',
      60_000,
      async (tx) => {
        await (tx as pg.PoolClient).query('INSERT INTO slow VALUES (1)');
        return '"r"';
      },
      { waitMs: 5_000 },
    );
    expect(found).toEqual({ state: 'ran', result: '"r"' });
    expect((await pool.query('SELECT count(*)::int AS n FROM slow')).rows[0]?.n).toBe(1);
    expect(await store.read('call-1')).toEqual({ state: 'done', result: '"r"' });
  });

  it('refuses a timeoutMs that is not a whole number of ms', () => {
    const pool = new pg.Pool();
    closing.push(() => pool.end());
    for (const timeoutMs of [0, -1, 0.5, Number.NaN])
      expect(() => createPostgresClaimStore(pool, { timeoutMs })).toThrow(RangeError);
  });
});
