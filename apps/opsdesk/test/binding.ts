/**
 * What the person confirms is what happens: writes of our own making that try to make the run that
 * is kept differ from the run that was judged — connection state, the clock, random functions,
 * triggers and views someone else planted, multi-statement and REPLACE tricks. Each is judged by
 * its outcome, measured from outside the server (rows compared by rowid), never by its wording.
 */

/** One write, what is planted before it by the other user, and what the same user ran just before. */
export interface BindingCase {
  name: string;
  sql: string;
  /** Schema the other user creates (and confirms) first: triggers, views. */
  plant?: string[];
  /** Statements the same user runs just before (connection state: changes(), last_insert_rowid()). */
  before?: string[];
  /** What must happen besides the invariant: a question first, no question, or a refusal. */
  expect?: 'asks' | 'unasked' | 'refused';
}

const NOW_PARITY = "CAST(strftime('%f', 'now') * 1000 AS INTEGER) % 2 = 0";
const NEW_ORDER = "INSERT INTO orders (customer_id, status, total_cents, created_at) VALUES (1, 'new', 100, 'x')";
const NEW_PRODUCT = "INSERT INTO products (name, price_cents, stock) VALUES ('bait', 1, 1)";

export const BINDING_CASES: BindingCase[] = [
  // Connection state: what changes() and friends return depends on what ran before on the connection.
  {
    name: 'changes() after a small update',
    before: ['UPDATE orders SET status = status WHERE id <= 5'],
    sql: 'DELETE FROM order_items WHERE changes() = 0',
  },
  {
    name: 'changes() rewriting every customer',
    before: ['UPDATE orders SET status = status WHERE id <= 5'],
    sql: "UPDATE customers SET email = 'x' WHERE changes() = 0",
  },
  { name: 'total_changes() parity', sql: 'DELETE FROM order_items WHERE total_changes() % 2 = 0' },
  {
    name: 'last_insert_rowid() before any insert',
    sql: "UPDATE customers SET city = 'Z' WHERE last_insert_rowid() = 0",
  },
  {
    name: 'last_insert_rowid() after an insert',
    before: ["INSERT INTO products (name, price_cents, stock) VALUES ('n', 1, 1)"],
    sql: 'UPDATE order_items SET quantity = quantity WHERE product_id <> last_insert_rowid()',
  },
  // The clock: two runs a moment apart disagree.
  { name: 'clock parity over every order', sql: `UPDATE orders SET status = status WHERE ${NOW_PARITY}` },
  { name: 'unixepoch parity deleting', sql: "DELETE FROM order_items WHERE unixepoch('now') % 2 = 0" },
  { name: 'julianday always true', sql: "UPDATE customers SET city = city WHERE julianday('now') > 0", expect: 'asks' },
  {
    name: 'a clock condition that matches nothing',
    sql: "DELETE FROM order_items WHERE id > 100000 OR datetime('now') < '2000-01-01'",
    expect: 'unasked',
  },
  {
    name: 'current_timestamp on three rows',
    sql: "UPDATE orders SET status = 'late' WHERE current_timestamp > '2000' AND id <= 3",
    expect: 'unasked',
  },
  // Random functions.
  {
    name: 'random() half of the orders',
    sql: 'UPDATE orders SET status = status WHERE abs(random()) % 2 = 0',
    expect: 'asks',
  },
  { name: 'random() third of the items', sql: 'DELETE FROM order_items WHERE random() % 3 = 0', expect: 'asks' },
  {
    name: 'randomblob() in the SET list of 50 rows',
    sql: 'UPDATE customers SET city = hex(randomblob(2)) WHERE id <= 50',
    expect: 'unasked',
  },
  {
    name: 'ORDER BY random() LIMIT 150',
    sql: 'DELETE FROM order_items WHERE id IN (SELECT id FROM order_items ORDER BY random() LIMIT 150)',
    expect: 'asks',
  },
  {
    name: 'random() deciding how many rows to insert',
    sql: "INSERT INTO products (name, price_cents, stock) SELECT 'r', 1, 1 FROM customers WHERE random() % 2 = 0",
  },
  // Programs planted by the other user, fired by this one.
  {
    name: 'a trigger that wipes order_items on a one-row insert',
    plant: ['CREATE TRIGGER wipe AFTER INSERT ON orders BEGIN DELETE FROM order_items; END'],
    sql: NEW_ORDER,
    expect: 'asks',
  },
  {
    name: 'a trigger with a clock condition',
    plant: [`CREATE TRIGGER tick AFTER INSERT ON products WHEN ${NOW_PARITY} BEGIN DELETE FROM order_items; END`],
    sql: NEW_PRODUCT,
  },
  {
    name: 'a trigger with a random condition',
    plant: [
      'CREATE TRIGGER dice AFTER UPDATE ON products WHEN random() % 2 = 0 BEGIN UPDATE orders SET status = status; END',
    ],
    sql: 'UPDATE products SET stock = stock WHERE id = 1',
  },
  {
    name: 'a trigger fanning one update out to every order of 30 customers',
    plant: [
      'CREATE TRIGGER fan AFTER UPDATE ON customers BEGIN UPDATE orders SET status = status WHERE customer_id = NEW.id; END',
    ],
    sql: "UPDATE customers SET city = 'Q' WHERE id <= 30",
    expect: 'asks',
  },
  {
    name: 'a chain of triggers: customers → orders → order_items',
    plant: [
      'CREATE TRIGGER hop1 AFTER UPDATE ON customers BEGIN UPDATE orders SET status = status WHERE customer_id = NEW.id; END',
      'CREATE TRIGGER hop2 AFTER UPDATE ON orders BEGIN DELETE FROM order_items WHERE order_id = NEW.id; END',
    ],
    sql: "UPDATE customers SET city = 'C' WHERE id = 1",
  },
  {
    name: 'a BEFORE trigger that rewrites every customer',
    plant: ['CREATE TRIGGER pre BEFORE UPDATE ON products BEGIN UPDATE customers SET city = city; END'],
    sql: 'UPDATE products SET stock = stock + 1 WHERE id = 2',
    expect: 'asks',
  },
  {
    name: 'a trigger that reads changes()',
    plant: ['CREATE TRIGGER state AFTER INSERT ON products WHEN changes() = 0 BEGIN DELETE FROM order_items; END'],
    sql: NEW_PRODUCT,
  },
  // Views, with INSTEAD OF triggers.
  {
    name: 'deleting one row of a view whose trigger deletes them all',
    plant: [
      'CREATE VIEW items AS SELECT * FROM order_items',
      'CREATE TRIGGER items_del INSTEAD OF DELETE ON items BEGIN DELETE FROM order_items; END',
    ],
    sql: 'DELETE FROM items WHERE id = 1',
    expect: 'asks',
  },
  {
    name: 'updating a view whose trigger rewrites every customer',
    plant: [
      'CREATE VIEW people AS SELECT id, city FROM customers',
      'CREATE TRIGGER people_upd INSTEAD OF UPDATE ON people BEGIN UPDATE customers SET city = NEW.city; END',
    ],
    sql: "UPDATE people SET city = 'Rome' WHERE id = 1",
    expect: 'asks',
  },
  {
    name: 'inserting into a view with a random trigger',
    plant: [
      'CREATE VIEW feed AS SELECT id, status FROM orders',
      'CREATE TRIGGER feed_ins INSTEAD OF INSERT ON feed BEGIN UPDATE orders SET status = NEW.status WHERE abs(random()) % 4 = 0; END',
    ],
    sql: "INSERT INTO feed (id, status) VALUES (1, 'x')",
  },
  // Several statements, comments, CTEs, conflict clauses.
  { name: 'a read followed by a wipe', sql: 'SELECT 1; DELETE FROM order_items', expect: 'refused' },
  {
    name: 'a small delete followed by a wipe',
    sql: 'DELETE FROM order_items WHERE id = 1; DELETE FROM order_items',
    expect: 'refused',
  },
  {
    name: 'a wipe hidden in a comment',
    sql: "UPDATE customers SET city = 'x' WHERE id = 1 -- ; DELETE FROM order_items",
    expect: 'unasked',
  },
  {
    name: 'a CTE naming every row',
    sql: 'WITH gone AS (SELECT id FROM order_items) DELETE FROM order_items WHERE id IN gone',
    expect: 'asks',
  },
  {
    name: 'INSERT OR REPLACE over every product',
    sql: 'INSERT OR REPLACE INTO products SELECT * FROM products',
    expect: 'asks',
  },
  {
    name: 'REPLACE of one product (a delete and an insert)',
    sql: "REPLACE INTO products (id, name, price_cents, stock) VALUES (1, 'x', 1, 1)",
  },
  {
    name: 'an upsert touching 120 rows',
    sql: "INSERT INTO customers (id, name, email, city, created_at) SELECT id, name, email, city, created_at FROM customers WHERE id <= 120 ON CONFLICT (id) DO UPDATE SET city = 'U'",
    expect: 'asks',
  },
  { name: 'RETURNING on a one-row insert', sql: `${NEW_PRODUCT} RETURNING id`, expect: 'unasked' },
  // Schema.
  { name: 'DROP TABLE', sql: 'DROP TABLE order_items', expect: 'asks' },
  { name: 'a rename', sql: 'ALTER TABLE customers RENAME TO clients', expect: 'asks' },
  {
    name: 'a temp trigger to outlive the statement',
    sql: 'CREATE TEMP TRIGGER t AFTER INSERT ON customers BEGIN SELECT 1; END',
    expect: 'refused',
  },
  {
    name: 'a new table from every row (additive)',
    sql: 'CREATE TABLE copy AS SELECT * FROM order_items',
    expect: 'unasked',
  },
];
