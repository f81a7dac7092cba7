import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import BetterSqlite3, { type Database } from 'better-sqlite3';
import { SCHEMA, SCHEMA_VERSION } from './schema.js';
import { seed } from './seed.js';

export type { Database };

/**
 * Opens (creating and seeding on first start) the opsdesk database in `dataDir`: WAL journal,
 * foreign keys on, a busy timeout so a second process waits instead of failing.
 */
export function openDatabase(dataDir: string, now: () => Date = () => new Date()): Database {
  mkdirSync(dataDir, { recursive: true });
  const db = new BetterSqlite3(join(dataDir, 'opsdesk.db'));
  db.pragma('journal_mode = WAL');
  db.pragma('foreign_keys = ON');
  db.pragma('busy_timeout = 5000');
  db.transaction(() => {
    db.exec(SCHEMA);
    const version = db.prepare("SELECT value FROM meta WHERE key = 'schema_version'").pluck().get() as
      | string
      | undefined;
    if (version === undefined) {
      seed(db, now().toISOString());
      db.prepare("INSERT INTO meta (key, value) VALUES ('schema_version', ?)").run(String(SCHEMA_VERSION));
    } else if (Number(version) !== SCHEMA_VERSION) {
      throw new Error(
        `${join(dataDir, 'opsdesk.db')} has schema version ${version}; this opsdesk expects ${SCHEMA_VERSION}.`,
      );
    }
  }).immediate();
  return db;
}
