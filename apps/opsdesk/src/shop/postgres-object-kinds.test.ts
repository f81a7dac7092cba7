/**
 * execute_sql on the Postgres shop: an object is its kind and its name. A trigger's name is its
 * table's own (a trigger may be named `customers`, or `audit` on two tables at once), and one
 * measured by name alone stood for the table of that name — then a column added to the table, or
 * a trigger dropped, looked like nothing at all. Real PostgreSQL, opsdesk over real HTTP,
 * 2026-07-28 rounds.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { accept, wireRound } from '../../../../test/support/modern-wire.js';
import { withPostgres } from '../../../../test/support/postgres-server.js';
import { usePostgresOpsdesk } from '../../test/postgres-opsdesk.js';

const POSTGRES = withPostgres('apps/opsdesk/src/shop/postgres-object-kinds.test.ts');

interface Round {
  structuredContent?: Record<string, unknown>;
  inputRequests?: { confirm?: { params: { message: string } } };
  requestState?: string;
}

describe.skipIf(!POSTGRES)('execute_sql on Postgres: objects of one name and another kind', () => {
  const opsdesk = usePostgresOpsdesk('ek-pg-kinds-');
  let headers: Record<string, string>;
  beforeAll(async () => {
    headers = await opsdesk.as('vera');
  });

  const round = async (sql: string, extra: object = {}): Promise<Round> =>
    (await wireRound(opsdesk.serving.url, { name: 'execute_sql', arguments: { sql }, ...extra }, { headers }))
      .result as Round;
  /** Runs `sql`, confirming the question it asks with `typed`; what it asked. */
  const confirmed = async (sql: string, typed: string): Promise<string> => {
    const first = await round(sql);
    const message = first.inputRequests?.confirm?.params.message ?? '';
    const final = await round(sql, {
      inputResponses: { confirm: accept({ understood: true, typedTableName: typed }) },
      requestState: first.requestState,
    });
    expect(final.structuredContent, JSON.stringify(final)).toMatchObject({ status: 'done' });
    return message;
  };
  const columns = async () =>
    (
      await opsdesk.pool.query(
        "SELECT string_agg(column_name, ',' ORDER BY ordinal_position) AS names FROM information_schema.columns WHERE table_schema = 'shop' AND table_name = 'customers'",
      )
    ).rows[0]?.names as string;

  it('a trigger named like a table is said to be a trigger, and a column added to the table after it is still asked about', async () => {
    await confirmed(
      'CREATE FUNCTION shop.noop() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RETURN NEW; END $$',
      'noop()',
    );
    const asked = await confirmed(
      'CREATE TRIGGER customers AFTER INSERT ON shop.products FOR EACH ROW EXECUTE FUNCTION shop.noop()',
      'products.customers',
    );
    expect(asked).toContain('- trigger `products.customers` created');
    const before = await columns();
    const sql = 'ALTER TABLE shop.customers ADD COLUMN note text';
    const first = await round(sql);
    const message = first.inputRequests?.confirm?.params.message;
    expect(message, JSON.stringify(first)).toContain('changes the schema of the table "customers"');
    expect(message).toContain('- table `customers` changed');
    const declined = await round(sql, {
      inputResponses: { confirm: { action: 'decline' } },
      requestState: first.requestState,
    });
    expect(declined.structuredContent).toMatchObject({ status: 'declined' });
    expect(await columns()).toBe(before);
  });

  it('two triggers of one name on two tables are two objects: dropping one is asked about by its table', async () => {
    await confirmed(
      'CREATE TRIGGER audit AFTER INSERT ON shop.orders FOR EACH ROW EXECUTE FUNCTION shop.noop()',
      'orders.audit',
    );
    await confirmed(
      'CREATE TRIGGER audit AFTER INSERT ON shop.products FOR EACH ROW EXECUTE FUNCTION shop.noop()',
      'products.audit',
    );
    const asked = await confirmed('DROP TRIGGER audit ON shop.orders', 'orders.audit');
    expect(asked).toContain('drops the trigger "orders.audit"');
    expect(asked).not.toContain('products.audit');
    const left = await opsdesk.pool.query(
      "SELECT c.relname AS on FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid WHERE t.tgname = 'audit'",
    );
    expect(left.rows).toEqual([{ on: 'products' }]);
  });
});
