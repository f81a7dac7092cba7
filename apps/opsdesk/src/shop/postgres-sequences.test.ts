/**
 * execute_sql on the Postgres shop: a sequence is state the rows do not show. A value it gave out
 * is never taken back by a rollback, and a statement could set one back (every later insert
 * collides with a row already there), set it to its bound (every insert fails) or change what it
 * gives out — and was measured as "no rows changed", so it ran unasked. Now a run that moves a
 * sequence other than by the values its inserted rows took, or alters one, is a change to that
 * sequence: asked about, naming it, and nothing kept until the person confirms. Real PostgreSQL,
 * opsdesk over real HTTP, 2026-07-28 rounds.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { accept, wireRound } from '../../../../test/support/modern-wire.js';
import { withPostgres } from '../../../../test/support/postgres-server.js';
import { usePostgresOpsdesk } from '../../test/postgres-opsdesk.js';

const POSTGRES = withPostgres('apps/opsdesk/src/shop/postgres-sequences.test.ts');

interface Round {
  structuredContent?: Record<string, unknown>;
  inputRequests?: { confirm?: { params: { message: string } } };
  requestState?: string;
  isError?: boolean;
  content?: unknown;
}

const SEQUENCES = ['customers_id_seq', 'products_id_seq', 'orders_id_seq', 'order_items_id_seq'];

/** A statement that writes nothing, so that what follows it takes the write path. */
const WRITING = 'WITH w AS (UPDATE shop.orders SET id = id WHERE false RETURNING 1)';

describe.skipIf(!POSTGRES)('execute_sql on Postgres: sequences', () => {
  const opsdesk = usePostgresOpsdesk('ek-pg-sequences-');
  let headers: Record<string, string>;
  beforeAll(async () => {
    headers = await opsdesk.as('vera');
  });

  const round = async (sql: string, extra: object = {}): Promise<Round> =>
    (await wireRound(opsdesk.serving.url, { name: 'execute_sql', arguments: { sql }, ...extra }, { headers }))
      .result as Round;
  const sequence = async (name: string) =>
    (
      await opsdesk.pool.query(
        `SELECT last_value::text AS at, max_value::text AS max FROM pg_sequences WHERE schemaname = 'shop' AND sequencename = $1`,
        [name],
      )
    ).rows[0] as { at: string | null; max: string };

  it.each([
    ['set back to 1', `${WRITING} SELECT setval('shop.customers_id_seq', 1)`],
    ['set to its bound', `${WRITING} SELECT setval('shop.orders_id_seq', 2147483647)`],
    ['made to start over', `${WRITING} SELECT setval('shop.products_id_seq', 1, false)`],
  ])(
    'one of the shop’s own sequences %s: refused by the database, nothing asked, nothing moved',
    async (_label, sql) => {
      const before = await Promise.all(SEQUENCES.map(sequence));
      const result = await round(sql);
      expect(result.inputRequests).toBeUndefined();
      expect(result.structuredContent, JSON.stringify(result)).toMatchObject({ status: 'rejected' });
      expect(JSON.stringify(result.content)).toContain('permission denied for sequence');
      expect(await Promise.all(SEQUENCES.map(sequence))).toEqual(before);
    },
  );

  it.each([
    ['advanced with no row inserted', `${WRITING} SELECT nextval('shop.customers_id_seq')`, 'customers_id_seq'],
    ['altered to step by 1000', 'ALTER SEQUENCE shop.orders_id_seq INCREMENT BY 1000', 'orders_id_seq'],
    [
      'given back the right to be set',
      'GRANT UPDATE ON SEQUENCE shop.products_id_seq TO CURRENT_USER',
      'products_id_seq',
    ],
  ])('a sequence %s is asked about, naming it; declined, nothing of it is kept', async (_label, sql, name) => {
    const before = await sequence(name);
    const first = await round(sql);
    const message = first.inputRequests?.confirm?.params.message;
    expect(message, JSON.stringify(first)).toBeDefined();
    expect(message).toContain(name);
    const declined = await round(sql, {
      inputResponses: { confirm: { action: 'decline' } },
      requestState: first.requestState,
    });
    expect(declined.structuredContent).toMatchObject({ status: 'declined' });
    const after = await sequence(name);
    // A value handed out stays handed out (a gap); nothing else of the run is kept.
    if (sql.includes('nextval')) expect(BigInt(after.at ?? 0)).toBeGreaterThan(BigInt(before.at ?? 0));
    else expect(after).toEqual(before);
    expect((await round(`${WRITING} SELECT setval('shop.products_id_seq', 7)`)).structuredContent).toMatchObject({
      status: 'rejected',
    });
  });

  it('a sequence of a table a person made: set back, asked about, and put back when declined; kept when confirmed', async () => {
    const made = 'CREATE TABLE shop.tickets (id SERIAL PRIMARY KEY, title TEXT NOT NULL)';
    const create = await round(made);
    await round(made, {
      inputResponses: { confirm: accept({ understood: true, typedTableName: 'tickets' }) },
      requestState: create.requestState,
    });
    await opsdesk.pool.query("INSERT INTO shop.tickets (title) SELECT 'ticket ' || g FROM generate_series(1, 30) g");
    const before = await sequence('tickets_id_seq');
    expect(before.at).toBe('30');
    const sql = `${WRITING} SELECT setval('shop.tickets_id_seq', 1)`;
    const first = await round(sql);
    expect(first.inputRequests?.confirm?.params.message).toContain('tickets_id_seq');
    // Measured and rolled back before asking: put back where it was, though setval outlives a rollback.
    expect(await sequence('tickets_id_seq')).toEqual(before);
    await round(sql, { inputResponses: { confirm: { action: 'decline' } }, requestState: first.requestState });
    expect(await sequence('tickets_id_seq')).toEqual(before);
    const again = await round(sql);
    const final = await round(sql, {
      inputResponses: { confirm: accept({ understood: true, typedTableName: 'tickets_id_seq' }) },
      requestState: again.requestState,
    });
    expect(final.structuredContent, JSON.stringify(final)).toMatchObject({ status: 'done' });
    expect((await sequence('tickets_id_seq')).at).toBe('1');
  });

  it('an insert that takes its values from a sequence is not asked about', async () => {
    const before = BigInt((await sequence('customers_id_seq')).at ?? 0);
    const result = await round(
      "INSERT INTO customers (name, email, city, created_at) VALUES ('Ada', 'ada@example.com', 'Oslo', '2026-01-01'), ('Bo', 'bo@example.com', 'Rome', '2026-01-02')",
    );
    expect(result.inputRequests).toBeUndefined();
    expect(result.structuredContent).toMatchObject({ status: 'done', changes: 2 });
    expect(BigInt((await sequence('customers_id_seq')).at ?? 0)).toBeGreaterThan(before);
  });

  it('a read cannot move one: it runs read-only', async () => {
    const before = await sequence('customers_id_seq');
    const result = await round("SELECT setval('shop.customers_id_seq', 1)");
    expect(result.inputRequests).toBeUndefined();
    expect(result.structuredContent?.status).not.toBe('done');
    expect(await sequence('customers_id_seq')).toEqual(before);
  });
});
