/**
 * A statement whose values grow without bound — `randomblob(4e8)`, `printf('%.*c', 4e8, 'x')`, a
 * string doubled in a recursive CTE — made SQLite allocate whatever it asked for in the shop's
 * process: SQLite's own heap limit does nothing in this build (no memory statistics), and
 * better-sqlite3 lets a value reach what a Buffer holds. A deny-list of functions cannot help (a
 * recursive CTE builds anything), so the bound is the operating system's: each shop process may
 * hold 256 MiB (`RLIMIT_DATA`). Past it SQLite says 'out of memory', or the process dies copying a
 * value out and is replaced; only that statement fails, nothing of it is kept, and the shop goes on.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callTool } from '../../../../test/support/mcp.js';
import { type Conn, memoryClient, peekShop, tempDataDir } from '../../test/harness.js';

let data: ReturnType<typeof tempDataDir>;
let alice: Conn;
beforeAll(async () => {
  data = tempDataDir();
  alice = await memoryClient(data.dir, { user: 'alice' });
});
afterAll(async () => {
  await alice.close();
  data.remove();
});

const sql = (statement: string) => callTool(alice.client, 'execute_sql', { sql: statement });

// The limit is Linux's (RLIMIT_DATA counts what malloc maps); elsewhere the shop has none.
describe.skipIf(process.platform !== 'linux')('execute_sql: a statement that needs unbounded memory', () => {
  it.each([
    ['a 400 MB blob', 'SELECT length(randomblob(400000000)) AS n'],
    ['a 400 MB string', "SELECT length(printf('%.*c', 400000000, 'x')) AS n"],
    [
      'a string doubled in a recursive CTE',
      "WITH RECURSIVE r(x, n) AS (SELECT 'x', 0 UNION ALL SELECT x || x, n + 1 FROM r WHERE n < 40) SELECT max(length(x)) AS n FROM r",
    ],
    [
      'a blob grown by replace() in a recursive CTE',
      "WITH RECURSIVE r(x, n) AS (SELECT 'ab', 0 UNION ALL SELECT replace(x, 'a', x), n + 1 FROM r WHERE n < 40) SELECT max(length(x)) AS n FROM r",
    ],
  ])('%s is refused as out of memory, and the next statement runs', async (_name, statement) => {
    const r = await sql(statement);
    expect(r.status, r.text).toBe('rejected');
    expect(r.text).toMatch(/out of memory/);
    expect((await sql('SELECT COUNT(*) AS n FROM orders')).structured).toMatchObject({
      status: 'done',
      rows: [{ n: 1200 }],
    });
  });

  it('a write that needs it is refused and changes nothing', async () => {
    const before = peekShop(data.dir, 'SELECT name FROM products WHERE id = 1');
    const r = await sql('UPDATE products SET name = randomblob(400000000) WHERE id = 1');
    expect(r.status, r.text).toBe('rejected');
    expect(r.text).toMatch(/out of memory/);
    expect(peekShop(data.dir, 'SELECT name FROM products WHERE id = 1')).toEqual(before);
  });

  // Whether SQLite fails first or the copy out does depends on what the process already holds.
  it('a value SQLite may make but the process cannot also copy out: refused either way, and the shop goes on', async () => {
    const r = await sql('SELECT randomblob(120000000) AS b');
    expect(r.status, r.text).toBe('rejected');
    expect(r.text).toMatch(
      /out of memory|stopped while running the statement, most likely needing more than the 256 MiB/,
    );
    expect((await sql('SELECT COUNT(*) AS n FROM orders')).structured).toMatchObject({
      status: 'done',
      rows: [{ n: 1200 }],
    });
  });
});
