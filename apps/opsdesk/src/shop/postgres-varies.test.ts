/**
 * execute_sql on the Postgres shop: what makes another run of a statement differ is judged per
 * function as Postgres defines it, not by its name's worst namesake. `generate_series(1, 300)`,
 * `length(email)` or `date_trunc('day', …)` share their names with an overload that is not
 * immutable (over timestamptz, or bytea with an encoding), yet depend only on the data and the
 * session settings, which opsdesk owns: each is counted from its run, and a confirmed insert of
 * 300 rows into a ten-row table is kept. The clock, the transaction and the connection still make
 * a statement vary. Real PostgreSQL, opsdesk over real HTTP, 2026-07-28 rounds.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { accept, wireRound } from '../../../../test/support/modern-wire.js';
import { withPostgres } from '../../../../test/support/postgres-server.js';
import { usePostgresOpsdesk } from '../../test/postgres-opsdesk.js';

const POSTGRES = withPostgres('apps/opsdesk/src/shop/postgres-varies.test.ts');

interface Round {
  structuredContent?: Record<string, unknown>;
  inputRequests?: { confirm?: { params: { message: string } } };
  requestState?: string;
}

describe.skipIf(!POSTGRES)('execute_sql on Postgres: what varies from run to run', () => {
  const opsdesk = usePostgresOpsdesk('ek-pg-varies-');
  let headers: Record<string, string>;
  beforeAll(async () => {
    headers = await opsdesk.as('vera');
  });

  const call = (sql: string) => ({ name: 'execute_sql', arguments: { sql } });
  const round = async (sql: string, extra: object = {}): Promise<Round> =>
    (await wireRound(opsdesk.serving.url, { ...call(sql), ...extra }, { headers })).result as Round;
  const count = async (table: string) =>
    Number((await opsdesk.pool.query(`SELECT count(*) AS n FROM shop.${table}`)).rows[0].n);
  /** Asks, then answers the question as the person would, typing the table it names. */
  const confirmed = async (sql: string, table: string) => {
    const first = await round(sql);
    const message = first.inputRequests?.confirm?.params.message;
    expect(message, sql).toBeDefined();
    const final = await round(sql, {
      inputResponses: { confirm: accept({ understood: true, typedTableName: table }) },
      requestState: first.requestState,
    });
    return { message: message as string, result: final.structuredContent };
  };

  it('an insert of 300 rows from generate_series(1, 300) into a ten-row table is counted, shown and kept', async () => {
    const before = await count('products');
    expect(before).toBeLessThan(100);
    const sql =
      "INSERT INTO products (id, name, price_cents, stock) SELECT 5000 + g, 'bulk ' || g, 100, 1 FROM generate_series(1, 300) g";
    const { message, result } = await confirmed(sql, 'products');
    expect(message).not.toContain('differs from run to run');
    expect(message).toContain('300');
    expect(result).toMatchObject({ status: 'done', totalChanges: 300 });
    expect(await count('products')).toBe(before + 300);
  });

  it.each([
    ['length(email) > 0', 'customers'],
    ["date_trunc('day', created_at::timestamp) IS NOT NULL", 'customers'],
    ["extract(year FROM created_at::date) > 1900 AND to_char(42, '999') <> ''", 'customers'],
    ["name <> 'now and then' AND email <> 'nowhere' || 'today@x'", 'customers'],
  ])('every row WHERE %s: counted from its run, not stated as varying', async (where, table) => {
    const rows = await count(table);
    const { message, result } = await confirmed(`UPDATE ${table} SET name = name WHERE ${where}`, table);
    expect(message).not.toContain('differs from run to run');
    expect(result).toMatchObject({ status: 'done', totalChanges: rows });
  });

  it.each([
    ['now() > created_at::timestamptz', 'now'],
    ["statement_timestamp() > '2000-01-01'", 'statement_timestamp'],
    ['age(created_at::timestamp) IS NOT NULL', 'age'],
    ['pg_backend_pid() > 0', 'pg_backend_pid'],
    ['txid_current() > 0', 'txid_current'],
    ['random() < 2', 'random'],
    // The clock read from a literal: Postgres takes 'now' when it reads the statement, each run anew.
    ["created_at::timestamptz < 'now'", 'now'],
    ["created_at::timestamptz < ' Now '::text::timestamptz", 'now'],
    ["created_at::date <= 'today'", 'current_date'],
    ["created_at::date < date 'tomorrow' AND name <> 'nowhere'", 'current_date'],
  ])('every row WHERE %s: the bound is stated, naming %s()', async (where, fn) => {
    const first = await round(`UPDATE customers SET name = name WHERE ${where}`);
    const message = first.inputRequests?.confirm?.params.message ?? '';
    expect(message).toContain('differs from run to run');
    expect(message).toContain(`${fn}()`);
  });

  it('a function of the shop’s own, stable as Postgres allows, still makes the statement vary', async () => {
    await opsdesk.pool.query(
      'CREATE FUNCTION shop.ek_today_rows() RETURNS bigint LANGUAGE sql STABLE AS $$ SELECT extract(epoch FROM now())::bigint $$',
    );
    await opsdesk.pool.query('GRANT EXECUTE ON FUNCTION shop.ek_today_rows() TO PUBLIC');
    const first = await round('UPDATE customers SET name = name WHERE ek_today_rows() > 0');
    expect(first.inputRequests?.confirm?.params.message ?? '').toContain('ek_today_rows()');
  });
});
