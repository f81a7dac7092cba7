/**
 * A statement whose values grow without bound — `randomblob(4e8)`, `printf('%.*c', 4e8, 'x')`, a
 * string doubled or replace()d in a recursive CTE, group_concat over a big one — made SQLite
 * allocate whatever it asked for in the shop's process: SQLite's own heap limit does nothing in
 * this build (no memory statistics), and a deny-list of functions cannot help (a recursive CTE
 * builds anything). The shop process's watchdog thread ends a process whose statement has grown it
 * by more than 256 MiB; only that statement fails, nothing of it is kept, and the next statement
 * gets a fresh process. Without the watchdog these came back `done` with the 400 MB value, or ran
 * to the 10 s timeout holding gigabytes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callTool } from '../../../../test/support/mcp.js';
import { type Conn, memoryClient, peekShop, tempDataDir } from '../../test/harness.js';

let data: ReturnType<typeof tempDataDir>;
let alice: Conn;
beforeAll(async () => {
  data = tempDataDir();
  // Time enough that on a loaded machine the memory bound, not the clock, is what ends them.
  alice = await memoryClient(data.dir, { user: 'alice', sqlTimeoutMs: 40_000 });
});
afterAll(async () => {
  await alice.close();
  data.remove();
});

const sql = (statement: string) => callTool(alice.client, 'execute_sql', { sql: statement });
const STOPPED =
  /^Stopped while running: the statement needed more than the 256 MiB of memory the shop allows a statement\. Nothing it did was kept\./;

/** Everything in the shop, as a fingerprint: what a stopped write must leave as it was. */
const shopState = () => ({
  counts: peekShop(
    data.dir,
    'SELECT (SELECT COUNT(*) FROM customers) AS c, (SELECT COUNT(*) FROM products) AS p, (SELECT COUNT(*) FROM orders) AS o, (SELECT COUNT(*) FROM order_items) AS i',
  ),
  products: peekShop(data.dir, 'SELECT * FROM products ORDER BY id'),
  integrity: peekShop(data.dir, 'PRAGMA integrity_check'),
});

async function nextStatementRuns() {
  expect((await sql('SELECT COUNT(*) AS n FROM orders')).structured).toMatchObject({
    status: 'done',
    rows: [{ n: 1200 }],
  });
}

describe('execute_sql: a statement that needs unbounded memory', () => {
  it.each([
    ['a 400 MB blob', 'SELECT length(randomblob(400000000)) AS n'],
    ['a 400 MB string', "SELECT length(printf('%.*c', 400000000, 'x')) AS n"],
    ['a 400 MB zeroblob, returned', 'SELECT zeroblob(400000000) AS z'],
    [
      'a string doubled in a recursive CTE',
      "WITH RECURSIVE r(x, n) AS (SELECT 'x', 0 UNION ALL SELECT x || x, n + 1 FROM r WHERE n < 40) SELECT max(length(x)) AS n FROM r",
    ],
    [
      'a string grown by replace() in a recursive CTE',
      "WITH RECURSIVE r(x, n) AS (SELECT 'ab', 0 UNION ALL SELECT replace(x, 'a', x), n + 1 FROM r WHERE n < 40) SELECT max(length(x)) AS n FROM r",
    ],
    [
      'group_concat over a big recursive CTE',
      "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 5000000) SELECT length(group_concat(printf('%.100c', 'y'))) AS n FROM c",
    ],
  ])(
    '%s is stopped, saying why, and the next statement runs',
    async (_name, statement) => {
      const r = await sql(statement);
      expect(r.status, r.text).toBe('rejected');
      expect(r.text).toMatch(STOPPED);
      await nextStatementRuns();
    },
    120_000,
  );

  it.each([
    ['an UPDATE', 'UPDATE products SET name = randomblob(400000000) WHERE id = 1'],
    [
      'an INSERT … SELECT',
      "INSERT INTO products (name, price_cents, stock) SELECT printf('%.*c', 400000000, 'x'), 1, 1",
    ],
    // Beyond what runs unasked (every row): stopped in its measured run, before anything is asked.
    [
      'an UPDATE of every row',
      "UPDATE products SET name = (WITH RECURSIVE r(x, n) AS (SELECT 'x', 0 UNION ALL SELECT x || x, n + 1 FROM r WHERE n < 40) SELECT max(x) FROM r)",
    ],
  ])(
    'a write that needs it (%s) is stopped and keeps nothing; the shop is intact and goes on',
    async (_name, statement) => {
      const before = shopState();
      const r = await sql(statement);
      expect(r.status, r.text).toBe('rejected');
      expect(r.text).toMatch(STOPPED);
      expect(alice.seen).toHaveLength(0);
      expect(shopState()).toEqual(before);
      await nextStatementRuns();
      // Writes go on too, in a fresh process.
      const w = await sql("UPDATE products SET name = 'Widget' WHERE id = 2");
      expect(w.status, w.text).toBe('done');
      expect(peekShop(data.dir, 'SELECT name FROM products WHERE id = 2')).toEqual([{ name: 'Widget' }]);
    },
    120_000,
  );
});

describe('execute_sql: the memory refusal in Chinese', () => {
  it('says why in the caller’s language, with the bound', async () => {
    const zhData = tempDataDir();
    const zh = await memoryClient(zhData.dir, { user: 'alice', locale: 'zh', sqlTimeoutMs: 40_000 });
    try {
      const r = await callTool(zh.client, 'execute_sql', { sql: 'SELECT length(randomblob(400000000)) AS n' });
      expect(r.status, r.text).toBe('rejected');
      expect(r.text).toBe(
        '已停止：该语句所需内存超过了商店允许单条语句使用的 256 MiB，已被终止，其所做的修改均未保留。请让它产生更小的值，或用 WHERE 或 LIMIT 缩小范围。',
      );
    } finally {
      await zh.close();
      zhData.remove();
    }
  }, 120_000);
});
