import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPostgres, type TestPostgres, withPostgres } from '../../../../test/support/postgres-server.js';
import { claimStoreSuite, manualClock } from './claims.suite.js';
import { createPostgresClaimStore } from './postgres.js';

const POSTGRES = withPostgres('claims/postgres.test.ts');

const LEASE = { leaseMs: 1_000, ttlMs: 60_000 };

describe.skipIf(!POSTGRES)('postgres claim store', () => {
  let server: TestPostgres;
  let pool: pg.Pool;
  let n = 0;
  beforeAll(async () => {
    server = await startPostgres();
    pool = new pg.Pool({ connectionString: server.url, max: 20 });
  });
  afterAll(async () => {
    await pool?.end();
    await server?.stop();
  });

  // Each test gets its own table on the one server: stores never see each other's claims.
  claimStoreSuite('postgres', (clock) => createPostgresClaimStore(pool, { now: clock.now, table: `claims_${++n}` }), {
    atomicAsync: true,
  });

  it('two pools (two replicas) racing for one id: exactly one wins', async () => {
    const clock = manualClock();
    const pools = [pool, new pg.Pool({ connectionString: server.url })];
    try {
      const stores = pools.map((p) => createPostgresClaimStore(p, { now: clock.now, table: 'race' }));
      const results = await Promise.all(
        Array.from({ length: 40 }, (_, i) => stores[i % stores.length]?.claim('call-1', `o${i}`, LEASE)),
      );
      expect(results.filter((r) => r?.state === 'claimed')).toHaveLength(1);
    } finally {
      await pools[1]?.end();
    }
  });

  it("the effect's own rows commit with the claim, or not at all", async () => {
    const store = createPostgresClaimStore(pool, { table: 'with_rows' });
    await pool.query('CREATE TABLE deployments (id SERIAL PRIMARY KEY, service TEXT NOT NULL)');
    const deploy = (service: string) => async (tx: unknown) => {
      const { rows } = await (tx as pg.PoolClient).query('INSERT INTO deployments (service) VALUES ($1) RETURNING id', [
        service,
      ]);
      if (service === 'broken') throw new Error('the health check failed');
      return JSON.stringify({ id: rows[0].id });
    };
    expect(await store.atomicallyAsync?.('call-1', 60_000, deploy('orders'), { waitMs: 1_000 })).toMatchObject({
      state: 'ran',
    });
    await expect(store.atomicallyAsync?.('call-2', 60_000, deploy('broken'), { waitMs: 1_000 })).rejects.toThrow(
      'health check',
    );
    // Replayed: the record, no second row.
    expect(await store.atomicallyAsync?.('call-1', 60_000, deploy('orders'), { waitMs: 1_000 })).toMatchObject({
      state: 'done',
    });
    const { rows } = await pool.query('SELECT service FROM deployments ORDER BY id');
    expect(rows).toEqual([{ service: 'orders' }]);
    expect(await store.read('call-2')).toBeUndefined();
  });

  it('an effect that swallows its own SQL error commits nothing', async () => {
    const store = createPostgresClaimStore(pool, { table: 'swallowed' });
    await pool.query('CREATE TABLE IF NOT EXISTS notes (body TEXT NOT NULL)');
    const effect = async (tx: unknown) => {
      const client = tx as pg.PoolClient;
      await client.query("INSERT INTO notes (body) VALUES ('kept?')");
      await client.query('INSERT INTO notes (body) VALUES (NULL)').catch(() => {});
      return '"looks fine"';
    };
    await expect(store.atomicallyAsync?.('call-1', 60_000, effect, { waitMs: 1_000 })).rejects.toThrow(/aborted/);
    expect((await pool.query("SELECT * FROM notes WHERE body = 'kept?'")).rows).toEqual([]);
    expect(await store.read('call-1')).toBeUndefined();
  });

  it('a connection killed mid-effect (a replica that died) leaves nothing, and a replay runs once', async () => {
    const store = createPostgresClaimStore(pool, { table: 'killed' });
    await pool.query('CREATE TABLE IF NOT EXISTS effects (call TEXT NOT NULL)');
    let pid = 0;
    const dying = store.atomicallyAsync?.(
      'call-1',
      60_000,
      async (tx) => {
        const client = tx as pg.PoolClient;
        pid = (await client.query('SELECT pg_backend_pid() AS pid')).rows[0].pid;
        await client.query("INSERT INTO effects (call) VALUES ('call-1')");
        await client.query('SELECT pg_sleep(30)'); // the effect's slow part, where the replica dies
        return '"never"';
      },
      { waitMs: 1_000 },
    );
    // Handled from now on: it may fail while the termination below is still being answered, and a
    // rejection nobody listens to yet is reported as unhandled (this test was flaky that way).
    const died = dying?.then(
      () => 'resolved',
      (error: unknown) => error,
    );
    await expect.poll(() => pid).not.toBe(0);
    const replay = store.atomicallyAsync?.(
      'call-1',
      60_000,
      async (tx) => {
        await (tx as pg.PoolClient).query("INSERT INTO effects (call) VALUES ('call-1')");
        return '"replayed"';
      },
      { waitMs: 5_000 },
    );
    await pool.query('SELECT pg_terminate_backend($1)', [pid]);
    expect(await died).toBeInstanceOf(Error);
    expect(await replay).toEqual({ state: 'ran', result: '"replayed"' });
    expect((await pool.query('SELECT count(*)::int AS n FROM effects')).rows[0].n).toBe(1);
  });

  it('refuses a table name that is not plain SQL', () => {
    expect(() => createPostgresClaimStore(pool, { table: 'x; DROP TABLE users' })).toThrow(TypeError);
  });
});
