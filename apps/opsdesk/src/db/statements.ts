import type BetterSqlite3 from 'better-sqlite3';
import type { Database } from './open.js';

type Statement = BetterSqlite3.Statement<unknown[], unknown>;

// Per connection, so a closed database takes its statements with it.
const caches = new WeakMap<Database, Map<string, Statement>>();

function cached(db: Database, key: string, make: () => Statement): Statement {
  let cache = caches.get(db);
  if (!cache) {
    cache = new Map();
    caches.set(db, cache);
  }
  let statement = cache.get(key);
  if (!statement) {
    statement = make();
    cache.set(key, statement);
  }
  return statement;
}

/**
 * The statement for a fixed `sql` on `db`, compiled on first use and reused after: SQLite's
 * prepare costs more than most of opsdesk's queries. Only for SQL written in the code (the cache
 * is keyed by the text), never for SQL a caller sends.
 *
 * @example
 * const user = prepared(db, 'SELECT username, role FROM users WHERE username = ?').get(name);
 */
export function prepared(db: Database, sql: string): Statement {
  return cached(db, sql, () => db.prepare(sql));
}

/**
 * `prepared`, returning each row's only column (better-sqlite3's `pluck`). Kept apart from
 * `prepared` because `pluck` changes the statement itself.
 *
 * @example
 * const count = plucked(db, 'SELECT COUNT(*) FROM api_tokens').get() as number;
 */
export function plucked(db: Database, sql: string): Statement {
  return cached(db, `pluck\0${sql}`, () => db.prepare(sql).pluck());
}
