/**
 * execute_sql on opsdesk's Postgres shop, over HTTP, with the shop's connection dropped as a write
 * commits (a TCP proxy in front of PostgreSQL, cutting only the shop role's connections). Was:
 * `rejected` with `outcome: 'unknown'` every time, though opsdesk could ask. Now the person is
 * told what the database says became of it: done when it kept the write, that it was rolled back
 * (and may be sent again) when it did not.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { wireRound } from '../../../test/support/modern-wire.js';
import { commitCuttingProxy } from '../../../test/support/postgres-cutting-proxy.js';
import { startPostgres, type TestPostgres, withPostgres } from '../../../test/support/postgres-server.js';
import { type HttpServing, serveHttp } from './serve-http.js';

const POSTGRES = withPostgres('apps/opsdesk/src/execute-sql-postgres-lost-commit.test.ts');

describe.skipIf(!POSTGRES)('execute_sql on Postgres: the shop connection lost as a write commits', () => {
  let server: TestPostgres;
  let proxy: Awaited<ReturnType<typeof commitCuttingProxy>>;
  let serving: HttpServing;
  let pool: pg.Pool;
  let headers: Record<string, string>;
  const dir = mkdtempSync(join(tmpdir(), 'ek-opsdesk-pg-cut-'));

  beforeAll(async () => {
    server = await startPostgres();
    const url = await server.database('opsdesk');
    pool = new pg.Pool({ connectionString: url });
    proxy = await commitCuttingProxy(server.port);
    // All of opsdesk's connections go through the proxy; only the shop role's are cut.
    serving = await serveHttp({
      dataDir: dir,
      database: url.replace(`127.0.0.1:${server.port}`, new URL(proxy.url).host),
      locale: 'en',
      port: 0,
    });
    headers = { authorization: `Bearer ${await serving.ownerToken('frank')}` };
  }, 120_000);
  afterAll(async () => {
    await serving?.close();
    await proxy?.close();
    await pool?.end();
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  const run = async (sql: string) =>
    (await wireRound(serving.url, { name: 'execute_sql', arguments: { sql } }, { headers })).result as {
      isError?: boolean;
      structuredContent?: Record<string, unknown>;
    };
  const cityOf = async (id: number) => (await pool.query('SELECT city FROM shop.customers WHERE id = $1', [id])).rows;

  it('the database committed and its answer was lost: done, as it happened', async () => {
    const cut = proxy.arm('COMMIT', 'reply', { connection: 'opsdesk_shop' });
    const result = await run("UPDATE customers SET city = 'Tromso' WHERE id = 5");
    await cut;
    expect(result.structuredContent).toMatchObject({ status: 'done', totalChanges: 1, tables: ['customers'] });
    expect(result.isError).not.toBe(true);
    expect(await cityOf(5)).toEqual([{ city: 'Tromso' }]);
  });

  it('the COMMIT never reached the database: rejected, saying it was rolled back and may be sent again', async () => {
    const before = await cityOf(6);
    const cut = proxy.arm('COMMIT', 'message', { connection: 'opsdesk_shop' });
    const result = await run("UPDATE customers SET city = 'Narvik' WHERE id = 6");
    await cut;
    expect(result.isError).toBe(true);
    expect(result.structuredContent).toMatchObject({ status: 'rejected' });
    expect(result.structuredContent?.outcome).toBeUndefined();
    expect(String(result.structuredContent?.message)).toMatch(
      /connection to the database was lost .* rolled it back\. Nothing it did was kept: you may send it again/,
    );
    expect(await cityOf(6)).toEqual(before);
    // Sent again, it is kept.
    expect((await run("UPDATE customers SET city = 'Narvik' WHERE id = 6")).structuredContent).toMatchObject({
      status: 'done',
    });
    expect(await cityOf(6)).toEqual([{ city: 'Narvik' }]);
  });
});
