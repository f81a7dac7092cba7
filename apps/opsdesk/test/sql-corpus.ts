/**
 * The adversarial corpus for execute_sql (issue 11): statements an attacker (or a careless model)
 * would try, run in order on one data directory by sql-corpus.test.ts. For each, what the tool
 * must answer and what the demo shop must look like afterwards; opsdesk.db must never change.
 * `{dir}` in a statement is the data directory's absolute path.
 */
import type { Step } from '../../../test/support/mcp.js';

export interface SqlCase {
  sql: string;
  status: 'done' | 'rejected' | 'declined' | 'cancelled' | 'invalid';
  /** What the result text must say. */
  says?: RegExp;
  /** The answer to the confirmation; with none, the statement must run (or be refused) without asking. */
  answer?: Step;
  /** What the question must say, when one is asked. */
  asks?: RegExp;
  /** The shop afterwards: unchanged, or this query on shop.db returns exactly this. */
  shop: 'same' | { sql: string; is: unknown };
  /** structuredContent fields to check. */
  structured?: Record<string, unknown>;
}

const confirm = (table: string): Step => ({ action: 'accept', content: { understood: true, typedTableName: table } });
const INFINITE = 'WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c)';
const noSuch = (t: string) => new RegExp(`no such table: (main\\.)?${t}`);

