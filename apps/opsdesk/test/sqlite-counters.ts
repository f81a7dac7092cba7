/**
 * What a piece of work asks of SQLite, counted exactly (not timed): the commits that reached a
 * database's WAL file, and the statements run in this process.
 */
import { readFileSync } from 'node:fs';
import type BetterSqlite3 from 'better-sqlite3';

const WAL_HEADER = 32;
const FRAME_HEADER = 24;

/**
 * Commits in `dbFile`'s WAL since it was last reset: frames carrying the current salt whose
 * "database size after commit" field is set (one per committed transaction). Turn automatic
 * checkpoints off on the writer first, or a checkpoint may reset the WAL mid-count.
 */
export function walCommits(dbFile: string): number {
  let wal: Buffer;
  try {
    wal = readFileSync(`${dbFile}-wal`);
  } catch {
    return 0;
  }
  if (wal.length < WAL_HEADER) return 0;
  const pageSize = wal.readUInt32BE(8);
  const salt = [wal.readUInt32BE(16), wal.readUInt32BE(20)];
  let commits = 0;
  for (let at = WAL_HEADER; at + FRAME_HEADER + pageSize <= wal.length; at += FRAME_HEADER + pageSize) {
    // A frame left from before the WAL was last reset carries an older salt: the log ends there.
    if (wal.readUInt32BE(at + 8) !== salt[0] || wal.readUInt32BE(at + 12) !== salt[1]) break;
    if (wal.readUInt32BE(at + 4) !== 0) commits++;
  }
  return commits;
}

/**
 * Records the SQL of every statement `db`'s driver runs in this process (better-sqlite3's
 * statement methods, transaction BEGIN and COMMIT included) until `stop()`.
 */
export function recordStatements(db: BetterSqlite3.Database): { sql: string[]; stop(): void } {
  const proto = Object.getPrototypeOf(db.prepare('SELECT 1')) as Record<string, unknown>;
  const sql: string[] = [];
  const methods = ['run', 'get', 'all', 'iterate'] as const;
  const originals = methods.map((m) => proto[m] as (...args: unknown[]) => unknown);
  methods.forEach((m, i) => {
    const original = originals[i] as (...args: unknown[]) => unknown;
    proto[m] = function (this: { source: string }, ...args: unknown[]) {
      sql.push(this.source);
      return original.apply(this, args);
    };
  });
  return {
    sql,
    stop: () => {
      methods.forEach((m, i) => {
        proto[m] = originals[i];
      });
    },
  };
}
