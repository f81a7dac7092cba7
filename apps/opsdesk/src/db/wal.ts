import type { Database } from 'better-sqlite3';

/** How long a busy journal-mode switch is retried: the same 5 s the busy timeout gives every other statement. */
const WAL_SWITCH_WAIT_MS = 5000;

/**
 * Puts `db` in WAL mode, waiting for other processes as the busy timeout would. SQLite does not
 * call its busy handler for this switch when another connection holds the write lock (waiting
 * could deadlock), so when several processes open a fresh data directory at the same moment all
 * but one used to fail at once with "database is locked". The switch is retried for up to
 * `waitMs`, backing off from 1 ms to 50 ms; any other error, or still busy after that, is thrown.
 * Returns the journal mode SQLite reports (`wal`, or what the file system allows instead).
 */
export function enableWal(db: Database, waitMs = WAL_SWITCH_WAIT_MS): string {
  const deadline = Date.now() + waitMs;
  for (let pause = 1; ; pause = Math.min(pause * 2, 50)) {
    try {
      return db.pragma('journal_mode = WAL', { simple: true }) as string;
    } catch (error) {
      if (!isBusy(error) || Date.now() >= deadline) throw error;
      sleepSync(pause);
    }
  }
}

function isBusy(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && code.startsWith('SQLITE_BUSY');
}

/** Opening a database is synchronous (better-sqlite3), so the wait is too. */
function sleepSync(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}
