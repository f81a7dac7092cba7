/**
 * The shop on PostgreSQL, its connection dropped at the worst moment of a write's commit (a TCP
 * proxy between the shop's connections and the server): the COMMIT reached the server and its
 * reply was lost, it never reached it, or the connection dropped while the server was still
 * committing. Was: the connection's error, which execute_sql answered as a refusal — nothing done —
 * beside a write the server had kept; then, outcome unknown every time. Now opsdesk asks the
 * database (on its own connection) what became of the transaction: kept, rolled back, or —
 * only when the database will not say in time — unknown. A COMMIT the server itself refuses (a
 * deferred constraint) is still a plain refusal: rolled back, known.
 */
import pg from 'pg';
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
  let url: string;
  beforeAll(async () => {
    server = await startPostgres();
    url = await server.database('opsdesk');
    store = await openPostgresStore(url);
    proxy = await commitCuttingProxy(server.port);
    // Only the shop's own connections go through the proxy; opsdesk's store does not.
    // One connection: every statement follows the one before on it (the seed's first).
    shop = await startPostgresShop(store, proxy.url.replace(/\/postgres$/, '/opsdesk'), {
      workers: 1,
      // Ten times the short commit below, half the long one: load cannot move either across it.
      settleMs: 3_000,
    });
    // A table whose rows are checked at COMMIT, taking as long as each row says: meanwhile the
    // transaction is still in progress. Made by the server's superuser, handed to the shop's role.
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    try {
      await admin.query(`CREATE TABLE shop.slow_writes (note text NOT NULL, seconds float NOT NULL);
        CREATE FUNCTION shop.slow_check() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN PERFORM pg_sleep(NEW.seconds); RETURN NULL; END $$;
        CREATE CONSTRAINT TRIGGER slow_check AFTER INSERT ON shop.slow_writes
          DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION shop.slow_check();
        ALTER TABLE shop.slow_writes OWNER TO opsdesk_shop_opsdesk;`);
    } finally {
      await admin.end();
    }
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

  const notesOf = async (note: string) =>
    (await shop.read('bob', `SELECT COUNT(*)::int AS n FROM slow_writes WHERE note = '${note}'`)).rows;

  it('the server committed and its reply was lost: asked, the database says it was kept, and it is', async () => {
    const cut = proxy.arm('COMMIT', 'reply');
    const ran = await outcomeOf(
      shop.execute('alice', "UPDATE customers SET city = 'Oslo' WHERE id = 1", { unasked: true }),
    );
    await cut;
    expect(ran).toMatchObject({ value: { kept: true, execution: { tables: { customers: { updated: 1 } } } } });
    expect(await cityOf(1)).toEqual([{ city: 'Oslo' }]);
  });

  it('the COMMIT never reached the server: asked, the database says it rolled back, and nothing was kept', async () => {
    const cut = proxy.arm('COMMIT', 'message');
    const ran = await outcomeOf(
      shop.execute('alice', "UPDATE customers SET city = 'Bergen' WHERE id = 2", { unasked: true }),
    );
    await cut;
    expect(ran).toEqual({ code: 'ROLLED_BACK' });
    expect(await cityOf(2)).not.toEqual([{ city: 'Bergen' }]);
  });

  it('the connection dropped while the server was still committing (300 ms): the answer waits for it, and it was kept', async () => {
    const cut = proxy.arm('COMMIT', 'sent');
    const ran = await outcomeOf(
      shop.execute('alice', "INSERT INTO slow_writes VALUES ('late', 0.3)", { unasked: true }),
    );
    await cut;
    expect(ran).toMatchObject({ value: { kept: true, execution: { tables: { slow_writes: { inserted: 1 } } } } });
    expect(await notesOf('late')).toEqual([{ n: 1 }]);
  });

  it('still committing when the time it may wait is up: unknown, never a refusal — and it was kept after all', async () => {
    const cut = proxy.arm('COMMIT', 'sent');
    const ran = await outcomeOf(
      shop.execute('alice', "INSERT INTO slow_writes VALUES ('later', 6)", { unasked: true }),
    );
    await cut;
    expect(ran).toEqual({ code: 'OUTCOME_UNKNOWN' });
    // The server goes on committing with nobody to answer: the row appears once it has.
    await expect.poll(() => notesOf('later'), { timeout: 15_000, interval: 100 }).toEqual([{ n: 1 }]);
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
