/**
 * opsdesk's reads and writes, written once for both databases it runs on. A query is a generator
 * that yields the statements it needs and gets their results back: the SQLite store runs it to
 * the end synchronously (better-sqlite3 answers at once, so a transaction never spans a turn of
 * the event loop), the Postgres store awaits each statement on one connection. The SQL is the
 * part both dialects share, with `?` placeholders; where they differ, a query asks `dialect()`.
 *
 * @example
 * function* nameOf(account: number): Query<{ username: string } | undefined> {
 *   return yield* get<{ username: string }>('SELECT username FROM users WHERE id = ?', account);
 * }
 * const who = await store.run(nameOf(7));
 */

/** Which database a query runs on. */
export type Dialect = 'sqlite' | 'postgres';

/** One thing a query asks of the store it runs on. */
export type Step =
  | { kind: 'get' | 'all' | 'value' | 'values' | 'run'; sql: string; params: readonly unknown[] }
  | { kind: 'dialect' }
  | { kind: 'remember'; key: string; query: () => Query<object | undefined> };

/** A query: yields steps, returns `T`. Run it with `Store.run` or `Store.transaction`, once. */
export type Query<T> = Generator<Step, T, unknown>;

/** The first row, or undefined. */
export function* get<T>(sql: string, ...params: unknown[]): Query<T | undefined> {
  return (yield { kind: 'get', sql, params }) as T | undefined;
}

/** Every row. */
export function* all<T>(sql: string, ...params: unknown[]): Query<T[]> {
  return (yield { kind: 'all', sql, params }) as T[];
}

/** The first row's only column, or undefined when there is no row. */
export function* value<T>(sql: string, ...params: unknown[]): Query<T | undefined> {
  return (yield { kind: 'value', sql, params }) as T | undefined;
}

/** Every row's only column. */
export function* values<T>(sql: string, ...params: unknown[]): Query<T[]> {
  return (yield { kind: 'values', sql, params }) as T[];
}

/** Runs a statement that returns no rows; how many rows it changed. */
export function* run(sql: string, ...params: unknown[]): Query<number> {
  return (yield { kind: 'run', sql, params }) as number;
}

/** The database this query is running on, for the few statements the two spell differently. */
export function* dialect(): Query<Dialect> {
  return (yield { kind: 'dialect' }) as Dialect;
}

/**
 * `query`'s answer about who someone is or what they may do, which may be remembered under `key`
 * by a store that can tell when the tables it read change (SQLite: `remembered`), and is read
 * afresh otherwise. It may read `api_tokens`, `users`, `permissions` and `services` only.
 */
export function* remember<T extends object>(key: string, query: () => Query<T | undefined>): Query<T | undefined> {
  return (yield { kind: 'remember', key, query }) as T | undefined;
}
