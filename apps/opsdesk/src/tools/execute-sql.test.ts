import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import BetterSqlite3 from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callTool } from '../../../../test/support/mcp.js';
import {
  type Conn,
  count,
  httpOpsdeskForSuite,
  memoryClient,
  peek,
  peekShop,
  tempDataDir,
} from '../../test/harness.js';
import { accountIdentityOf } from '../identity.js';

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

const sql = async (statement: string, answer?: Record<string, unknown>) => {
  c.script.splice(0, c.script.length, ...(answer ? [{ action: 'accept' as const, content: answer }] : []));
  const seenBefore = c.seen.length;
  const r = await callTool(c.client, 'execute_sql', { sql: statement });
  return { ...r, asked: c.seen.length > seenBefore, question: c.seen[seenBefore] as { message: string } | undefined };
};

describe('execute_sql: the SQL corpus', () => {
  it('reads return rows, capped, with the total', async () => {
    const r = await sql('select id, status from Orders order by id');
    expect(r.status).toBe('done');
    expect(r.structured?.rowCount).toBe(1200);
    expect(r.structured?.rows).toHaveLength(200);
    expect(r.asked).toBe(false);
  });

  it('a WHERE inside a string literal does not count: asks, showing the real row count', async () => {
    const before = count(data.dir, 'products');
    const r = await sql("UPDATE products SET name = name || ' WHERE id = 1'", {
      understood: false,
      typedTableName: 'products',
    });
    expect(r.asked).toBe(true);
    expect(r.question?.message).toContain('changes every row of "products"');
    expect(r.question?.message).toContain('- `products`: 50 rows updated (it had 50)');
    expect(r.question?.message).toContain("Statement:\n```\nUPDATE products SET name = name || ' WHERE id = 1'\n```");
    expect(r.status).toBe('invalid'); // the box was not ticked
    expect(count(data.dir, 'products')).toBe(before);
    expect(peekShop(data.dir, "SELECT COUNT(*) AS n FROM products WHERE name LIKE '% WHERE id = 1'")).toEqual([
      { n: 0 },
    ]);
  });

  it('a WHERE inside a comment does not count either', async () => {
    const r = await sql('DELETE FROM order_items /* WHERE id = 1 */ -- WHERE id = 2', {
      understood: true,
      typedTableName: 'customers',
    });
    expect(r.question?.message).toContain('changes every row of "order_items"');
    expect(r.status).toBe('invalid');
    expect(r.text).toContain('"customers" is not the table this statement changes (order_items)');
  });

  it('a small write with a real WHERE runs without asking', async () => {
    const r = await sql("UPDATE customers SET city = 'Suzhou' WHERE id = 7");
    expect(r.asked).toBe(false);
    expect(r.status).toBe('done');
    expect(r.text).toBe('Done.\n- `customers`: 1 row updated (it had 200)');
    expect(peekShop(data.dir, 'SELECT city FROM customers WHERE id = 7')).toEqual([{ city: 'Suzhou' }]);
  });

  it('a tautological WHERE 1=1 over the threshold asks, and the typed name is checked', async () => {
    const before = count(data.dir, 'order_items');
    const r = await sql('delete from ORDER_ITEMS where 1=1 and id > 0', { understood: true, typedTableName: 'orders' });
    expect(r.question?.message).toContain('changes every row of "order_items"');
    expect(r.question?.message).toContain(`- \`order_items\`: ${before} rows deleted (it had ${before})`);
    expect(r.status).toBe('invalid');
    expect(r.text).toContain('"orders" is not the table this statement changes (order_items)');
    expect(count(data.dir, 'order_items')).toBe(before);
  });

  it('a write SQLite itself refuses on its run is rejected before anything is asked', async () => {
    const r = await sql('DELETE FROM orders WHERE id > 0');
    expect(r.asked).toBe(false);
    expect(r.status).toBe('rejected');
    expect(r.text).toMatch(/FOREIGN KEY constraint failed/);
    expect(count(data.dir, 'orders')).toBe(1200);
  });

  it('a CTE-led DELETE with WHERE over 100 rows asks; confirmed, it runs', async () => {
    const before = count(data.dir, 'order_items');
    const r = await sql(
      'WITH doomed AS (SELECT id FROM order_items WHERE quantity >= 3) DELETE FROM "order_items" WHERE id IN (SELECT id FROM doomed)',
      { understood: true, typedTableName: '"order_items"' },
    );
    expect(r.asked).toBe(true);
    expect(r.status, r.text).toBe('done');
    expect(count(data.dir, 'order_items')).toBeLessThan(before - 100);
  });

  it('mixed case and quoted identifiers name the same table', async () => {
    const r = await sql('UPDATE [Products] SET stock = stock', { understood: true, typedTableName: 'PRODUCTS' });
    expect(r.question?.message).toContain('"products"');
    expect(r.status, r.text).toBe('done');
  });

  it('the schema table it can read is the shop’s own: no opsdesk table in it', async () => {
    const r = await sql('SELECT name FROM sqlite_master ORDER BY name');
    expect(r.status).toBe('done');
    expect((r.structured?.rows as { name: string }[] | undefined)?.map((x) => x.name)).toEqual([
      'customers',
      'order_items',
      'orders',
      'products',
    ]);
  });

  it('DROP and ALTER always ask, whatever the row count', async () => {
    const drop = await sql('CREATE TABLE scratch (x)');
    expect(drop.status).toBe('done');
    const alter = await sql('ALTER TABLE scratch ADD COLUMN y', { understood: true, typedTableName: 'scratch' });
    expect(alter.question?.message).toContain('changes the schema of the table "scratch"');
    expect(alter.status).toBe('done');
    const gone = await sql('DROP TABLE scratch', { understood: true, typedTableName: 'scratch' });
    expect(gone.question?.message).toContain('drops the table "scratch"');
    expect(gone.status).toBe('done');
    expect(peekShop(data.dir, "SELECT name FROM sqlite_schema WHERE name = 'scratch'")).toEqual([]);
    expect(peek(data.dir, "SELECT name FROM sqlite_schema WHERE name = 'scratch'")).toEqual([]);
  });

  it('the shop changing while the person decides: not run, and says so', async () => {
    const before = count(data.dir, 'customers');
    c.script.splice(0, c.script.length, () => {
      // Someone else adds rows between the question and the answer.
      const other = new BetterSqlite3(join(data.dir, 'shop.db'));
      other.prepare("INSERT INTO customers (name, email, city, created_at) VALUES ('Late', 'l@x', 'Oslo', 'x')").run();
      other.close();
      return { action: 'accept', content: { understood: true, typedTableName: 'customers' } };
    });
    const r = await callTool(c.client, 'execute_sql', { sql: "UPDATE customers SET city = 'Nowhere'" });
    expect(r.status).toBe('rejected');
    expect(r.text).toContain(
      `would have changed ${before + 1} rows of \`customers\`, more than the ${before} you confirmed`,
    );
    expect(peekShop(data.dir, "SELECT COUNT(*) AS n FROM customers WHERE city = 'Nowhere'")).toEqual([{ n: 0 }]);
  });

  it('a trigger planted between the question and the answer: the confirmed run would write a table not shown, so nothing is kept', async () => {
    const orders = peekShop(data.dir, 'SELECT COUNT(*) AS n FROM orders');
    const other = () => new BetterSqlite3(join(data.dir, 'shop.db'));
    c.script.splice(0, c.script.length, () => {
      // Someone else plants a trigger while the person reads the question.
      const db = other();
      db.exec(
        "CREATE TRIGGER late AFTER UPDATE ON customers BEGIN DELETE FROM orders WHERE id < 0; UPDATE orders SET status = 'x' WHERE id = 1; END",
      );
      db.close();
      return { action: 'accept', content: { understood: true, typedTableName: 'customers' } };
    });
    const r = await callTool(c.client, 'execute_sql', { sql: "UPDATE customers SET city = 'Kept?'" });
    expect(r.status).toBe('rejected');
    expect(r.text).toContain('would also have changed');
    expect(r.text).toContain('`orders`, which you were not shown');
    expect(peekShop(data.dir, "SELECT COUNT(*) AS n FROM customers WHERE city = 'Kept?'")).toEqual([{ n: 0 }]);
    expect(peekShop(data.dir, "SELECT COUNT(*) AS n FROM orders WHERE status = 'x'")).toEqual([{ n: 0 }]);
    expect(peekShop(data.dir, 'SELECT COUNT(*) AS n FROM orders')).toEqual(orders);
    const db = other();
    db.exec('DROP TRIGGER late');
    db.close();
  });

  it('declined DROP leaves the table', async () => {
    c.script.splice(0, c.script.length, { action: 'decline' });
    const before = count(data.dir, 'order_items');
    const r = await callTool(c.client, 'execute_sql', { sql: 'DROP TABLE order_items' });
    expect(r.status).toBe('declined');
    expect(count(data.dir, 'order_items')).toBe(before);
  });

  it.each([
    ['several statements', 'SELECT 1; DELETE FROM orders', /one statement per call; this SQL holds 2/],
    ['a statement hidden after a string with a semicolon', "SELECT ';'; DROP TABLE customers", /holds 2/],
    ['opsdesk’s own tables: not in this database at all', 'SELECT * FROM api_tokens', /no such table: api_tokens/],
    ['opsdesk’s tables, quoted', 'DELETE FROM "users"', /no such table: users/],
    // Deleting claims would let a replayed final round act again: they are out of reach too.
    ['the claims behind exactly-once', 'DELETE FROM elicitkit_claims', /no such table: elicitkit_claims/],
    ['pending registrations', 'SELECT email FROM registrations', /no such table: registrations/],
    ['PRAGMA', 'PRAGMA journal_mode = DELETE', /does not run PRAGMA/],
    ['ATTACH', "ATTACH DATABASE '/tmp/x.db' AS x", /does not ATTACH or DETACH/],
    ['a syntax error', 'SELEC * FROM orders', /SQLite refused|expected/],
    ['an unknown table', 'DELETE FROM nowhere WHERE id = 1', /no such table: nowhere/],
    ['an empty statement', ' ;; ', /empty/],
  ])('rejects %s without asking', async (_label, statement, reason) => {
    const r = await sql(statement);
    expect(r.status).toBe('rejected');
    expect(r.text).toMatch(reason);
    expect(r.asked).toBe(false);
  });
});

