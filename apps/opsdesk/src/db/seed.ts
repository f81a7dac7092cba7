import type { Database } from 'better-sqlite3';

/** The deterministic seed documented in the README and relied on by tests and demos. */
export const SERVICES = [
  { name: 'order-service', latest: 'v2.3.1', description: 'Takes and tracks customer orders' },
  { name: 'payment-service', latest: 'v1.8.0', description: 'Charges and refunds' },
  { name: 'user-service', latest: 'v3.0.2', description: 'Accounts and profiles' },
  { name: 'search-service', latest: 'v0.9.4', description: 'Product search' },
] as const;

export const TICKETS = [
  { id: 'REL-1001', service: 'order-service', status: 'approved', title: 'Order history pagination' },
  { id: 'REL-1002', service: 'order-service', status: 'pending', title: 'Bulk order export' },
  { id: 'REL-2001', service: 'payment-service', status: 'approved', title: 'Refund retries' },
  { id: 'REL-3001', service: 'user-service', status: 'rejected', title: 'Drop legacy login' },
] as const;

export const SEED_USERS = [
  { username: 'alice', email: 'alice@opsdesk.example', projects: ['*'] },
  { username: 'bob', email: 'bob@opsdesk.example', projects: ['search-service'] },
] as const;

/** A few past deployments, so weekly reports have something to say. */
const HISTORY = [
  ['order-service', 'dev', 'v2.3.0', null, 'alice', '2026-11-02T09:15:00Z'],
  ['order-service', 'staging', 'v2.3.0', null, 'alice', '2026-11-03T14:40:00Z'],
  ['order-service', 'prod', 'v2.3.0', 'REL-1001', 'alice', '2026-11-05T10:05:00Z'],
  ['search-service', 'dev', 'v0.9.4', null, 'bob', '2026-11-09T16:20:00Z'],
  ['payment-service', 'staging', 'v1.8.0', null, 'alice', '2026-11-12T11:00:00Z'],
  ['payment-service', 'prod', 'v1.8.0', 'REL-2001', 'alice', '2026-11-13T08:30:00Z'],
] as const;

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

export const SHOP_SIZE = { customers: 200, products: 50, orders: 1200 } as const;

export function seed(db: Database, now: string): void {
  const service = db.prepare('INSERT INTO services (name, latest_version, description) VALUES (?, ?, ?)');
  for (const s of SERVICES) service.run(s.name, s.latest, s.description);
  const ticket = db.prepare('INSERT INTO release_tickets (id, service, status, title) VALUES (?, ?, ?, ?)');
  for (const t of TICKETS) ticket.run(t.id, t.service, t.status, t.title);
  for (const u of SEED_USERS) addUser(db, u.username, u.email, 'member', u.projects, now);
  const deployment = db.prepare(
    'INSERT INTO deployments (service, env, version, ticket, deployed_by, created_at) VALUES (?, ?, ?, ?, ?, ?)',
  );
  for (const row of HISTORY) deployment.run(...row);
  seedShop(db);
}

export function addUser(
  db: Database,
  username: string,
  email: string | null,
  role: 'owner' | 'member',
  projects: readonly string[],
  now: string,
): void {
  db.prepare('INSERT INTO users (username, email, role, created_at) VALUES (?, ?, ?, ?)').run(
    username,
    email,
    role,
    now,
  );
  const grant = db.prepare('INSERT OR IGNORE INTO permissions (username, project) VALUES (?, ?)');
  for (const p of projects) grant.run(username, p);
}

function seedShop(db: Database): void {
  const random = prng(20261130);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)] as T;
  const day = (offset: number) => new Date(Date.UTC(2026, 0, 1) + offset * 86_400_000).toISOString();
  const customer = db.prepare('INSERT INTO customers (id, name, email, city, created_at) VALUES (?, ?, ?, ?, ?)');
  for (let id = 1; id <= SHOP_SIZE.customers; id++) {
    const name = `${pick(FIRST)} ${pick(LAST)}`;
    customer.run(id, name, `customer${id}@shop.example`, pick(CITIES), day(Math.floor(random() * 300)));
  }
  const product = db.prepare('INSERT INTO products (id, name, price_cents, stock) VALUES (?, ?, ?, ?)');
  const prices: number[] = [];
  for (let id = 1; id <= SHOP_SIZE.products; id++) {
    const price = 199 + Math.floor(random() * 20_000);
    prices.push(price);
    product.run(id, `${pick(PRODUCTS)} ${id}`, price, Math.floor(random() * 500));
  }
  const order = db.prepare(
    'INSERT INTO orders (id, customer_id, status, total_cents, created_at) VALUES (?, ?, ?, ?, ?)',
  );
  const item = db.prepare('INSERT INTO order_items (order_id, product_id, quantity, price_cents) VALUES (?, ?, ?, ?)');
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
    order.run(
      id,
      1 + Math.floor(random() * SHOP_SIZE.customers),
      pick(STATUSES),
      total,
      day(Math.floor(random() * 330)),
    );
    for (const [productId, quantity, price] of rows) item.run(id, productId, quantity, price);
  }
}
