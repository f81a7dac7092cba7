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
 * account holding their name when the data directory is migrated (`migrateToAccounts`).
 */
export const SCHEMA_VERSION = 7;

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
-- project '*' grants every project.
CREATE TABLE IF NOT EXISTS permissions (
  username TEXT NOT NULL COLLATE NOCASE,
  project TEXT NOT NULL,
  PRIMARY KEY (username, project)
);
-- expires_at (epoch ms): set on tokens held by an in-process host, which renews them while it
-- lives; NULL on the tokens printed at first start, which live until revoked.
CREATE TABLE IF NOT EXISTS api_tokens (
  token_hash TEXT PRIMARY KEY,
  username TEXT NOT NULL COLLATE NOCASE,
  created_at TEXT NOT NULL,
  expires_at INTEGER
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
-- What an account holds goes with it: its grants and its bearer tokens are keyed by its name,
-- which the next account made under that name would otherwise inherit. Removed (or moved, on a
-- rename) by the statement that removes the account, however it is removed (opsdesk has no tool
-- for it: an operator's DELETE). History (deployments, the audit trail) names the account by its
-- id, never reused, beside the name it had then.
CREATE TRIGGER IF NOT EXISTS opsdesk_account_removed AFTER DELETE ON users BEGIN
  DELETE FROM permissions WHERE username = old.username;
  DELETE FROM api_tokens WHERE username = old.username;
END;
CREATE TRIGGER IF NOT EXISTS opsdesk_account_renamed AFTER UPDATE OF username ON users
WHEN old.username <> new.username COLLATE NOCASE BEGIN
  DELETE FROM permissions WHERE username = new.username;
  DELETE FROM api_tokens WHERE username = new.username;
  UPDATE permissions SET username = new.username WHERE username = old.username;
  UPDATE api_tokens SET username = new.username WHERE username = old.username;
END;
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
  'opsdesk_account_removed',
  'opsdesk_account_renamed',
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
