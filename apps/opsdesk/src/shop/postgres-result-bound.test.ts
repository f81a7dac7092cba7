/**
 * execute_sql on opsdesk's Postgres shop, over HTTP: what one statement sends back is bounded in
 * opsdesk's own process, whatever the statement is. Was: a write's rows (`… RETURNING`) were all
 * buffered by node-postgres, and any answer — a read's batch, one enormous value, the schema's
 * definitions read to measure a write — was taken whole: one statement could exhaust the server's
 * heap for every user. Now rows come through a cursor in batches, at most SHOP_RESULT_BYTES of
 * answers are taken per statement (past it the connection is dropped: the write rolled back, told
 * in the caller's language), and the shop role's temporary files are bounded on the server.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accept, wireRound } from '../../../../test/support/modern-wire.js';
import { startPostgres, type TestPostgres, withPostgres } from '../../../../test/support/postgres-server.js';
import { createOpsdesk } from '../opsdesk.js';
import { type HttpServing, serveHttp } from '../serve-http.js';

const POSTGRES = withPostgres('apps/opsdesk/src/shop/postgres-result-bound.test.ts');

interface Result {
  isError?: boolean;
  structuredContent?: Record<string, unknown>;
  inputRequests?: { confirm?: { params: { message: string } } };
  requestState?: string;
  content?: { text: string }[];
}

describe.skipIf(!POSTGRES)('execute_sql on Postgres: a statement’s answer is bounded in opsdesk', () => {
  let server: TestPostgres;
  let serving: HttpServing;
  let pool: pg.Pool;
  let headers: Record<string, string>;
  const dir = mkdtempSync(join(tmpdir(), 'ek-opsdesk-pg-bound-'));

  beforeAll(async () => {
    server = await startPostgres();
    const url = await server.database('opsdesk');
    pool = new pg.Pool({ connectionString: url });
    serving = await serveHttp({ dataDir: dir, database: url, locale: 'en', port: 0 });
    headers = { authorization: `Bearer ${await serving.ownerToken('frank')}` };
  }, 120_000);
  afterAll(async () => {
    await serving?.close();
    await pool?.end();
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  const call = async (sql: string, more: Record<string, unknown> = {}) =>
    (await wireRound(serving.url, { name: 'execute_sql', arguments: { sql }, ...more }, { headers })).result as Result;
  const confirmed = async (sql: string, first: Result, table: string) =>
    call(sql, {
      inputResponses: { confirm: accept({ understood: true, typedTableName: table }) },
      requestState: first.requestState as string,
    });
  const cityOf = async (id: number) =>
    (await pool.query('SELECT city FROM shop.customers WHERE id = $1', [id])).rows[0]?.city as string;
  const customers = async () => Number((await pool.query('SELECT count(*) AS n FROM shop.customers')).rows[0].n);
  const memoryRefusal = /needed more than the 64 MiB of memory the shop allows a statement\. Nothing it did was kept/;

  it('a write returning one enormous value is rolled back and refused for memory, in the caller’s words', async () => {
    const before = await cityOf(7);
    // `id * 0`: a value made as the row is, not a constant the plan (and its EXPLAIN) would hold.
    const result = await call(
      "UPDATE customers SET city = 'Oslo' WHERE id = 7 RETURNING repeat('x', 100000000 + id * 0) AS big",
    );
    expect(result.structuredContent).toMatchObject({ status: 'rejected' });
    expect(String(result.structuredContent?.message)).toMatch(memoryRefusal);
    expect(await cityOf(7)).toBe(before);
    // The shop goes on: the same write without the value is kept.
    const again = await call("UPDATE customers SET city = 'Oslo' WHERE id = 7 RETURNING id");
    expect(again.structuredContent).toMatchObject({ status: 'done', totalChanges: 1, rows: [{ id: 7 }] });
    expect(await cityOf(7)).toBe('Oslo');
  });

  it('a data-modifying WITH whose rows are many small ones is kept, its rows capped as a read’s', async () => {
    const before = await cityOf(8);
    // 800,000 rows of ~100 bytes: more than the bound were they all taken, never taken all.
    const sql =
      "WITH u AS (UPDATE customers SET city = 'Bergen' WHERE id = 8 RETURNING id) SELECT g, repeat('y', 100) AS pad FROM u, generate_series(1, 800000) g";
    const result = await call(sql);
    expect(before).not.toBe('Bergen');
    expect(result.structuredContent).toMatchObject({
      status: 'done',
      totalChanges: 1,
      rowCount: 10_000,
      complete: false,
    });
    expect(result.structuredContent?.rows).toHaveLength(200);
    expect(await cityOf(8)).toBe('Bergen');
  });

  it('INSERT … RETURNING * of more rows than are counted asks with the exact rows inserted, and keeps them confirmed', async () => {
    const before = await customers();
    const sql =
      "INSERT INTO customers (id, name, email, city, created_at) SELECT 100000 + o.id * 100 + c.id, 'n', 'e', 'c', 'd' FROM orders o, customers c WHERE c.id <= 25 RETURNING *";
    const first = await call(sql);
    expect(first.inputRequests?.confirm?.params.message).toContain('30000');
    expect(await customers()).toBe(before);
    const kept = await confirmed(sql, first, 'customers');
    expect(kept.structuredContent, JSON.stringify(kept.structuredContent)).toMatchObject({
      status: 'done',
      totalChanges: 30_000,
      changes: 30_000,
      rowCount: 10_000,
      complete: false,
    });
    expect(await customers()).toBe(before + 30_000);
  });

  it('a read of one enormous value stops for size before taking it, and says so', async () => {
    const result = await call("SELECT n, repeat('z', n) AS big FROM generate_series(100000000, 100000000) n");
    expect(result.structuredContent, JSON.stringify(result.structuredContent)).toMatchObject({
      status: 'done',
      rowCount: 0,
      complete: false,
    });
    expect(result.content?.[0]?.text).toMatch(/^The result is too large: the read was stopped after 0 rows/);
  });

  it('a read of many large rows shows those that fit, not a refusal', async () => {
    const result = await call("SELECT g, repeat('w', 1000000) AS big FROM generate_series(1, 500) g");
    expect(result.structuredContent).toMatchObject({ status: 'done', complete: false });
    const count = result.structuredContent?.rowCount as number;
    expect(count).toBeGreaterThan(0);
    expect(result.content?.[0]?.text).toMatch(/^The result is too large: the read was stopped after/);
  });

  it('a statement whose plan holds an enormous constant is refused for memory when it is looked at', async () => {
    // The planner folds `repeat('z', 100000000)` into a constant of 100 MB, which EXPLAIN shows.
    const result = await call("SELECT 1 AS n, repeat('z', 100000000) AS big");
    expect(result.structuredContent).toMatchObject({ status: 'rejected' });
    expect(String(result.structuredContent?.message)).toMatch(memoryRefusal);
  });

  it('a schema object of enormous definition does not make every later write fetch it', async () => {
    // A function of 36 MB in the shop (made earlier, by a statement given more time): each write
    // reads the schema before and after it.
    const planting = await pool.connect();
    try {
      await planting.query('SET ROLE opsdesk_shop_opsdesk');
      await planting.query(
        "DO $$ BEGIN EXECUTE 'CREATE FUNCTION shop.huge() RETURNS int LANGUAGE sql AS ' || quote_literal('SELECT 1 -- ' || repeat('x', 36000000)); END $$",
      );
      await planting.query('RESET ROLE');
    } finally {
      planting.release();
    }
    const write = await call("UPDATE customers SET city = 'Tromso' WHERE id = 9");
    expect(write.structuredContent, JSON.stringify(write.structuredContent)).toMatchObject({
      status: 'done',
      totalChanges: 1,
    });
    expect(await cityOf(9)).toBe('Tromso');
    // Changed, it is seen changed: the digest is of the whole definition.
    const replaced = await call("CREATE OR REPLACE FUNCTION huge() RETURNS int LANGUAGE sql AS 'SELECT 2'");
    expect(replaced.inputRequests?.confirm?.params.message).toContain('huge()');
  }, 120_000);

  it('a statement spilling past the shop role’s temporary-file limit is refused by PostgreSQL', async () => {
    const result = await call(
      'SELECT count(*) AS n FROM (SELECT DISTINCT repeat(md5(g::text), 40) FROM generate_series(1, 300000) g) s',
    );
    expect(result.structuredContent).toMatchObject({ status: 'rejected' });
    expect(String(result.structuredContent?.message)).toMatch(/PostgreSQL refused the statement: .*temp_file_limit/);
  });

  it('the shop role’s limits are set when opsdesk’s user may; a user that may not set temp_file_limit still starts', async () => {
    expect(await serving.opsdesk.shop.settings()).toMatchObject({ temp_file_limit: '256MB', work_mem: '4MB' });
    // CREATEROLE, no superuser: temp_file_limit is a superuser's setting.
    await pool.query('CREATE ROLE opsdesk_limited LOGIN CREATEROLE');
    await pool.query('CREATE DATABASE limited OWNER opsdesk_limited');
    const url = new URL(server.url);
    url.username = 'opsdesk_limited';
    url.pathname = '/limited';
    const other = mkdtempSync(join(tmpdir(), 'ek-opsdesk-pg-limited-'));
    const limited = await createOpsdesk({
      dataDir: other,
      database: url.toString(),
      locale: 'en',
      identify: () => 'x',
    });
    try {
      expect(await limited.shop.settings()).toMatchObject({
        role: 'opsdesk_shop_limited',
        temp_file_limit: '-1',
        work_mem: '4MB',
      });
      expect((await limited.shop.read('x', 'SELECT count(*) AS n FROM customers')).count).toBe(1);
    } finally {
      await limited.close();
      rmSync(other, { recursive: true, force: true });
    }
  });
});
