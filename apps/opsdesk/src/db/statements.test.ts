import { afterEach, describe, expect, it } from 'vitest';
import { tempDataDir } from '../../test/harness.js';
import { openDatabase } from './open.js';
import { plucked, prepared } from './statements.js';

let data: ReturnType<typeof tempDataDir>;
afterEach(() => data.remove());

describe('opsdesk.db settings and statements', () => {
  it('runs WAL with synchronous NORMAL (the durability trade-off docs/opsdesk.md states)', () => {
    data = tempDataDir();
    const db = openDatabase(data.dir);
    try {
      expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
      expect(db.pragma('synchronous', { simple: true })).toBe(1); // 1 = NORMAL, 2 = FULL
    } finally {
      db.close();
    }
  });

  it('prepares each SQL text once per connection, and keeps plucking statements apart', () => {
    data = tempDataDir();
    const a = openDatabase(data.dir);
    const b = openDatabase(data.dir);
    try {
      const sql = 'SELECT username, role FROM users WHERE username = ?';
      expect(prepared(a, sql)).toBe(prepared(a, sql));
      expect(prepared(b, sql)).not.toBe(prepared(a, sql));
      expect(prepared(a, sql).get('alice')).toEqual({ username: 'alice', role: 'member' });
      // The same text plucked is another statement: the row form above is not changed by it.
      expect(plucked(a, sql).get('alice')).toBe('alice');
      expect(prepared(a, sql).get('alice')).toEqual({ username: 'alice', role: 'member' });
    } finally {
      a.close();
      b.close();
    }
  });

  it('sees writes made after a statement was prepared, and survives a table being rebuilt', () => {
    data = tempDataDir();
    const db = openDatabase(data.dir);
    try {
      const count = plucked(db, 'SELECT COUNT(*) FROM release_tickets');
      const before = count.get() as number;
      db.prepare(
        "INSERT INTO release_tickets (id, service, status, title) VALUES ('REL-9', 'order-service', 'pending', 't')",
      ).run();
      expect(plucked(db, 'SELECT COUNT(*) FROM release_tickets').get()).toBe(before + 1);
      db.exec('CREATE TABLE t (x); DROP TABLE t;'); // a schema change: SQLite re-prepares on its own
      expect(plucked(db, 'SELECT COUNT(*) FROM release_tickets').get()).toBe(before + 1);
    } finally {
      db.close();
    }
  });
});
