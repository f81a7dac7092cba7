/**
 * execute_sql: after the confirmation the statement runs again and is kept "only if it stays within
 * what was shown". The question shows what the run did per table and per kind (inserted, updated,
 * deleted), and the run after the confirmation is held to that, kind by kind: an upsert shown
 * inserting 150 new products, run after someone else added rows with those ids, would overwrite 150
 * existing products instead — the same table, the same total, another change. It is not kept.
 */
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callTool } from '../../../../test/support/mcp.js';
import { type Conn, memoryClient, peekShop, tempDataDir } from '../../test/harness.js';

let data: ReturnType<typeof tempDataDir>;
let c: Conn;
beforeAll(async () => {
  data = tempDataDir();
  c = await memoryClient(data.dir);
});
afterAll(async () => {
  await c.close();
  data.remove();
});

/** Another user of the shared shop writes while the question is open. */
function someoneElseRuns(sql: string): void {
  const db = new BetterSqlite3(join(data.dir, 'shop.db'));
  try {
    db.pragma('busy_timeout = 5000');
    db.prepare(sql).run();
  } finally {
    db.close();
  }
}

describe('execute_sql: the kind of change confirmed is the kind kept', () => {
  it('an upsert confirmed as 150 inserts is not kept when it would update 150 existing rows instead', async () => {
    const statement =
      "INSERT INTO products (id, name, price_cents, stock) SELECT id + 1000, 'Imported ' || id, 100, 1 FROM customers WHERE id <= 150 " +
      'ON CONFLICT(id) DO UPDATE SET price_cents = 0, stock = 0';
    let asked = '';
    c.script.push((params) => {
      asked = String(params.message);
      // Meanwhile real products arrive under those ids (each batch small enough to run unasked elsewhere).
      someoneElseRuns(
        "INSERT INTO products (id, name, price_cents, stock) SELECT id + 1000, 'Real product ' || id, 4999, 30 FROM customers WHERE id <= 150",
      );
      return { action: 'accept', content: { understood: true, typedTableName: 'products' } };
    });
    const r = await callTool(c.client, 'execute_sql', { sql: statement });
    expect(asked).toContain('`products`: 150 rows inserted');
    expect(asked).not.toContain('updated');

    const zeroed = peekShop<{ n: number }>(
      data.dir,
      "SELECT COUNT(*) AS n FROM products WHERE name LIKE 'Real product %' AND price_cents = 0",
    )[0]?.n;
    expect(
      { status: r.status, zeroed },
      `the person confirmed 150 new rows; the kept run overwrote existing ones instead (${r.text})`,
    ).toEqual({ status: 'rejected', zeroed: 0 });
    expect(r.text).toContain('would have updated 150 rows of `products`, where you confirmed none updated');
  });
});
