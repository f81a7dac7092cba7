import { openDatabase } from './open.js';
import { sqliteStore } from './sqlite-store.js';
import type { OpsdeskStore } from './store.js';

/**
 * opsdesk's own state: in the Postgres database at `database` when one is given (`pg` is loaded
 * only then), else in `opsdesk.db` in `dataDir` (SQLite, created and seeded on first start).
 *
 * @example
 * const store = await openStore(dataDir, process.env.ELICITKIT_DATABASE_URL);
 */
export async function openStore(
  dataDir: string,
  database: string | undefined,
  now: () => Date = () => new Date(),
): Promise<OpsdeskStore> {
  if (!database) return sqliteStore(openDatabase(dataDir, now));
  const { openPostgresStore } = await import('./postgres-store.js');
  return openPostgresStore(database, now);
}
