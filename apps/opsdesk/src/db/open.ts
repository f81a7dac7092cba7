import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import {
  ACCOUNT_COLUMNS,
  ADDED_COLUMNS,
  DROPPED_INDEXES,
  HOLDINGS,
  OPSDESK_OBJECTS,
  permissionsTable,
  SCHEMA,
  SCHEMA_VERSION,
  tokensTable,
  usersTable,
} from './schema.js';
import { seed } from './seed.js';
import { answerOn } from './sqlite-store.js';
import { runSteps } from './store.js';
import { enableWal } from './wal.js';

/** A connection to `opsdesk.db` (better-sqlite3). */
export type Database = BetterSqlite3.Database;

/** Thrown when a data directory cannot be opened as it is (`SCHEMA_TOO_NEW`: written by a newer opsdesk). */
export class DataDirError extends Error {
  readonly code: 'SCHEMA_TOO_NEW';
  constructor(code: 'SCHEMA_TOO_NEW', message: string) {
    super(message);
    this.name = 'DataDirError';
    this.code = code;
  }
}

/**
 * Opens (creating and seeding on first start, migrating older versions) the opsdesk database in
 * `dataDir`: WAL journal with `synchronous = NORMAL`, foreign keys on, a busy timeout so a second process waits instead of
 * failing. It holds opsdesk's own state only; the demo shop is `shop.db` (see `openShop`).
 */
export function openDatabase(dataDir: string, now: () => Date = () => new Date()): Database {
  mkdirSync(dataDir, { recursive: true });
  const file = join(dataDir, 'opsdesk.db');
  const db = new BetterSqlite3(file);
  // Closed again when anything below fails (a file that is no database fails the first pragma):
  // not left to the garbage collector, one descriptor per failed start.
  try {
    enableWal(db);
    // NORMAL in WAL syncs at checkpoints, not at every commit (~16 µs instead of ~330 µs, on the
    // event loop, two commits a deploy now). A power loss may lose the last commits, never corrupt;
    // a claim and its effect commit together, so they are lost together (`docs/opsdesk.md`, "Durability").
    db.pragma('synchronous = NORMAL');
    db.pragma('busy_timeout = 5000');
    // Off while migrating: v1 leftovers reference each other, and dropping them must not trip on that.
    db.pragma('foreign_keys = OFF');
    db.transaction(() => {
      db.exec(SCHEMA);
      const version = db.prepare("SELECT value FROM meta WHERE key = 'schema_version'").pluck().get() as
        | string
        | undefined;
      if (version === undefined) {
        db.exec(HOLDINGS);
        runSteps(seed(now().toISOString()), answerOn(db));
        db.prepare("INSERT INTO meta (key, value) VALUES ('schema_version', ?)").run(String(SCHEMA_VERSION));
        return;
      }
      if (Number(version) > SCHEMA_VERSION)
        throw new DataDirError(
          'SCHEMA_TOO_NEW',
          `${file} has schema version ${version}; this opsdesk understands up to ${SCHEMA_VERSION}. Use a newer opsdesk or another --data directory.`,
        );
      if (Number(version) < 2) dropLeftovers(db);
      if (Number(version) < 9) addColumns(db);
      if (Number(version) < 5) for (const index of DROPPED_INDEXES) db.exec(`DROP INDEX IF EXISTS ${index}`);
      if (Number(version) < 7) migrateToAccounts(db);
      if (Number(version) < 8) migrateHoldings(db);
      db.exec(HOLDINGS);
      db.prepare("UPDATE meta SET value = ? WHERE key = 'schema_version'").run(String(SCHEMA_VERSION));
    }).immediate();
    db.pragma('foreign_keys = ON');
  } catch (error) {
    db.close();
    throw error;
  }
  return db;
}

/**
 * v1 kept the demo shop in this file, and its SQL tool could create tables, views and triggers
 * here (even on opsdesk's own tables). Everything that is not opsdesk's own goes.
 */
