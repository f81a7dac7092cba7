import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import BetterSqlite3, { type Database } from 'better-sqlite3';
import { enableWal } from '../db/wal.js';
import { seedShop } from './seed.js';

/** The shop's file may grow to this many pages (4 KiB each): 256 MiB, so no statement can fill the disk. */
const SHOP_MAX_PAGES = 65_536;

/** The demo shop: its own SQLite file, and the one connection execute_sql ever uses. */
export interface Shop {
  /** The execution connection. It never attaches anything: opsdesk.db is out of its reach. */
  db: Database;
  /** shop.db's absolute path (for fresh read-only connections that inspect a statement). */
  file: string;
  /** Deletes the shop and seeds it anew (the demo reset). */
  reset(): void;
  close(): void;
}

/**
 * Opens `shop.db` in `dataDir`, creating and seeding it when it is missing. The connection is
 * hardened: schema objects cannot call functions with side effects (`trusted_schema=OFF`), cells
 * are checked on read, foreign keys hold, and the file has a size ceiling.
 *
 * @example
 * const shop = openShop(dataDir);
 * shop.db.prepare('SELECT COUNT(*) FROM orders').pluck().get(); // 1200 on a fresh shop
 */
export function openShop(dataDir: string): Shop {
  mkdirSync(dataDir, { recursive: true });
  const file = join(dataDir, 'shop.db');
  let db = connect(file);
  const shop: Shop = {
    get db() {
      return db;
    },
    file,
    reset() {
      db.close();
      for (const suffix of ['', '-wal', '-shm', '-journal']) rmSync(`${file}${suffix}`, { force: true });
      db = connect(file);
    },
    close() {
      if (!db.open) return;
      db.pragma('wal_checkpoint(TRUNCATE)');
      db.close();
    },
  };
  return shop;
}

function connect(file: string): Database {
  const db = new BetterSqlite3(file);
  // Closed again when anything below fails (a file that is no database): not left to the garbage
  // collector, one descriptor per failed start.
  try {
    // Two processes may start on a fresh directory at once: wait for the other, never fail.
    db.pragma('busy_timeout = 5000');
    enableWal(db);
    db.pragma('foreign_keys = ON');
    db.pragma('trusted_schema = OFF');
    db.pragma('cell_size_check = ON');
    db.pragma(`max_page_count = ${SHOP_MAX_PAGES}`);
    // An empty file (new, or a seed that never finished) is seeded, in one write transaction that
    // checks and seeds together, so a second process starting at the same moment waits and sees it.
    db.transaction(() => {
      if (db.prepare('SELECT COUNT(*) FROM sqlite_schema').pluck().get() === 0) seedShop(db);
    }).immediate();
    return db;
  } catch (error) {
    db.close();
    throw error;
  }
}