describe('execute_sql: a fair share of the shop', () => {
  it('a user with 8 statements waiting or running is refused the next at once, in words, and nothing runs', async () => {
    const own = tempDataDir();
    const me = await memoryClient(own.dir, { user: 'alice', sqlTimeoutMs: 1_000 });
    try {
      const forever = 'WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT COUNT(*) FROM c';
      // The shop's share is per account: the kit's identity for alice (her id), as execute_sql passes it.
      const alice = (await accountIdentityOf(me.opsdesk.store, 'alice')) ?? '';
      const held = Array.from({ length: 8 }, () => me.opsdesk.shop.read(alice, forever).catch((e: unknown) => e));
      const r = await callTool(me.client, 'execute_sql', { sql: "UPDATE customers SET city = 'Busy' WHERE id = 1" });
      expect(r.status).toBe('rejected');
      expect(r.text).toBe(
        'You already have statements waiting or running on the shop; send this one when they have finished.',
      );
      expect(peekShop(own.dir, "SELECT COUNT(*) AS n FROM customers WHERE city = 'Busy'")).toEqual([{ n: 0 }]);
      // Another user is not held up by alice's queue.
      const bob = await me.opsdesk.shop.read('bob', 'SELECT 1 AS one');
      expect(bob.rows).toEqual([{ one: 1 }]);
      await me.close();
      await Promise.all(held);
    } finally {
      own.remove();
    }
  });
});

