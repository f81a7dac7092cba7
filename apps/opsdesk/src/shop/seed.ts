import type { Database } from 'better-sqlite3';

/** The demo shop's tables: the only ones execute_sql can ever reach (they live in shop.db). */
const SHOP_SCHEMA = `
CREATE TABLE customers (
  id INTEGER PRIMARY KEY, name TEXT NOT NULL, email TEXT NOT NULL, city TEXT NOT NULL, created_at TEXT NOT NULL
);
CREATE TABLE products (
  id INTEGER PRIMARY KEY, name TEXT NOT NULL, price_cents INTEGER NOT NULL, stock INTEGER NOT NULL
);
CREATE TABLE orders (
  id INTEGER PRIMARY KEY, customer_id INTEGER NOT NULL REFERENCES customers(id), status TEXT NOT NULL,
  total_cents INTEGER NOT NULL, created_at TEXT NOT NULL
);
CREATE TABLE order_items (
  id INTEGER PRIMARY KEY, order_id INTEGER NOT NULL REFERENCES orders(id), product_id INTEGER NOT NULL REFERENCES products(id),
  quantity INTEGER NOT NULL, price_cents INTEGER NOT NULL
);
`;

export const SHOP_TABLES = ['customers', 'products', 'orders', 'order_items'] as const;

const CITIES = ['Shanghai', 'Beijing', 'Shenzhen', 'Hangzhou', 'Chengdu', 'Berlin', 'Lisbon', 'Toronto'];
const FIRST = ['Li', 'Wang', 'Zhang', 'Chen', 'Ana', 'Ben', 'Chloe', 'Dev', 'Emma', 'Farid', 'Grace', 'Hiro'];
const LAST = ['Wei', 'Fang', 'Ming', 'Jun', 'Silva', 'Okafor', 'Müller', 'Rossi', 'Kim', 'Singh'];
const PRODUCTS = ['Notebook', 'Pen', 'Mug', 'Backpack', 'Lamp', 'Chair', 'Desk', 'Cable', 'Charger', 'Speaker'];
const STATUSES = ['pending', 'paid', 'shipped', 'delivered', 'cancelled'];

/** Mulberry32: a tiny deterministic PRNG, so every fresh database is identical. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const SHOP_SIZE = { customers: 200, products: 50, orders: 1200 } as const;

/** The shop's rows, table by table (deterministic: every fresh shop is identical), for either database. */
export function shopRows(): Record<(typeof SHOP_TABLES)[number], Record<string, unknown>[]> {
  const random = prng(20261130);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)] as T;
  const day = (offset: number) => new Date(Date.UTC(2026, 0, 1) + offset * 86_400_000).toISOString();
  const customers = [];
  for (let id = 1; id <= SHOP_SIZE.customers; id++) {
    const name = `${pick(FIRST)} ${pick(LAST)}`;
    customers.push({
      id,
      name,
      email: `customer${id}@shop.example`,
      city: pick(CITIES),
      created_at: day(Math.floor(random() * 300)),
    });
  }
  const products = [];
  const prices: number[] = [];
  for (let id = 1; id <= SHOP_SIZE.products; id++) {
    const price = 199 + Math.floor(random() * 20_000);
    prices.push(price);
    products.push({ id, name: `${pick(PRODUCTS)} ${id}`, price_cents: price, stock: Math.floor(random() * 500) });
  }
  const orders = [];
  const items = [];
  for (let id = 1; id <= SHOP_SIZE.orders; id++) {
    const lines = 1 + Math.floor(random() * 3);
    let total = 0;
    const rows: [number, number, number][] = [];
    for (let l = 0; l < lines; l++) {
      const productId = 1 + Math.floor(random() * SHOP_SIZE.products);
      const quantity = 1 + Math.floor(random() * 4);
      const price = prices[productId - 1] ?? 0;
      total += price * quantity;
      rows.push([productId, quantity, price]);
    }
    orders.push({
      id,
      customer_id: 1 + Math.floor(random() * SHOP_SIZE.customers),
      status: pick(STATUSES),
      total_cents: total,
      created_at: day(Math.floor(random() * 330)),
    });
    for (const [productId, quantity, price] of rows)
      items.push({ order_id: id, product_id: productId, quantity, price_cents: price });
  }
  return { customers, products, orders, order_items: items };
}

/** Creates and fills the shop's tables in a SQLite shop. */
export function seedShop(db: Database): void {
  db.exec(SHOP_SCHEMA);
  const rows = shopRows();
  for (const table of SHOP_TABLES) {
    const list = rows[table];
    const columns = Object.keys(list[0] ?? {});
    const insert = db.prepare(
      `INSERT INTO ${table} (${columns.join(', ')}) VALUES (${columns.map((c) => `@${c}`).join(', ')})`,
    );
    for (const row of list) insert.run(row);
  }
}
