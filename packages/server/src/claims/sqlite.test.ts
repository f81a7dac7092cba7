import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { claimStoreSuite, manualClock } from './claims.suite.js';
import { createSqliteClaimStore } from './sqlite.js';

claimStoreSuite('sqlite', (clock) => createSqliteClaimStore(new BetterSqlite3(':memory:'), { now: clock.now }), {
  atomic: true,
});

describe('sqlite claim store specifics', () => {
  it('survives a restart and is shared by every connection to the file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'claims-'));
    try {
      const file = join(dir, 'claims.db');
      const first = new BetterSqlite3(file);
      first.pragma('journal_mode = WAL');
      const a = createSqliteClaimStore(first);
      await a.claim('call-1', 'a', { leaseMs: 1_000, ttlMs: 60_000 });
      // Another process (connection) sees the claim while it runs.
      const other = new BetterSqlite3(file);
      expect(await createSqliteClaimStore(other).claim('call-1', 'b', { leaseMs: 1_000, ttlMs: 60_000 })).toMatchObject(
        {
          state: 'running',
          owner: 'a',
        },
      );
      await a.complete('call-1', 'a', '"recorded"');
      first.close();
      other.close();
      // After a restart the recorded result is still there.
      const again = new BetterSqlite3(file);
      expect(await createSqliteClaimStore(again).read('call-1')).toEqual({ state: 'done', result: '"recorded"' });
      again.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('an atomic effect writes with the claim in one transaction: a throw undoes both', async () => {
    const db = new BetterSqlite3(':memory:');
    db.exec('CREATE TABLE deployments (id INTEGER PRIMARY KEY, env TEXT NOT NULL)');
    const store = createSqliteClaimStore(db, { now: manualClock().now });
    expect(() =>
      store.atomically?.('call-1', 60_000, () => {
        db.prepare('INSERT INTO deployments (env) VALUES (?)').run('prod');
        throw new Error('the ticket was revoked meanwhile');
      }),
    ).toThrow('revoked');
    expect(db.prepare('SELECT COUNT(*) AS n FROM deployments').get()).toEqual({ n: 0 });
    expect(await store.read('call-1')).toBeUndefined();
  });

  it('refuses a table name that is not a plain identifier', () => {
    expect(() => createSqliteClaimStore(new BetterSqlite3(':memory:'), { table: 'x; DROP TABLE users' })).toThrow(
      'not a plain SQL table name',
    );
  });
});