/**
 * On 2026-07-28 a call is run again from the top each round, so the question a round asks is built
 * again from what the shop holds *now*: a statement whose effect differs from run to run must
 * still ask the same question, or no answer to it could ever count. An SDK client over `serveHttp`.
 */
describe('2026-07-28: execute_sql asks a question that stays the same when its statement calls random()', () => {
  const served = httpOpsdeskForSuite();

  /** An SDK client on 2026-07-28 whose person confirms every question with `orders`. */
  async function confirming(token: string, action: 'accept' | 'decline' = 'accept', table = 'orders') {
    const messages: string[] = [];
    const client = new Client(
      { name: 'sql-person', version: '1' },
      { capabilities: { elicitation: { form: {} } }, versionNegotiation: { mode: { pin: '2026-07-28' } } },
    );
    client.setRequestHandler('elicitation/create', async (request) => {
      messages.push(request.params.message);
      return action === 'accept' ? { action, content: { understood: true, typedTableName: table } } : { action };
    });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(served.server.url), {
        requestInit: { headers: { authorization: `Bearer ${token}` } },
      }),
    );
    return { client, messages };
  }

  it('a statement whose effect differs on every run states a bound, the same every time: asked once per call', async () => {
    const { client, messages } = await confirming(await served.server.ownerToken('frank'));
    // Five calls: each asks once, and all five questions are the same words (no run's count in them).
    for (let i = 0; i < 5; i++) {
      const result = await client.callTool({
        name: 'execute_sql',
        arguments: { sql: 'UPDATE orders SET status = status WHERE abs(random()) % 2 = 0' },
      });
      expect(result).toMatchObject({ structuredContent: { status: 'done', table: 'orders' } });
      expect((result.structuredContent as { changes: number }).changes).toBeLessThanOrEqual(1200);
      expect(messages).toHaveLength(i + 1);
    }
    expect(new Set(messages).size).toBe(1);
    expect(messages[0]).toContain('up to 1200 rows of `orders`');
    await client.close();
  });

  it('random() only in the SET list: the bound is stated all the same, and the run keeps to it', async () => {
    const { client, messages } = await confirming(await served.server.ownerToken('grace'));
    const result = await client.callTool({
      name: 'execute_sql',
      arguments: { sql: 'UPDATE orders SET status = status || substr(random(), 1, 0) WHERE id <= 150' },
    });
    expect(result).toMatchObject({ structuredContent: { status: 'done', changes: 150 } });
    expect(messages).toEqual([expect.stringContaining('up to 1200 rows of `orders`')]);
    await client.close();
  });

  it('a write calling random() whose one run stays small is kept without a question: what was judged is what ran', async () => {
    const { client, messages } = await confirming(await served.server.ownerToken('heidi'));
    const result = await client.callTool({
      name: 'execute_sql',
      arguments: { sql: "UPDATE orders SET status = 'held' WHERE id = 7 AND random() IS NOT NULL" },
    });
    expect(result).toMatchObject({ structuredContent: { status: 'done', changes: 1, table: 'orders' } });
    expect(messages).toEqual([]);
    await client.close();
  });

  it('declined, such a write changes nothing', async () => {
    const status = () => peekShop(served.dataDir, "SELECT COUNT(*) AS n FROM orders WHERE status = 'held-2'");
    const { client, messages } = await confirming(await served.server.ownerToken('ivan'), 'decline');
    const result = await client.callTool({
      name: 'execute_sql',
      arguments: { sql: "UPDATE orders SET status = 'held-2' WHERE id <= 150 + abs(random()) % 300" },
    });
    expect(messages).toHaveLength(1);
    expect(result).toMatchObject({ structuredContent: { status: 'declined' } });
    expect(status()).toEqual([{ n: 0 }]);
    await client.close();
  });

  it('an insert calling random() of more rows than its table holds states a bound above its run, and is kept', async () => {
    const products = () => peekShop(served.dataDir, 'SELECT COUNT(*) AS n FROM products')[0] as { n: number };
    const before = products().n;
    expect(before).toBeLessThan(100);
    const { client, messages } = await confirming(await served.server.ownerToken('kim'), 'accept', 'products');
    const result = await client.callTool({
      name: 'execute_sql',
      arguments: {
        sql: "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 300) INSERT INTO products (name, price_cents, stock) SELECT 'bulk ' || i, abs(random()) % 1000, 1 FROM n",
      },
    });
    // 300 rows: up to 500 (1, 2 or 5 times a power of ten), never the ten rows the table held, nor 100.
    expect(messages).toEqual([expect.stringContaining('up to 500 rows of `products`')]);
    expect(result).toMatchObject({ structuredContent: { status: 'done', totalChanges: 300 } });
    expect(products().n).toBe(before + 300);
    await client.close();
  });

  it('an insert whose row count itself varies asks one question, its bound the same words every round', async () => {
    const products = () => peekShop(served.dataDir, 'SELECT COUNT(*) AS n FROM products')[0] as { n: number };
    const before = products().n;
    const { client, messages } = await confirming(await served.server.ownerToken('lena'), 'accept', 'products');
    // About half of 1,200 orders, a different half each run: 600 ± 17, so always "up to 1000".
    const result = await client.callTool({
      name: 'execute_sql',
      arguments: {
        sql: "INSERT INTO products (name, price_cents, stock) SELECT 'half ' || id, 1, 1 FROM orders WHERE abs(random()) % 2 = 0",
      },
    });
    expect(messages).toEqual([expect.stringContaining('up to 1000 rows of `products`')]);
    expect(result).toMatchObject({ structuredContent: { status: 'done' } });
    const kept = (result.structuredContent as { totalChanges: number }).totalChanges;
    expect(kept).toBeGreaterThan(300);
    expect(products().n).toBe(before + kept);
    await client.close();
  });

  it('a write without random() under the threshold still runs without a question', async () => {
    const { client, messages } = await confirming(await served.server.ownerToken('judy'));
    const result = await client.callTool({
      name: 'execute_sql',
      arguments: { sql: 'UPDATE orders SET status = status WHERE id = 9' },
    });
    expect(result).toMatchObject({ structuredContent: { status: 'done', changes: 1 } });
    expect(messages).toEqual([]);
    await client.close();
  });
});
