/**
 * A data directory as opsdesk schema version 1 left it (issue 11): the demo shop inside
 * opsdesk.db, and what its SQL tool let an attacker leave behind there.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';

/** opsdesk.db's schema at version 1, verbatim. */
export const V1_SCHEMA = `
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);

CREATE TABLE IF NOT EXISTS services (
  name TEXT PRIMARY KEY,
  latest_version TEXT NOT NULL,
  description TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS release_tickets (
  id TEXT PRIMARY KEY,
  service TEXT NOT NULL REFERENCES services(name),
  status TEXT NOT NULL CHECK (status IN ('approved', 'pending', 'rejected')),
  title TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS deployments (
  id INTEGER PRIMARY KEY,
  service TEXT NOT NULL REFERENCES services(name),
  env TEXT NOT NULL CHECK (env IN ('dev', 'staging', 'prod')),
  version TEXT NOT NULL,
  ticket TEXT REFERENCES release_tickets(id),
  deployed_by TEXT NOT NULL,
  created_at TEXT NOT NULL
);

CREATE TABLE IF NOT EXISTS users (
  id INTEGER PRIMARY KEY,
  username TEXT NOT NULL UNIQUE COLLATE NOCASE,
  email TEXT,
  newsletter INTEGER NOT NULL DEFAULT 0,
  role TEXT NOT NULL DEFAULT 'member' CHECK (role IN ('owner', 'member')),
  password_hash TEXT,
  registration_cid TEXT UNIQUE,
  created_at TEXT NOT NULL
);
-- project '*' grants every project.
CREATE TABLE IF NOT EXISTS permissions (
  username TEXT NOT NULL COLLATE NOCASE,
  project TEXT NOT NULL,
  PRIMARY KEY (username, project)
);
CREATE TABLE IF NOT EXISTS api_tokens (
  token_hash TEXT PRIMARY KEY,
  username TEXT NOT NULL COLLATE NOCASE,
  created_at TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS password_links (
  token_hash TEXT PRIMARY KEY,
  username TEXT NOT NULL COLLATE NOCASE,
  expires_at INTEGER NOT NULL,
  used_at INTEGER
);
CREATE TABLE IF NOT EXISTS sync_state (
  path TEXT PRIMARY KEY,
  base_hash TEXT,
  synced_at TEXT NOT NULL
);

-- The audit trail keeps what was asked, what the person did, and what the server made of it apart.
CREATE TABLE IF NOT EXISTS audit_requests (
  id INTEGER PRIMARY KEY, context_id TEXT NOT NULL, tool TEXT NOT NULL, question TEXT NOT NULL,
  username TEXT, mode TEXT NOT NULL, revision TEXT NOT NULL, message TEXT NOT NULL,
  fields TEXT, origin TEXT, delivered INTEGER NOT NULL, reason TEXT, at INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS audit_responses (
  id INTEGER PRIMARY KEY, context_id TEXT NOT NULL, tool TEXT NOT NULL, question TEXT NOT NULL,
  username TEXT, action TEXT NOT NULL, content TEXT, elapsed_ms INTEGER NOT NULL, detail TEXT, at INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS audit_validations (
  id INTEGER PRIMARY KEY, context_id TEXT NOT NULL, tool TEXT NOT NULL, question TEXT NOT NULL,
  username TEXT, ok INTEGER NOT NULL, issues TEXT NOT NULL, at INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS audit_violations (
  id INTEGER PRIMARY KEY, context_id TEXT NOT NULL, tool TEXT NOT NULL, question TEXT NOT NULL,
  username TEXT, rule TEXT NOT NULL, message TEXT NOT NULL, at INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS audit_requests_context ON audit_requests(context_id);
CREATE INDEX IF NOT EXISTS audit_responses_context ON audit_responses(context_id);
CREATE INDEX IF NOT EXISTS audit_validations_context ON audit_validations(context_id);

-- The demo shop execute_sql works on.
CREATE TABLE IF NOT EXISTS customers (
  id INTEGER PRIMARY KEY, name TEXT NOT NULL, email TEXT NOT NULL, city TEXT NOT NULL, created_at TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS products (
  id INTEGER PRIMARY KEY, name TEXT NOT NULL, price_cents INTEGER NOT NULL, stock INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS orders (
  id INTEGER PRIMARY KEY, customer_id INTEGER NOT NULL REFERENCES customers(id), status TEXT NOT NULL,
  total_cents INTEGER NOT NULL, created_at TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS order_items (
  id INTEGER PRIMARY KEY, order_id INTEGER NOT NULL REFERENCES orders(id), product_id INTEGER NOT NULL REFERENCES products(id),
  quantity INTEGER NOT NULL, price_cents INTEGER NOT NULL
);
`;

/** Writes a version-1 opsdesk.db into `dir`, with a few shop rows and an attacker's leftovers. */
export function writeV1DataDir(dir: string): void {
  mkdirSync(dir, { recursive: true });
  const db = new BetterSqlite3(join(dir, 'opsdesk.db'));
  db.pragma('journal_mode = WAL');
  db.exec(V1_SCHEMA);
  db.exec(`
    INSERT INTO meta VALUES ('schema_version', '1'), ('state_secret', '0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef');
    INSERT INTO services VALUES ('order-service', 'v2.3.1', 'Orders'), ('search-service', 'v0.9.4', 'Search');
    INSERT INTO users (username, email, role, created_at) VALUES ('alice', 'a@x', 'member', 'x'), ('bob', 'b@x', 'member', 'x');
    INSERT INTO permissions VALUES ('alice', '*'), ('bob', 'search-service');
    INSERT INTO api_tokens VALUES ('hash-of-alice', 'alice', 'x');
    INSERT INTO deployments (service, env, version, deployed_by, created_at) VALUES ('order-service', 'dev', 'v1', 'alice', 'x');
    INSERT INTO customers VALUES (1, 'Old Customer', 'c@x', 'Rome', 'x');
    INSERT INTO orders VALUES (1, 1, 'paid', 100, 'x');
    -- What v1's execute_sql let through: objects on opsdesk's own tables and stray tables.
    CREATE TRIGGER steal AFTER INSERT ON deployments BEGIN UPDATE users SET role = 'owner' WHERE username = 'bob'; END;
    CREATE TRIGGER grab AFTER UPDATE ON products BEGIN INSERT INTO permissions VALUES ('bob', '*'); END;
    CREATE VIEW leak AS SELECT * FROM api_tokens;
    CREATE TABLE scratch (x);
    CREATE INDEX users_by_email ON users(email);
  `);
  db.close();
}