function dropLeftovers(db: Database): void {
  const own = new Set<string>(OPSDESK_OBJECTS);
  const objects = db
    .prepare("SELECT type, name FROM sqlite_schema WHERE name NOT LIKE 'sqlite\\_%' ESCAPE '\\'")
    .all() as { type: string; name: string }[];
  // Triggers and views first: they may refer to the tables dropped after them.
  const order = ['trigger', 'view', 'index', 'table'];
  for (const type of order) {
    for (const o of objects.filter((x) => x.type === type && !own.has(x.name))) {
      db.exec(`DROP ${type.toUpperCase()} IF EXISTS "${o.name.replaceAll('"', '""')}"`);
    }
  }
}

/**
 * v7: account ids are never reused, and history names the account. `users` is rebuilt with
 * AUTOINCREMENT (same ids; the triggers on it are made again), and every record written before
 * by name alone gets the id of the account holding that name now, the only account the name can
 * be told apart from at this point: a row whose name no account holds keeps a NULL id (shown as
 * an unknown account). An account removed before the migration and its name taken since cannot
 * be told apart from the newcomer here; every record written from v7 on can.
 */
function migrateToAccounts(db: Database): void {
  const users = db.prepare("SELECT sql FROM sqlite_schema WHERE type = 'table' AND name = 'users'").pluck().get();
  if (!/AUTOINCREMENT/i.test(String(users))) {
    // A trigger reading `users` would stop the rename of the new table (SQLite checks them): made again below.
    db.exec(`DROP TRIGGER IF EXISTS opsdesk_deployment_account; DROP TABLE IF EXISTS opsdesk_users_v7; ${usersTable('opsdesk_users_v7')};
      INSERT INTO opsdesk_users_v7 (id, username, email, newsletter, role, password_hash, registration_cid, created_at)
        SELECT id, username, email, newsletter, role, password_hash, registration_cid, created_at FROM users;
      DROP TABLE users;
      ALTER TABLE opsdesk_users_v7 RENAME TO users;`);
    // The account triggers went with the old table.
    db.exec(SCHEMA);
  }
  for (const { table, account, name } of ACCOUNT_COLUMNS)
    db.exec(
      `UPDATE ${table} SET ${account} = (SELECT u.id FROM users u WHERE u.username = ${table}.${name}) WHERE ${account} IS NULL AND ${name} IS NOT NULL`,
    );
}

/**
 * v8: grants and bearer tokens are keyed by account id, no longer by name. Each row goes to the
 * account holding its name now; a row whose name no account holds is dropped (a removed account's
 * leftover, which would have passed to the next account made under the name). The triggers that
 * kept the name-keyed rows in step with removals and renames go with them.
 */
function migrateHoldings(db: Database): void {
  db.exec('DROP TRIGGER IF EXISTS opsdesk_account_removed; DROP TRIGGER IF EXISTS opsdesk_account_renamed');
  const keyed = (table: string) =>
    (db.pragma(`table_info(${table})`) as { name: string }[]).some((c) => c.name === 'user_id');
  if (!keyed('permissions'))
    db.exec(`DROP TABLE IF EXISTS opsdesk_permissions_v8; ${permissionsTable('opsdesk_permissions_v8')};
      INSERT OR IGNORE INTO opsdesk_permissions_v8 (user_id, project)
        SELECT u.id, p.project FROM permissions p JOIN users u ON u.username = p.username;
      DROP TABLE permissions;
      ALTER TABLE opsdesk_permissions_v8 RENAME TO permissions;`);
  if (!keyed('api_tokens'))
    db.exec(`DROP TABLE IF EXISTS opsdesk_api_tokens_v8; ${tokensTable('opsdesk_api_tokens_v8')};
      INSERT INTO opsdesk_api_tokens_v8 (token_hash, user_id, created_at, expires_at)
        SELECT t.token_hash, u.id, t.created_at, t.expires_at FROM api_tokens t JOIN users u ON u.username = t.username;
      DROP TABLE api_tokens;
      ALTER TABLE opsdesk_api_tokens_v8 RENAME TO api_tokens;`);
}

/** v3, v6, v7: the columns older tables lack are added (existing rows keep NULL there); ones already present are left. */
function addColumns(db: Database): void {
  for (const [table, columns] of Object.entries(ADDED_COLUMNS)) {
    const have = new Set((db.pragma(`table_info(${table})`) as { name: string }[]).map((c) => c.name));
    for (const [column, type] of Object.entries(columns))
      if (!have.has(column)) db.exec(`ALTER TABLE ${table} ADD COLUMN ${column} ${type}`);
  }
}
