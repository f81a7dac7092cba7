import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callTool } from '../../../../test/support/mcp.js';
import { type Conn, memoryClient, peekShop, tempDataDir } from '../../test/harness.js';

let data: ReturnType<typeof tempDataDir>;
let alice: Conn;
let bob: Conn;
beforeAll(async () => {
  data = tempDataDir();
  alice = await memoryClient(data.dir, { user: 'alice' });
  bob = await memoryClient(data.dir, { user: 'bob' });
});
afterAll(async () => {
  await alice.close();
  await bob.close();
  data.remove();
});

const sql = async (c: Conn, text: string) => {
  const asked = c.seen.length;
  const r = await callTool(c.client, 'execute_sql', { sql: text });
  return { ...r, asked: c.seen.length - asked };
};
const stat1 = () =>
  peekShop<{ tbl: string; stat: string }>(data.dir, 'SELECT tbl, stat FROM sqlite_stat1 ORDER BY tbl');
const sequence = () => peekShop<{ name: string; seq: number }>(data.dir, 'SELECT name, seq FROM sqlite_sequence');

/**
 * SQLite's own tables (sqlite_sequence, sqlite_stat1, sqlite_stat4) take no trigger, so the
 * counting triggers never saw a change to their rows: `UPDATE sqlite_stat1 SET stat = …` rewrote
 * every row of it unasked (the planner's view of every table, for everyone) and the result said
 * "no rows changed"; `DELETE FROM sqlite_sequence` reset every AUTOINCREMENT counter the same
 * way. What SQLite does to them itself (ANALYZE, an AUTOINCREMENT insert) goes on as before.
 */
describe("execute_sql: rows of SQLite's own tables", () => {
  it('SQLite keeping them itself runs as before: ANALYZE, an AUTOINCREMENT table and its inserts', async () => {
    expect((await sql(alice, 'ANALYZE')).status).toBe('done');
    expect(
      (await sql(alice, 'CREATE TABLE tickets (id INTEGER PRIMARY KEY AUTOINCREMENT, title TEXT NOT NULL)')).status,
    ).toBe('done');
    expect((await sql(alice, "INSERT INTO tickets (title) VALUES ('a'), ('b'), ('c')")).status).toBe('done');
    expect(sequence()).toEqual([{ name: 'tickets', seq: 3 }]);
    expect((await sql(alice, 'ANALYZE')).status).toBe('done');
    expect(stat1().length).toBeGreaterThan(0);
  });

  it.each([
    ["UPDATE sqlite_stat1 SET stat = '1 1'"],
    ["DELETE FROM sqlite_stat1 WHERE tbl = 'orders'"],
    ['DELETE FROM sqlite_stat1'],
    ["INSERT INTO sqlite_stat1 (tbl, idx, stat) VALUES ('customers', NULL, '1')"],
    ['DELETE FROM sqlite_sequence'],
    ["UPDATE sqlite_sequence SET seq = 0 WHERE name = 'tickets'"],
  ])('%s is refused, saying why, and changes nothing', async (text) => {
    const [stats, seq] = [stat1(), sequence()];
    const r = await sql(bob, text);
    expect(r.status).toBe('rejected');
    expect(r.text).toMatch(/SQLite's own tables/);
    expect(r.asked).toBe(0);
    expect(stat1()).toEqual(stats);
    expect(sequence()).toEqual(seq);
  });

  it('nor through a trigger: the statement that fires it is refused', async () => {
    alice.script.push({ action: 'accept', content: { understood: true, typedTableName: 'reset_counters' } });
    const made = await sql(
      alice,
      'CREATE TRIGGER reset_counters AFTER INSERT ON tickets BEGIN DELETE FROM sqlite_sequence; END',
    );
    expect(made.status).toBe('done');
    const seq = sequence();
    const r = await sql(bob, "INSERT INTO tickets (title) VALUES ('d')");
    expect(r.status).toBe('rejected');
    expect(r.text).toMatch(/SQLite's own tables/);
    expect(sequence()).toEqual(seq);
  });

  it('dropping an AUTOINCREMENT table (SQLite clears its counter itself) is asked about and done as before', async () => {
    alice.script.push({ action: 'accept', content: { understood: true, typedTableName: 'tickets' } });
    const r = await sql(alice, 'DROP TABLE tickets');
    expect(r.asked).toBe(1);
    expect(r.status).toBe('done');
    expect(sequence()).toEqual([]);
  });

  it('reading them is fine', async () => {
    const r = await sql(bob, 'SELECT name, seq FROM sqlite_sequence');
    expect(r.status).toBe('done');
  });
});
