/**
 * The Postgres claim store on a server that would forget what it acknowledged (`fsync`,
 * `synchronous_commit` or `full_page_writes` off). Was: accepted, while the Redis store refuses a
 * Redis that would forget (ClaimStoreNotDurableError): a crash losing a claim lets a replayed call
 * act again. Now refused the same way, before the first claim and after each new connection,
 * unless the store is told it is volatile.
 */
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { startPostgres, withPostgres } from '../../../../test/support/postgres-server.js';
import { ClaimStoreNotDurableError, createPostgresClaimStore } from './postgres.js';

const POSTGRES = withPostgres('claims/postgres-durability.test.ts');
const LEASE = { leaseMs: 1_000, ttlMs: 60_000 };

describe.skipIf(!POSTGRES)('a PostgreSQL that would forget claims (real servers)', () => {
  const closing: (() => Promise<unknown>)[] = [];
  afterEach(async () => {
    for (const close of closing.splice(0).reverse()) await close();
  });
  const serve = async (options: { forgetful?: boolean }) => {
    const server = await startPostgres(options);
    closing.push(() => server.stop());
    const pool = new pg.Pool({ connectionString: server.url, max: 2 });
    pool.on('error', () => {}); // an idle connection terminated by the test
    closing.push(() => pool.end());
    return { server, pool };
  };

  it('refuses fsync, synchronous_commit and full_page_writes off, and claims nothing; volatile: true accepts it', async () => {
    const { pool } = await serve({ forgetful: true });
    const store = createPostgresClaimStore(pool, { table: 'forgetful' });
    const refused = await store.claim('call-1', 'a', LEASE).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(ClaimStoreNotDurableError);
    expect(refused).toMatchObject({ code: 'CLAIMS_NOT_DURABLE' });
    expect((refused as Error).message).toContain('fsync = off, synchronous_commit = off, full_page_writes = off');
    await expect(store.read('call-1')).rejects.toBeInstanceOf(ClaimStoreNotDurableError);
    await expect(store.atomicallyAsync?.('call-1', 60_000, async () => '"r"', { waitMs: 1_000 })).rejects.toMatchObject(
      {
        code: 'CLAIMS_NOT_DURABLE',
      },
    );
    expect((await pool.query('SELECT count(*)::int AS n FROM forgetful')).rows[0]?.n).toBe(0);
    const volatile = createPostgresClaimStore(pool, { table: 'forgetful', volatile: true });
    expect(await volatile.claim('call-1', 'a', LEASE)).toEqual({ state: 'claimed' });
  });

  it("checks again on a new connection: a role's synchronous_commit = off set meanwhile is refused", async () => {
    const { pool } = await serve({});
    const store = createPostgresClaimStore(pool, { table: 'rechecked' });
    expect(await store.claim('call-1', 'a', LEASE)).toEqual({ state: 'claimed' });
    await pool.query('ALTER ROLE postgres SET synchronous_commit = off');
    // The pool's connections end (a restart, a failover): the next ones see the new setting.
    await pool
      .query(
        'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE pid <> pg_backend_pid() AND usename = current_user',
      )
      .catch(() => {});
    await pool.query('SELECT pg_terminate_backend(pg_backend_pid())').catch(() => {});
    // The operation that opens a new connection runs on it; the next one is checked first.
    await store.read('call-1');
    const refused = await store.claim('call-2', 'a', LEASE).catch((e: unknown) => e);
    expect(refused).toMatchObject({ code: 'CLAIMS_NOT_DURABLE' });
    expect((refused as Error).message).toContain('synchronous_commit = off');
    await pool.query('ALTER ROLE postgres RESET synchronous_commit');
    await pool
      .query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = current_user')
      .catch(() => {});
    expect(await store.claim('call-2', 'a', LEASE)).toEqual({ state: 'claimed' });
  });

  it('accepts synchronous_commit = local (flushed on this server before it answers)', async () => {
    const { pool } = await serve({});
    await pool.query('ALTER ROLE postgres SET synchronous_commit = local');
    await pool
      .query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = current_user')
      .catch(() => {});
    const store = createPostgresClaimStore(pool, { table: 'local' });
    expect(await store.claim('call-1', 'a', LEASE)).toEqual({ state: 'claimed' });
  });
});
