/**
 * The shop on PostgreSQL, its connection dropped at the worst moment of a write's commit (a TCP
 * proxy between the shop's connections and the server): the COMMIT reached the server and its
 * reply was lost, or it never reached it. Was: the connection's error, which execute_sql answers
 * as a refusal — nothing done — beside a write the server had kept. Now either way the outcome is
 * unknown: opsdesk cannot tell which happened. A COMMIT the server itself refuses (a deferred
 * constraint) is still a plain refusal: rolled back, known.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commitCuttingProxy } from '../../../../test/support/postgres-cutting-proxy.js';
import { startPostgres, type TestPostgres, withPostgres } from '../../../../test/support/postgres-server.js';
import { openPostgresStore, type PostgresStore } from '../db/postgres-store.js';
import { type ShopClient, ShopError } from './client.js';
import { allowanceFor } from './effect.js';
import { startPostgresShop } from './postgres-shop.js';

const POSTGRES = withPostgres('apps/opsdesk/src/shop/postgres-lost-commit.test.ts');

describe.skipIf(!POSTGRES)('the Postgres shop: a commit whose connection drops', () => {
  let server: TestPostgres;
  let store: PostgresStore;
  let proxy: Awaited<ReturnType<typeof commitCuttingProxy>>;
  let shop: ShopClient;
  beforeAll(async () => {
    server = await startPostgres();
    const url = await server.database('opsdesk');
    store = await openPostgresStore(url);
    proxy = await commitCuttingProxy(server.port);
    // Only the shop's own connections go through the proxy; opsdesk's store does not.
    // One connection: every statement follows the one before on it (the seed's first).
    shop = await startPostgresShop(store, proxy.url.replace(/\/postgres$/, '/opsdesk'), { workers: 1 });
  }, 120_000);
  afterAll(async () => {
    await shop?.close();
    await proxy?.close();
    await store?.pool.end();
    await server?.stop();
  });

  const outcomeOf = (p: Promise<unknown>) =>
    p.then(
      (value) => ({ value }),
      (error: unknown) => ({ code: error instanceof ShopError ? error.code : String(error) }),
    );
  const cityOf = async (id: number) =>
    (await shop.read('bob', `SELECT city FROM customers WHERE id = ${id}`)).rows as { city: string }[];

  // Was: the statistics of the seed (run on the same connection just before) counted as this
  // statement's: a one-row update measured as a wipe of every table, and asked about as one.
  it('a write right after another on the same connection is measured alone', async () => {
    const one = await shop.execute('carol', "UPDATE customers SET city = 'Lima' WHERE id = 3", { unasked: true });
    expect(one).toMatchObject({
      kept: true,
      execution: { tables: { customers: { updated: 1, inserted: 0, deleted: 0 } } },
    });
    const two = await shop.execute('carol', "UPDATE customers SET city = 'Quito' WHERE id = 4", { unasked: true });
    expect(two).toMatchObject({
      kept: true,
      execution: { tables: { customers: { updated: 1, inserted: 0, deleted: 0 } } },
    });
    for (const run of [one, two])
      if ('execution' in run)
        for (const [name, t] of Object.entries(run.execution.tables))
          if (name !== 'customers') expect(t, name).toMatchObject({ inserted: 0, updated: 0, deleted: 0 });
  });

  it('the server committed and its reply was lost: unknown, and the write is there', async () => {
    const cut = proxy.arm('COMMIT', 'reply');
    const ran = await outcomeOf(
      shop.execute('alice', "UPDATE customers SET city = 'Oslo' WHERE id = 1", { unasked: true }),
    );
    await cut;
    expect(ran).toEqual({ code: 'OUTCOME_UNKNOWN' });
    expect(await cityOf(1)).toEqual([{ city: 'Oslo' }]);
  });

  it('the COMMIT never reached the server: unknown too (nobody here can tell), and nothing was kept', async () => {
    const cut = proxy.arm('COMMIT', 'message');
    const ran = await outcomeOf(
      shop.execute('alice', "UPDATE customers SET city = 'Bergen' WHERE id = 2", { unasked: true }),
    );
    await cut;
    expect(ran).toEqual({ code: 'OUTCOME_UNKNOWN' });
    expect(await cityOf(2)).not.toEqual([{ city: 'Bergen' }]);
  });

  it('a COMMIT the server refuses (a deferred constraint): a known refusal, rolled back', async () => {
    // Creating a table is asked about: kept here within what its own measured run did.
    const create =
      'CREATE TABLE ek_deferred (id int PRIMARY KEY, parent int REFERENCES customers (id) DEFERRABLE INITIALLY DEFERRED)';
    const measured = await shop.execute('alice', create, { unasked: true });
    if ('execution' in measured && !measured.kept)
      expect(await shop.execute('alice', create, { allowed: allowanceFor(measured.execution) })).toMatchObject({
        kept: true,
      });
    const ran = await outcomeOf(shop.execute('alice', 'INSERT INTO ek_deferred VALUES (1, -1)', { unasked: true }));
    expect(ran).not.toEqual({ code: 'OUTCOME_UNKNOWN' });
    expect(JSON.stringify(ran)).toMatch(/foreign key|SQL_RUNTIME|error/i);
    expect((await shop.read('bob', 'SELECT COUNT(*)::int AS n FROM ek_deferred')).rows).toEqual([{ n: 0 }]);
  });
});
