/**
 * @elicitkit/server/sqlite — a claim store in SQLite (better-sqlite3), behind its own subpath so
 * the main entry stays free of it: claims that survive a restart, shared by every process on the
 * file, and one-transaction commits for effects that write to the same database.
 */
export {
  createSqliteClaimStore,
  type SqliteClaimStoreOptions,
  type SqliteDatabase,
  type SqliteStatement,
} from './claims/sqlite.js';