export const SQL_CORPUS: SqlCase[] = [
  // Reads of the shop work.
  { sql: 'SELECT COUNT(*) AS n FROM orders', status: 'done', shop: 'same', structured: { rows: [{ n: 1200 }] } },
  // opsdesk's tables, however they are named, do not exist on this connection.
  { sql: "SELECT * FROM 'meta'", status: 'rejected', says: noSuch('meta'), shop: 'same' },
  { sql: "SELECT * FROM 'api_tokens'", status: 'rejected', says: noSuch('api_tokens'), shop: 'same' },
  { sql: 'SELECT * FROM "users"', status: 'rejected', says: noSuch('users'), shop: 'same' },
  { sql: 'SELECT * FROM [password_links]', status: 'rejected', says: noSuch('password_links'), shop: 'same' },
  { sql: 'SELECT * FROM `permissions`', status: 'rejected', says: noSuch('permissions'), shop: 'same' },
  { sql: 'SELECT * FROM main.users', status: 'rejected', says: noSuch('main.users'), shop: 'same' },
  { sql: 'SELECT * FROM temp.users', status: 'rejected', says: /no such table: temp\.users/, shop: 'same' },
  { sql: 'SELECT * FROM "opsdesk"."users"', status: 'rejected', says: /no such table: opsdesk\.users/, shop: 'same' },
  { sql: "UPDATE 'users' SET role = 'owner'", status: 'rejected', says: noSuch('users'), shop: 'same' },
  {
    sql: "INSERT INTO 'permissions' (username, project) VALUES ('bob', '*')",
    status: 'rejected',
    says: noSuch('permissions'),
    shop: 'same',
  },
  {
    sql: "INSERT INTO 'release_tickets' VALUES ('REL-6666', 'order-service', 'approved', 'x')",
    status: 'rejected',
    says: noSuch('release_tickets'),
    shop: 'same',
  },
  { sql: "DELETE FROM 'deployments' WHERE id > 0", status: 'rejected', says: noSuch('deployments'), shop: 'same' },
  // The schema a caller can read is the shop's own.
  {
    sql: 'SELECT group_concat(name) AS names FROM (SELECT name FROM sqlite_master ORDER BY name)',
    status: 'done',
    shop: 'same',
    structured: { rows: [{ names: 'customers,order_items,orders,products' }] },
  },
  {
    sql: "SELECT COUNT(*) AS n FROM main.sqlite_schema WHERE sql LIKE '%token%' OR name LIKE '%user%'",
    status: 'done',
    shop: 'same',
    structured: { rows: [{ n: 0 }] },
  },
  // The temp database is private to the connection and kept empty (see below): reading it finds nothing.
  {
    sql: 'SELECT COUNT(*) AS n FROM sqlite_temp_master',
    status: 'done',
    shop: 'same',
    structured: { rows: [{ n: 0 }] },
  },
  // pragma_* table functions and PRAGMA statements.
  { sql: "SELECT * FROM pragma_table_info('users')", status: 'rejected', says: /pragma_\*/, shop: 'same' },
  { sql: 'SELECT file FROM pragma_database_list', status: 'rejected', says: /virtual tables/, shop: 'same' },
  { sql: 'SELECT * FROM "pragma_database_list"', status: 'rejected', says: /virtual tables/, shop: 'same' },
  { sql: 'SELECT * FROM main.pragma_function_list', status: 'rejected', says: /virtual tables/, shop: 'same' },
  {
    sql: 'WITH x AS (SELECT * FROM pragma_database_list) SELECT file FROM x',
    status: 'rejected',
    says: /virtual tables/,
    shop: 'same',
  },
  { sql: "SELECT sqlite_attach('a', 'b', NULL)", status: 'rejected', says: /no such function/, shop: 'same' },
  { sql: "SELECT readfile('/etc/passwd')", status: 'rejected', says: /no such function: readfile/, shop: 'same' },
  { sql: 'PRAGMA database_list', status: 'rejected', says: /does not run PRAGMA/, shop: 'same' },
  { sql: 'PRAGMA query_only = 0', status: 'rejected', says: /does not run PRAGMA/, shop: 'same' },
  { sql: 'PRAGMA trusted_schema = 1', status: 'rejected', says: /does not run PRAGMA/, shop: 'same' },
  { sql: 'pragma main.writable_schema = ON', status: 'rejected', says: /does not run PRAGMA/, shop: 'same' },
  { sql: 'PRAGMA max_page_count = 2147483647', status: 'rejected', says: /does not run PRAGMA/, shop: 'same' },
  {
    sql: 'PRAGMA user_version = 7',
    status: 'rejected',
    says: /does not run PRAGMA/,
    shop: { sql: 'PRAGMA user_version', is: [{ user_version: 0 }] },
  },
  // Ways out of the file.
  { sql: "ATTACH DATABASE '{dir}/opsdesk.db' AS o", status: 'rejected', says: /ATTACH or DETACH/, shop: 'same' },
  { sql: "attach 'file:{dir}/opsdesk.db?mode=ro' as o", status: 'rejected', says: /ATTACH or DETACH/, shop: 'same' },
  { sql: "ATTACH ':memory:' AS scratch", status: 'rejected', says: /ATTACH or DETACH/, shop: 'same' },
  { sql: 'DETACH DATABASE main', status: 'rejected', says: /ATTACH or DETACH/, shop: 'same' },
  { sql: 'VACUUM', status: 'rejected', says: /VACUUM/, shop: 'same' },
  { sql: "VACUUM INTO '{dir}/opsdesk.db'", status: 'rejected', says: /VACUUM/, shop: 'same' },
  { sql: "VACUUM main INTO '{dir}/copy.db'", status: 'rejected', says: /VACUUM/, shop: 'same' },
  {
    sql: "SELECT load_extension('/usr/lib/x86_64-linux-gnu/libsqlite3.so')",
    status: 'rejected',
    says: /extensions/,
    shop: 'same',
  },
  // Transactions belong to opsdesk.
  { sql: 'BEGIN IMMEDIATE', status: 'rejected', says: /BEGIN, COMMIT/, shop: 'same' },
  { sql: 'COMMIT', status: 'rejected', says: /BEGIN, COMMIT/, shop: 'same' },
  { sql: 'SAVEPOINT opsdesk_dry_run', status: 'rejected', says: /BEGIN, COMMIT/, shop: 'same' },
  { sql: 'RELEASE opsdesk_dry_run', status: 'rejected', says: /BEGIN, COMMIT/, shop: 'same' },
  // Temporary objects would outlive the statement.
  { sql: 'CREATE TEMP TABLE t AS SELECT * FROM customers', status: 'rejected', says: /temporary/, shop: 'same' },
  {
    sql: 'CREATE TEMP TRIGGER tt AFTER INSERT ON products BEGIN DELETE FROM orders; END',
    status: 'rejected',
    says: /temporary/,
    shop: 'same',
  },
  { sql: 'CREATE TEMPORARY VIEW tv AS SELECT 1', status: 'rejected', says: /temporary/, shop: 'same' },
  { sql: 'CREATE VIRTUAL TABLE f USING fts5(x)', status: 'rejected', says: /virtual tables/, shop: 'same' },
  { sql: 'SELECT * FROM dbstat', status: 'rejected', says: /virtual tables/, shop: 'same' },
  { sql: 'EXPLAIN SELECT 1', status: 'rejected', says: /does not run EXPLAIN/, shop: 'same' },
  // Several statements, however they are smuggled.
  { sql: 'SELECT 1; DELETE FROM orders', status: 'rejected', says: /holds 2/, shop: 'same' },
  { sql: "SELECT ';' ; DROP TABLE customers", status: 'rejected', says: /holds 2/, shop: 'same' },
  { sql: 'SELECT 1 /* ; */ -- ; DROP TABLE customers', status: 'done', shop: 'same' },
  { sql: "SELECT 'a;b' AS s;", status: 'done', shop: 'same', structured: { rows: [{ s: 'a;b' }] } },
  // Run-time errors are results with SQLite's reason.
  { sql: "SELECT json('{')", status: 'rejected', says: /SQLite refused the statement: malformed JSON/, shop: 'same' },
  {
    sql: "INSERT INTO orders (customer_id, status, total_cents, created_at) VALUES (99999, 'x', 1, 'y')",
    status: 'rejected',
    says: /FOREIGN KEY constraint failed/,
    shop: 'same',
  },
  // Blobs, odd column names, JSON table functions.
  {
    sql: "SELECT x'DEADBEEF' AS b, zeroblob(2) AS z",
    status: 'done',
    shop: 'same',
    structured: { rows: [{ b: "x'deadbeef'", z: "x'0000'" }] },
  },
  { sql: 'SELECT 1 AS "__proto__"', status: 'done', says: /__proto__/, shop: 'same' },
  {
    sql: "SELECT SUM(value) AS s FROM json_each('[1,2,3]')",
    status: 'done',
    shop: 'same',
    structured: { rows: [{ s: 6 }] },
  },
  // Reads that would never end are bounded.
  {
    sql: `${INFINITE} SELECT x FROM c`,
    status: 'done',
    says: /More than 10000 rows/,
    shop: 'same',
    structured: { rowCount: 10000, complete: false },
  },
  {
    sql: `${INFINITE} SELECT randomblob(1000000) AS junk FROM c`,
    status: 'done',
    says: /The result is too large: the read was stopped after 17 rows/,
    shop: 'same',
    structured: { complete: false },
  },
  { sql: 'SELECT * FROM order_items, orders', status: 'done', shop: 'same', structured: { complete: false } },
  {
    sql: 'SELECT zeroblob(20000000) AS z', // one row past the 16 MB read cap (a bigger blob only costs time under load)
    status: 'done',
    says: /The result is too large/,
    shop: 'same',
    structured: { complete: false },
  },
  { sql: 'SELECT zeroblob(2000000000)', status: 'rejected', says: /string or blob too big/, shop: 'same' },
  // ...and those that never yield a row are stopped (the corpus runs with a 2 s limit), leaving nothing behind.
  {
    sql: `${INFINITE} SELECT COUNT(*) FROM c`,
    status: 'rejected',
    says: /Stopped: the statement ran longer than 2 s/,
    shop: 'same',
  },
  {
    sql: 'SELECT COUNT(*) FROM orders a, orders b, orders c, orders d',
    status: 'rejected',
    says: /Stopped: the statement ran longer than/,
    shop: 'same',
  },
  {
    sql: `UPDATE products SET stock = (${INFINITE} SELECT COUNT(*) FROM c)`,
    status: 'rejected',
    says: /Stopped: the statement ran longer than/,
    shop: 'same',
  },
  { sql: 'SELECT COUNT(*) AS n FROM products', status: 'done', shop: 'same', structured: { rows: [{ n: 50 }] } },
  // Writes to the shop: RETURNING, UPSERT, REPLACE, CTE-led.
  {
    sql: "UPDATE customers SET city = 'Xi''an' WHERE id = 1 RETURNING id, city",
    status: 'done',
    shop: { sql: 'SELECT city FROM customers WHERE id = 1', is: [{ city: "Xi'an" }] },
    structured: { changes: 1, rows: [{ id: 1, city: "Xi'an" }] },
  },
  {
    sql: "INSERT INTO products (id, name, price_cents, stock) VALUES (2, 'Upserted', 1, 1) ON CONFLICT(id) DO UPDATE SET stock = stock + 1000",
    status: 'done',
    shop: { sql: 'SELECT stock >= 1000 AS bumped FROM products WHERE id = 2', is: [{ bumped: 1 }] },
  },
  {
    sql: "REPLACE INTO products (id, name, price_cents, stock) VALUES (3, 'Replaced', 1, 1)",
    status: 'done',
    shop: { sql: 'SELECT name FROM products WHERE id = 3', is: [{ name: 'Replaced' }] },
  },
  {
    sql: 'WITH doomed AS (SELECT id FROM order_items WHERE id <= 3) DELETE FROM order_items WHERE id IN doomed',
    status: 'done',
    shop: { sql: 'SELECT COUNT(*) AS n FROM order_items WHERE id <= 3', is: [{ n: 0 }] },
    structured: { changes: 3 },
  },
  // Quoted, bracketed and schema-qualified shop names: asked about, by their real name.
  {
    sql: 'DELETE FROM "ORDER_ITEMS"',
    status: 'declined',
    answer: { action: 'decline' },
    asks: /changes every row of "order_items"/,
    shop: 'same',
  },
  {
    sql: 'UPDATE main.[products] SET stock = 0',
    status: 'done',
    answer: confirm('products'),
    asks: /changes every row of "products"[\s\S]*- `products`: 50 rows updated \(it had 50\)/,
    shop: { sql: 'SELECT MAX(stock) AS m FROM products', is: [{ m: 0 }] },
  },
  {
    sql: `INSERT INTO products (name, price_cents, stock) SELECT 'bulk', 1, 1 FROM (${INFINITE} SELECT x FROM c LIMIT 500)`,
    status: 'cancelled',
    answer: { action: 'cancel' },
    asks: /changes "products"[\s\S]*- `products`: 500 rows inserted/,
    shop: 'same',
  },
  // A trigger on one shop table that writes another: the confirmation names both.
  {
    sql: "CREATE TRIGGER mark AFTER UPDATE OF stock ON products BEGIN UPDATE customers SET city = city || '!'; END",
    status: 'done',
    answer: confirm('mark'),
    asks: /changes the schema of the trigger "mark"[\s\S]*- trigger `mark` created/,
    shop: { sql: "SELECT name FROM sqlite_schema WHERE type = 'trigger'", is: [{ name: 'mark' }] },
  },
  {
    sql: 'UPDATE products SET stock = 5 WHERE id = 4',
    status: 'declined',
    answer: { action: 'decline' },
    asks: /- `products`: 1 row updated[\s\S]*- `customers`: 200 rows updated \(it had 200\)/,
    shop: 'same',
  },
  {
    sql: 'DROP TRIGGER mark',
    status: 'done',
    answer: confirm('mark'),
    asks: /drops the trigger "mark"/,
    shop: { sql: "SELECT COUNT(*) AS n FROM sqlite_schema WHERE type = 'trigger'", is: [{ n: 0 }] },
  },
  // A trigger or view that reaches for opsdesk's tables finds nothing.
  {
    sql: "CREATE TRIGGER evil AFTER INSERT ON products BEGIN INSERT INTO users (username, role, created_at) VALUES ('mallory', 'owner', 'x'); END",
    status: 'done',
    answer: confirm('evil'),
    shop: { sql: "SELECT name FROM sqlite_schema WHERE type = 'trigger'", is: [{ name: 'evil' }] },
  },
  {
    sql: "INSERT INTO products (name, price_cents, stock) VALUES ('bait', 1, 1)",
    status: 'rejected',
    says: /no such table: main\.users/,
    shop: 'same',
  },
  {
    sql: 'DROP TRIGGER evil',
    status: 'done',
    answer: confirm('evil'),
    shop: { sql: "SELECT COUNT(*) AS n FROM sqlite_schema WHERE type = 'trigger'", is: [{ n: 0 }] },
  },
  {
    sql: 'CREATE VIEW leak AS SELECT * FROM api_tokens',
    status: 'done',
    answer: confirm('leak'),
    shop: { sql: "SELECT name FROM sqlite_schema WHERE type = 'view'", is: [{ name: 'leak' }] },
  },
  { sql: 'SELECT * FROM leak', status: 'rejected', says: /no such table: main\.api_tokens/, shop: 'same' },
  {
    sql: 'DROP VIEW leak',
    status: 'done',
    answer: confirm('leak'),
    shop: { sql: "SELECT COUNT(*) AS n FROM sqlite_schema WHERE type = 'view'", is: [{ n: 0 }] },
  },
  {
    sql: 'CREATE VIEW paths AS SELECT file FROM pragma_database_list',
    status: 'done',
    answer: confirm('paths'),
    shop: { sql: "SELECT COUNT(*) AS n FROM sqlite_schema WHERE name = 'paths'", is: [{ n: 1 }] },
  },
  { sql: 'SELECT * FROM paths', status: 'rejected', says: /virtual tables/, shop: 'same' },
  {
    sql: 'DROP VIEW paths',
    status: 'done',
    answer: confirm('paths'),
    shop: { sql: "SELECT COUNT(*) AS n FROM sqlite_schema WHERE name = 'paths'", is: [{ n: 0 }] },
  },
  // Schema objects with functions that act are refused by SQLite (trusted_schema=OFF).
  {
    sql: "CREATE TABLE checked (x CHECK (load_extension('y') IS NULL))",
    status: 'rejected',
    says: /unsafe use of load_extension/,
    shop: 'same',
  },
  { sql: 'REINDEX', status: 'done', says: /^Done\.\n- no rows changed$/, shop: 'same' },
  // New tables are additive (no question); dropping one asks.
  {
    sql: 'CREATE TABLE scratch AS SELECT id, name FROM customers',
    status: 'done',
    shop: { sql: 'SELECT COUNT(*) AS n FROM scratch', is: [{ n: 200 }] },
  },
  {
    sql: 'ALTER TABLE scratch RENAME TO scratch_old',
    status: 'done',
    answer: confirm('scratch'),
    asks: /changes the schema of the table "scratch"/,
    shop: { sql: "SELECT name FROM sqlite_schema WHERE name LIKE 'scratch%'", is: [{ name: 'scratch_old' }] },
  },
  {
    sql: 'DROP TABLE "scratch_old"',
    status: 'invalid',
    answer: confirm('customers'),
    asks: /drops the table "scratch_old"[\s\S]*- `scratch_old`: 200 rows deleted[\s\S]*- table `scratch_old` dropped/,
    says: /"customers" is not the table this statement changes \(scratch_old\)/,
    shop: 'same',
  },
  // Every row of a small table, some updated and the rest deleted (the rows the updates replace):
  // every row changed, asked about as such.
  {
    sql: 'CREATE TABLE tiny (id INTEGER PRIMARY KEY, v TEXT)',
    status: 'done',
    shop: { sql: 'SELECT COUNT(*) AS n FROM tiny', is: [{ n: 0 }] },
  },
  {
    sql: "INSERT INTO tiny (id, v) SELECT value, 'v' FROM json_each('[1,2,3,4,5,6,7,8,9,10]')",
    status: 'done',
    shop: { sql: 'SELECT COUNT(*) AS n FROM tiny', is: [{ n: 10 }] },
  },
  {
    sql: 'UPDATE OR REPLACE tiny SET id = id + 5 WHERE id <= 5',
    status: 'declined',
    answer: { action: 'decline' },
    asks: /changes every row of "tiny"[\s\S]*- `tiny`: 5 rows deleted, 5 rows updated \(it had 10\)/,
    shop: { sql: 'SELECT COUNT(*) AS n FROM tiny', is: [{ n: 10 }] },
  },
  // While a write runs, the temp database holds its own counting objects, named afresh every run:
  // a write that reads it would do something else every run. Refused (a read finds it empty, and
  // a rename reads it as SQLite's own upkeep: both run as before).
  {
    sql: "UPDATE orders SET status = status WHERE id <= 101 + (SELECT unicode(substr(name, 4, 1)) % 16 FROM temp.sqlite_schema WHERE type = 'table')",
    status: 'rejected',
    says: /nor reading the temporary database/,
    shop: 'same',
  },
  {
    sql: "INSERT INTO customers (name, email, city, created_at) SELECT name, 'x@example.com', 'Oslo', '2026-01-01' FROM sqlite_temp_master",
    status: 'rejected',
    says: /nor reading the temporary database/,
    shop: 'same',
  },
  // An object is its kind and its name: a trigger named like a table (SQLite keeps trigger names
  // apart) is said to be a trigger, and never stands for the table — what is done to the table
  // after it is asked about as before.
  {
    sql: 'CREATE TRIGGER customers AFTER INSERT ON products BEGIN SELECT 1; END',
    status: 'done',
    answer: confirm('customers'),
    asks: /changes the schema of the trigger "customers"[\s\S]*- trigger `customers` created/,
    shop: {
      sql: "SELECT type FROM sqlite_schema WHERE name = 'customers' ORDER BY type",
      is: [{ type: 'table' }, { type: 'trigger' }],
    },
  },
  {
    sql: 'ALTER TABLE customers DROP COLUMN city',
    status: 'declined',
    answer: { action: 'decline' },
    asks: /changes the schema of the table "customers"[\s\S]*- table `customers` changed/,
    shop: 'same',
  },
  {
    sql: 'CREATE TABLE archive (id INTEGER)',
    status: 'done',
    shop: { sql: 'SELECT COUNT(*) AS n FROM archive', is: [{ n: 0 }] },
  },
  {
    sql: 'CREATE TRIGGER archive AFTER DELETE ON products BEGIN SELECT 1; END',
    status: 'done',
    answer: confirm('archive'),
    asks: /- trigger `archive` created/,
    shop: { sql: "SELECT COUNT(*) AS n FROM sqlite_schema WHERE name = 'archive'", is: [{ n: 2 }] },
  },
  {
    sql: 'DROP TABLE archive',
    status: 'cancelled',
    answer: { action: 'cancel' },
    asks: /drops the table "archive"[\s\S]*- table `archive` dropped/,
    shop: {
      sql: "SELECT type FROM sqlite_schema WHERE name = 'archive' ORDER BY type",
      is: [{ type: 'table' }, { type: 'trigger' }],
    },
  },
  {
    sql: 'CREATE INDEX archive ON products (name)',
    status: 'rejected',
    says: /there is already a table named archive/,
    shop: 'same',
  },
  {
    sql: 'CREATE TRIGGER by_city AFTER DELETE ON orders BEGIN SELECT 1; END',
    status: 'done',
    answer: confirm('by_city'),
    shop: { sql: "SELECT COUNT(*) AS n FROM sqlite_schema WHERE name = 'by_city'", is: [{ n: 1 }] },
  },
  {
    sql: 'CREATE VIEW by_city AS SELECT city, COUNT(*) AS n FROM customers GROUP BY city',
    status: 'cancelled',
    answer: { action: 'cancel' },
    asks: /changes the schema of the view "by_city"[\s\S]*- view `by_city` created/,
    shop: { sql: "SELECT type FROM sqlite_schema WHERE name = 'by_city'", is: [{ type: 'trigger' }] },
  },
  {
    sql: 'DROP TRIGGER by_city',
    status: 'done',
    answer: confirm('by_city'),
    asks: /drops the trigger "by_city"[\s\S]*- trigger `by_city` dropped/,
    shop: { sql: "SELECT COUNT(*) AS n FROM sqlite_schema WHERE name = 'by_city'", is: [{ n: 0 }] },
  },
];
