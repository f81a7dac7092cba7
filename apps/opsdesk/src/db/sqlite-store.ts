import { createSqliteClaimStore } from '@elicitkit/server/sqlite';
import type { Database } from './open.js';
import type { Query, Step } from './query.js';
import { remembered } from './remembered.js';
import { plucked, prepared } from './statements.js';
import { runSteps, type Store } from './store.js';

/** The embedded store: `opsdesk.db` through better-sqlite3, every query run to its end at once. */
export interface SqliteStore extends Store {
  readonly dialect: 'sqlite';
  /** The connection itself, for what only SQLite has (the audit queue's synchronous commits, checkpoints). */
  readonly db: Database;
  /** Runs `query` now, synchronously: better-sqlite3 answers every statement at once. */
  runNow<T>(query: Query<T>): T;
}

/**
 * opsdesk's store on an open `opsdesk.db` (`openDatabase`), the same for every call on one
 * connection. A query runs synchronously from its first statement to its last, so a transaction never spans a turn of the event loop and nothing
 * else on this connection can land inside it.
 *
 * @example
 * const store = sqliteStore(openDatabase(dataDir));
 * const alice = await store.run(findUser('alice'));
 */
export function sqliteStore(db: Database): SqliteStore {
  let store = stores.get(db);
  if (!store) {
    store = storeOn(db);
    stores.set(db, store);
  }
  return store;
}

// One store per connection: what a store holds for its connection (the host tokens it renews) is held once.
const stores = new WeakMap<Database, SqliteStore>();

function storeOn(db: Database): SqliteStore {
  const answer = answerOn(db);
  const runNow = <T>(query: Query<T>): T => runSteps(query, answer);
  const inTransaction = db.transaction((query: Query<unknown>) => runNow(query));
  return {
    dialect: 'sqlite',
    db,
    runNow,
    run: async (query) => runNow(query),
    transaction: async <T>(query: Query<T>) => inTransaction.immediate(query) as T,
    // Synchronous and without parameters: the SQLite claim store runs it inside its own transaction.
    atomic: (make) => () => runNow(make()),
    claims: createSqliteClaimStore(db),
    isOpen: () => db.open,
    async close() {
      // The checkpoint failing (a full disk) still closes the database: the WAL keeps what it holds.
      try {
        db.pragma('wal_checkpoint(TRUNCATE)');
      } finally {
        db.close();
      }
    },
  };
}

/** How `db` answers each step of a query, synchronously. */
export function answerOn(db: Database): (step: Step) => unknown {
  const answer = (step: Step): unknown => {
    switch (step.kind) {
      case 'get':
        return prepared(db, step.sql).get(...step.params);
      case 'all':
        return prepared(db, step.sql).all(...step.params);
      case 'value':
        return plucked(db, step.sql).get(...step.params);
      case 'values':
        return plucked(db, step.sql).all(...step.params);
      case 'run':
        return prepared(db, step.sql).run(...step.params).changes;
      case 'dialect':
        return 'sqlite';
      case 'remember':
        return remembered(db, step.key, () => runSteps(step.query(), answer));
    }
  };
  return answer;
}
