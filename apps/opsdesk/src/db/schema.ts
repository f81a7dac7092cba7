/**
 * The opsdesk database: operations tables and the audit trail. Version 2 moved the demo shop out
 * to its own file (shop.db), so no connection that reaches these tables ever runs a caller's SQL.
 * Version 3 added `client` and `adaptation` to audit requests (the known client asked, and how its
 * form was shaped for it). Version 4 added `audit_refusals`: calls refused before any question (a
 * person asking for what they may not do), which leave no request row. Version 5 dropped the
 * `audit_*_context` indexes: no query reads the trail by call id (it is read newest first, by
 * rowid), and each cost a page written per audit row — three of a deploy's seven. Version 7 names
 * the account, not only its name, wherever a record says who did something (`deployments.deployed_by_id`,
 * each audit table's `user_id`; the name beside it is the name at the time), and makes account ids
 * never reused (`users.id` AUTOINCREMENT): a name is freed when its account is removed and taken by
 * the next one registered under it, and changes on a rename, so a record by name alone would read
 * as the newcomer's, or as nobody's after a rename. Rows from before are given the id of the
 * account holding their name when the data directory is migrated (`migrateToAccounts`). Version 8
 * keys what an account holds — its grants (`permissions`) and bearer tokens (`api_tokens`) — by
 * its id too: by name, they passed to the next account under that name whenever a removal did
 * not take them (a REPLACE, a restore or shell with triggers off, a token written as its account
 * went), and were only kept right by triggers. Rows whose name no account holds are dropped when
 * a data directory is migrated (`migrateHoldings`). Version 9 records which account asked for a
 * registration (`registrations.requested_by_id`): its password page makes nothing once that account
 * is gone, and a registration pending from before (no one recorded) is refused the same way.
 */
export const SCHEMA_VERSION = 9;

/**
 * The accounts table under `name` (`users`, or the table version 7 rebuilds it in). AUTOINCREMENT:
 * an id is never handed out again, even the highest one after its account is removed (a plain
 * INTEGER PRIMARY KEY takes max(id) + 1), since the id is who a record, a requestState or a token
 * lookup names.
 */
export const usersTable = (name: string): string => `CREATE TABLE IF NOT EXISTS ${name} (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  username TEXT NOT NULL UNIQUE COLLATE NOCASE,
  email TEXT,
  newsletter INTEGER NOT NULL DEFAULT 0,
  role TEXT NOT NULL DEFAULT 'member' CHECK (role IN ('owner', 'member')),
  password_hash TEXT,
  registration_cid TEXT UNIQUE,
  created_at TEXT NOT NULL
)`;

/** Grants under `name` (`permissions`, or the table version 8 rebuilds it in): the account's id, never its name. */
export const permissionsTable = (name: string): string => `CREATE TABLE IF NOT EXISTS ${name} (
  user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  project TEXT NOT NULL,
  PRIMARY KEY (user_id, project)
)`;

/** Bearer tokens (hashed) under `name` (`api_tokens`, or the table version 8 rebuilds it in), by account id. */
export const tokensTable = (name: string): string => `CREATE TABLE IF NOT EXISTS ${name} (
  token_hash TEXT PRIMARY KEY,
  user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  created_at TEXT NOT NULL,
  expires_at INTEGER
)`;

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
  -- The name the deployer had then; deployed_by_id is the account (NULL: none held the name when
  -- the row was written or migrated). Shown by the account's current name (docs/opsdesk.md).
  deployed_by TEXT NOT NULL,
  created_at TEXT NOT NULL,
  deployed_by_id INTEGER
);

${usersTable('users')};
-- What an account holds is keyed by its id, never reused, never by its name, which the next
-- account made under it takes: a grant or token left by a removal that did not take it (a
-- REPLACE, a restore or a database shell with triggers and foreign keys off) names an id no
-- account will have again. project '*' grants every project.
${permissionsTable('permissions')};
-- expires_at (epoch ms): set on tokens held by an in-process host, which renews them while it
-- lives; NULL on the tokens printed at first start, which live until revoked.
${tokensTable('api_tokens')};
-- A registration waiting for its password: not an account. The password page turns it into a
-- users row (with the password) in one transaction; otherwise it expires.
CREATE TABLE IF NOT EXISTS registrations (
  token_hash TEXT PRIMARY KEY,
  context_id TEXT NOT NULL,
  username TEXT NOT NULL COLLATE NOCASE,
  email TEXT NOT NULL,
  newsletter INTEGER NOT NULL,
  expires_at INTEGER NOT NULL,
  used_at INTEGER,
  -- The account that asked for it (v9): the page makes nothing once that account is gone.
  requested_by_id INTEGER
);
-- A deployment written by name alone (a script, an older opsdesk sharing the file) names the
-- account holding that name as it is written, as the v7 migration did for older rows.
CREATE TRIGGER IF NOT EXISTS opsdesk_deployment_account AFTER INSERT ON deployments
WHEN new.deployed_by_id IS NULL BEGIN
  UPDATE deployments SET deployed_by_id = (SELECT id FROM users WHERE username = new.deployed_by) WHERE id = new.id;
END;
CREATE TABLE IF NOT EXISTS sync_state (
  path TEXT PRIMARY KEY,
  base_hash TEXT,
  synced_at TEXT NOT NULL
);

