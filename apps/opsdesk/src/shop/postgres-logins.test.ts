/**
 * execute_sql on the Postgres shop: one user's statement may not stop, or read, another user's
 * statement running beside it. Every shop connection logged in as the one shop role, and Postgres
 * lets a role cancel or terminate its own connections and read their statements: a read of
 * `pg_stat_activity` showed another user's SQL as it ran, and `pg_terminate_backend` on it cut
 * their statement (a COMMIT mid-flight left them "outcome unknown"). Now each connection logs in
 * as a login of its own, acting as the shop's role. Real PostgreSQL, opsdesk over real HTTP.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { wireRound } from '../../../../test/support/modern-wire.js';
import { withPostgres } from '../../../../test/support/postgres-server.js';
import { usePostgresOpsdesk } from '../../test/postgres-opsdesk.js';

const POSTGRES = withPostgres('apps/opsdesk/src/shop/postgres-logins.test.ts');

interface Round {
  structuredContent?: { status?: string; rows?: Record<string, unknown>[]; message?: string };
}

describe.skipIf(!POSTGRES)('execute_sql on Postgres: another user’s statement', () => {
  const opsdesk = usePostgresOpsdesk('ek-pg-logins-');
  let vera: Record<string, string>;
  let mallory: Record<string, string>;
  beforeAll(async () => {
    vera = await opsdesk.as('vera');
    mallory = await opsdesk.as('mallory');
  });

  const run = async (headers: Record<string, string>, sql: string): Promise<Round> =>
    (await wireRound(opsdesk.serving.url, { name: 'execute_sql', arguments: { sql } }, { headers })).result as Round;
  /**
   * Vera's statement, held running: it reads a table the test has locked, and waits on the lock
   * until `release` (seen waiting in pg_locks, which shows every connection's locks).
   */
  const held = async (marker: string) => {
    const lock = await opsdesk.pool.connect();
    await lock.query('BEGIN; LOCK TABLE shop.customers IN ACCESS EXCLUSIVE MODE');
    const slow = run(vera, `SELECT count(*) AS n, '${marker}' AS marker FROM customers`);
    for (;;) {
      const { rowCount } = await opsdesk.pool.query(
        "SELECT 1 FROM pg_locks WHERE relation = 'shop.customers'::regclass AND NOT granted",
      );
      if (rowCount) break;
      await new Promise((r) => setTimeout(r, 20));
    }
    return {
      slow,
      release: async () => {
        await lock.query('ROLLBACK');
        lock.release();
      },
    };
  };

  it.each([
    ['terminate', 'pg_terminate_backend'],
    ['cancel', 'pg_cancel_backend'],
  ])('cannot %s it: refused, and it runs to its end', async (_label, fn) => {
    const marker = `vera_${fn}`;
    const vera = await held(marker);
    const stop = await run(
      mallory,
      `SELECT pid, ${fn}(pid) FROM pg_stat_activity WHERE pid <> pg_backend_pid() AND datname = current_database() AND usename LIKE 'opsdesk_shop_%'`,
    ).finally(() => vera.release());
    expect(stop.structuredContent?.status, JSON.stringify(stop)).toBe('rejected');
    expect(stop.structuredContent?.message).toMatch(/must be a member of the role whose (process|query) is being/);
    expect((await vera.slow).structuredContent).toMatchObject({ status: 'done', rows: [{ marker }] });
  });

  it('cannot read it', async () => {
    const marker = 'vera_secret_literal';
    const vera = await held(marker);
    const seen = await run(mallory, 'SELECT query FROM pg_stat_activity WHERE pid <> pg_backend_pid()').finally(() =>
      vera.release(),
    );
    expect(seen.structuredContent?.status).toBe('done');
    expect(JSON.stringify(seen.structuredContent)).not.toContain(marker);
    expect((await vera.slow).structuredContent).toMatchObject({ status: 'done', rows: [{ marker }] });
  });

  it('each statement acts as the shop’s role: what it makes, the next connection may change', async () => {
    const owner = await run(vera, 'SELECT current_user AS acting, session_user AS login');
    const row = owner.structuredContent?.rows?.[0] as { acting: string; login: string };
    expect(row.acting).toMatch(/^opsdesk_shop_opsdesk$/);
    expect(row.login).toMatch(/^opsdesk_shop_opsdesk_\d+$/);
  });
});
