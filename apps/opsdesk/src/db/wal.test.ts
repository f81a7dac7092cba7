import { createRequire } from 'node:module';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import BetterSqlite3 from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { tempDataDir } from '../../test/harness.js';
import { openShop } from '../shop/open.js';
import { openDatabase } from './open.js';
import { enableWal } from './wal.js';

// Another process in the middle of its own first start: it holds the write lock of a file still in
// rollback-journal mode, which is the moment SQLite refuses a WAL switch without calling the busy
// handler. A worker thread stands in for that process (its own connection, its own event loop, so
// it can let go while this thread is blocked in a synchronous open). It takes the lock, says
// `locked`, and commits `holdMs` later, or when told `release`.
const HOLDER = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.module);
const db = new Database(workerData.file);
db.exec('BEGIN IMMEDIATE');
db.exec('INSERT INTO held (n) VALUES (1)');
const release = () => { db.exec('COMMIT'); db.close(); parentPort.postMessage('released'); };
parentPort.on('message', (m) => { if (m === 'release') release(); });
if (workerData.holdMs !== undefined) setTimeout(release, workerData.holdMs);
parentPort.postMessage('locked');
`;

interface Holder {
  release(): Promise<void>;
  released: Promise<void>;
}

/** A rollback-journal file at `file` whose write lock another connection holds (see HOLDER). */
async function holdWriteLock(file: string, holdMs?: number): Promise<Holder> {
  const setup = new BetterSqlite3(file);
  setup.exec('CREATE TABLE IF NOT EXISTS held (n INTEGER)');
  setup.close();
  const worker = new Worker(HOLDER, {
    eval: true,
    workerData: { file, holdMs, module: createRequire(import.meta.url).resolve('better-sqlite3') },
  });
  const released = new Promise<void>((resolve, reject) => {
    worker.on('message', (m) => m === 'released' && resolve());
    worker.on('error', reject);
  });
  await new Promise<void>((resolve, reject) => {
    worker.on('message', (m) => m === 'locked' && resolve());
    worker.on('error', reject);
  });
  return {
    released,
    async release() {
      worker.postMessage('release');
      await released;
      await worker.terminate();
    },
  };
}

let data: ReturnType<typeof tempDataDir>;
afterEach(() => data.remove());

describe('switching to WAL while another process starts on the same fresh file', () => {
  it('opsdesk.db: waits for the other process instead of failing with "database is locked"', async () => {
    data = tempDataDir();
    const holder = await holdWriteLock(join(data.dir, 'opsdesk.db'), 150);
    const db = openDatabase(data.dir);
    try {
      expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
      // The other process's write landed, and this start seeded as usual.
      expect(db.prepare('SELECT COUNT(*) FROM held').pluck().get()).toBe(1);
      expect(db.prepare('SELECT COUNT(*) FROM services').pluck().get()).toBeGreaterThan(0);
    } finally {
      db.close();
      await holder.release().catch(() => undefined);
    }
  });

  it('shop.db: the same', async () => {
    data = tempDataDir();
    const holder = await holdWriteLock(join(data.dir, 'shop.db'), 150);
    const shop = openShop(data.dir);
    try {
      expect(shop.db.pragma('journal_mode', { simple: true })).toBe('wal');
    } finally {
      shop.close();
      await holder.release().catch(() => undefined);
    }
  });

  it('gives up with SQLite\'s own "database is locked" once the wait is over, and the file stays as it was', async () => {
    data = tempDataDir();
    const file = join(data.dir, 'opsdesk.db');
    const holder = await holdWriteLock(file);
    const db = new BetterSqlite3(file);
    try {
      expect(() => enableWal(db, 30)).toThrow(
        expect.objectContaining({ code: 'SQLITE_BUSY', message: 'database is locked' }),
      );
      await holder.release();
      expect(db.pragma('journal_mode', { simple: true })).toBe('delete');
      expect(enableWal(db, 30)).toBe('wal');
    } finally {
      db.close();
    }
  });

  it('throws any other error at once, without retrying', () => {
    data = tempDataDir();
    const db = new BetterSqlite3(join(data.dir, 'x.db'));
    db.close();
    const tries: unknown[] = [];
    const pragma = db.pragma.bind(db);
    db.pragma = ((...args: Parameters<typeof pragma>) => {
      tries.push(args);
      return pragma(...args);
    }) as typeof db.pragma;
    expect(() => enableWal(db, 60_000)).toThrow(/not open/);
    expect(tries).toHaveLength(1);
  });
});
