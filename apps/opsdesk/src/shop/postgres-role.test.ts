/**
 * execute_sql on the Postgres shop: what lies outside the shop's tables and schema. The role every
 * statement runs as is opsdesk's — its settings are the bounds each connection starts with, its
 * password how opsdesk connects — and large objects are stored outside every table. A statement
 * changing the role's settings (`ALTER ROLE … SET default_transaction_read_only = on` made every
 * later write fail) or making large objects (disk no table shows) was measured as "no rows
 * changed" and kept, unasked. Now both are refused, whatever form the statement takes, and nothing
 * of it is kept; a password changed behind opsdesk's back (dynamic SQL no measure reads) is set
 * back when a connection is refused for it. Real PostgreSQL, opsdesk over real HTTP.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { wireRound } from '../../../../test/support/modern-wire.js';
import { withPostgres } from '../../../../test/support/postgres-server.js';
import { usePostgresOpsdesk } from '../../test/postgres-opsdesk.js';

const POSTGRES = withPostgres('apps/opsdesk/src/shop/postgres-role.test.ts');

interface Round {
  structuredContent?: Record<string, unknown>;
  inputRequests?: unknown;
}

describe.skipIf(!POSTGRES)('execute_sql on Postgres: the role and what lies outside the tables', () => {
  const opsdesk = usePostgresOpsdesk('ek-pg-role-');
  let headers: Record<string, string>;
  beforeAll(async () => {
    headers = await opsdesk.as('vera');
  });

  const run = async (sql: string): Promise<Round> =>
    (await wireRound(opsdesk.serving.url, { name: 'execute_sql', arguments: { sql } }, { headers })).result as Round;
  const role = async () =>
    (await opsdesk.pool.query("SELECT rolconfig::text AS config FROM pg_roles WHERE rolname LIKE 'opsdesk_shop_%'"))
      .rows[0]?.config as string;
  const largeObjects = async () =>
    Number((await opsdesk.pool.query('SELECT count(*) AS n FROM pg_largeobject_metadata')).rows[0].n);

  it.each([
    ['said plainly', "ALTER ROLE CURRENT_USER SET work_mem = '1GB'"],
    ['after a nested comment', '/* /* */ */ ALTER ROLE CURRENT_USER SET statement_timeout = 0'],
    ['after a comment ended by a carriage return', '-- just a read\rALTER USER CURRENT_USER SET lock_timeout = 1'],
    [
      'in a DO block',
      "DO $$ BEGIN EXECUTE 'ALTER ROLE ' || quote_ident(current_user) || ' SET default_transaction_read_only = on'; END $$",
    ],
  ])('a change to the role’s settings %s is refused, nothing kept', async (_label, sql) => {
    const before = await role();
    const result = await run(sql);
    expect(result.inputRequests).toBeUndefined();
    expect(result.structuredContent, JSON.stringify(result)).toMatchObject({ status: 'rejected' });
    expect(String(result.structuredContent?.message)).toContain('does not change roles');
    expect(await role()).toBe(before);
    // Writes still work.
    expect((await run("UPDATE customers SET city = 'Oslo' WHERE id = 1")).structuredContent?.status).toBe('done');
  });

  it('a session setting made in a write is no change to the role: it ends with the connection’s use', async () => {
    const sql =
      "WITH w AS (UPDATE shop.orders SET id = id WHERE false RETURNING 1) SELECT set_config('work_mem', '64MB', false)";
    expect((await run(sql)).structuredContent?.status).toBe('done');
    const after = await run("SELECT current_setting('work_mem') AS w");
    expect(after.structuredContent).toMatchObject({ rows: [{ w: '4MB' }] });
  });

  it.each([
    [
      'in a write',
      "WITH w AS (UPDATE shop.orders SET id = id WHERE false RETURNING 1) SELECT lo_from_bytea(0, 'x'::bytea)",
    ],
    ['in a DO block', "DO $$ BEGIN PERFORM lo_from_bytea(0, decode(repeat('ab', 1000), 'hex')); END $$"],
  ])('a large object made %s is refused, nothing kept', async (_label, sql) => {
    const before = await largeObjects();
    const result = await run(sql);
    expect(result.structuredContent, JSON.stringify(result)).toMatchObject({ status: 'rejected' });
    expect(String(result.structuredContent?.message)).toContain('large objects');
    expect(await largeObjects()).toBe(before);
  });

  it('a password changed by dynamic SQL is set back when a new connection is refused for it', async () => {
    const changed = await run(
      "DO $$ BEGIN EXECUTE 'ALTER ROLE ' || quote_ident(current_user) || ' PASSWORD ' || quote_literal('changed-by-a-statement'); END $$",
    );
    expect(changed.structuredContent?.status).toBe('done');
    // Every connection of the shop goes: the next must be made anew, with opsdesk's password.
    await opsdesk.pool.query(
      "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename LIKE 'opsdesk_shop_%' AND pid <> pg_backend_pid()",
    );
    const after = await run('SELECT count(*) AS n FROM customers');
    expect(after.structuredContent, JSON.stringify(after)).toMatchObject({ status: 'done' });
  });
});