-- The audit trail keeps what was asked, what the person did, and what the server made of it apart.
-- Each record's user_id is the account that made the call; username, the name it had then.
CREATE TABLE IF NOT EXISTS audit_requests (
  id INTEGER PRIMARY KEY, context_id TEXT NOT NULL, tool TEXT NOT NULL, question TEXT NOT NULL,
  username TEXT, mode TEXT NOT NULL, revision TEXT NOT NULL, message TEXT NOT NULL,
  fields TEXT, origin TEXT, delivered INTEGER NOT NULL, reason TEXT, at INTEGER NOT NULL,
  client TEXT, adaptation TEXT, user_id INTEGER
);
CREATE TABLE IF NOT EXISTS audit_responses (
  id INTEGER PRIMARY KEY, context_id TEXT NOT NULL, tool TEXT NOT NULL, question TEXT NOT NULL,
  username TEXT, action TEXT NOT NULL, content TEXT, elapsed_ms INTEGER NOT NULL, detail TEXT, at INTEGER NOT NULL,
  user_id INTEGER
);
CREATE TABLE IF NOT EXISTS audit_validations (
  id INTEGER PRIMARY KEY, context_id TEXT NOT NULL, tool TEXT NOT NULL, question TEXT NOT NULL,
  username TEXT, ok INTEGER NOT NULL, issues TEXT NOT NULL, at INTEGER NOT NULL, user_id INTEGER
);
CREATE TABLE IF NOT EXISTS audit_violations (
  id INTEGER PRIMARY KEY, context_id TEXT NOT NULL, tool TEXT NOT NULL, question TEXT NOT NULL,
  username TEXT, rule TEXT NOT NULL, message TEXT NOT NULL, at INTEGER NOT NULL, user_id INTEGER
);
-- A call refused before (or instead of) a question: there is no request to record, so the refusal is its own kind.
CREATE TABLE IF NOT EXISTS audit_refusals (
  id INTEGER PRIMARY KEY, context_id TEXT NOT NULL, tool TEXT NOT NULL, username TEXT,
  revision TEXT NOT NULL, message TEXT NOT NULL, at INTEGER NOT NULL, user_id INTEGER
);
`;

/**
 * Made once the tables have their version-8 shape (after `migrateHoldings` on an older file). An
 * account's grants and tokens go with it: the foreign keys' cascade, and this trigger for a
 * connection without foreign keys (SQLite's default: a database shell). Tidiness only — rows left
 * behind name an id nobody gets again. A rename needs nothing: the rows name the account.
 */
export const HOLDINGS = `
CREATE INDEX IF NOT EXISTS api_tokens_account ON api_tokens (user_id);
CREATE TRIGGER IF NOT EXISTS opsdesk_holdings_removed AFTER DELETE ON users BEGIN
  DELETE FROM permissions WHERE user_id = old.id;
  DELETE FROM api_tokens WHERE user_id = old.id;
END;
`;

/** Indexes older versions made and version 5 drops (no query uses them; each row paid a page for them). */
export const DROPPED_INDEXES = [
  'audit_requests_context',
  'audit_responses_context',
  'audit_validations_context',
] as const;

/** Columns added to existing tables since v1, by table: a data directory from before gets them added, empty. */
export const ADDED_COLUMNS: Record<string, Record<string, string>> = {
  audit_requests: { client: 'TEXT', adaptation: 'TEXT', user_id: 'INTEGER' },
  // v6
  api_tokens: { expires_at: 'INTEGER' },
  // v7
  deployments: { deployed_by_id: 'INTEGER' },
  audit_responses: { user_id: 'INTEGER' },
  audit_validations: { user_id: 'INTEGER' },
  audit_violations: { user_id: 'INTEGER' },
  audit_refusals: { user_id: 'INTEGER' },
  // v9
  registrations: { requested_by_id: 'INTEGER' },
};

/** The records that say who did something: each table's account column beside its name-at-the-time column. */
export const ACCOUNT_COLUMNS = [
  { table: 'deployments', account: 'deployed_by_id', name: 'deployed_by' },
  { table: 'audit_requests', account: 'user_id', name: 'username' },
  { table: 'audit_responses', account: 'user_id', name: 'username' },
  { table: 'audit_validations', account: 'user_id', name: 'username' },
  { table: 'audit_violations', account: 'user_id', name: 'username' },
  { table: 'audit_refusals', account: 'user_id', name: 'username' },
] as const;

/** opsdesk's own tables and indexes: everything else found in opsdesk.db is left over from v1 and dropped. */
export const OPSDESK_OBJECTS = [
  'meta',
  'services',
  'release_tickets',
  'deployments',
  'users',
  'permissions',
  'api_tokens',
  'registrations',
  'sync_state',
  'api_tokens_account',
  'opsdesk_holdings_removed',
  'opsdesk_deployment_account',
  // The claims that make each call's side effect happen at most once (@elicitkit/server/sqlite),
  // created beside the schema when opsdesk starts.
  'elicitkit_claims',
  'elicitkit_claims_expiry',
  'audit_requests',
  'audit_responses',
  'audit_validations',
  'audit_violations',
  'audit_refusals',
] as const;
