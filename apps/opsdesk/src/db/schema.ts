/** The opsdesk database: operations tables, the demo shop, and the audit trail. */
export const SCHEMA_VERSION = 1;

export const SCHEMA = `
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
-- A registration waiting for its password: not an account. The password page turns it into a
-- users row (with the password) in one transaction; otherwise it expires.
CREATE TABLE IF NOT EXISTS registrations (
  token_hash TEXT PRIMARY KEY,
  context_id TEXT NOT NULL,
  username TEXT NOT NULL COLLATE NOCASE,
  email TEXT NOT NULL,
  newsletter INTEGER NOT NULL,
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

/** Tables execute_sql may touch; everything else is opsdesk's own and off limits. */
export const SHOP_TABLES = ['customers', 'products', 'orders', 'order_items'] as const;

/** opsdesk's own tables (and SQLite's), which execute_sql refuses to read or write. */
export const INTERNAL_TABLES = [
  'meta',
  'services',
  'release_tickets',
  'deployments',
  'users',
  'permissions',
  'api_tokens',
  'registrations',
  // Kept by data directories from before registrations, unused since.
  'password_links',
  'sync_state',
  // The claims that make each call's side effect happen at most once (@elicitkit/server/sqlite).
  'elicitkit_claims',
  'audit_requests',
  'audit_responses',
  'audit_validations',
  'audit_violations',
  'sqlite_master',
  'sqlite_schema',
  'sqlite_temp_master',
  'sqlite_temp_schema',
  'sqlite_sequence',
] as const;
