import { existsSync } from 'node:fs';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { peek, peekShop, tempDataDir } from '../../test/harness.js';
import { writeV1DataDir } from '../../test/v1-data-dir.js';
import { createOpsdesk } from '../opsdesk.js';
import { DataDirError, openDatabase } from './open.js';
import { SCHEMA_VERSION } from './schema.js';

let data: ReturnType<typeof tempDataDir>;
afterEach(() => data.remove());

describe('migrating a version-1 data directory', () => {
  it('moves the shop out to a fresh shop.db and drops it, and every leftover, from opsdesk.db', () => {
    data = tempDataDir();
    writeV1DataDir(data.dir);
    const opsdesk = createOpsdesk({ dataDir: data.dir, locale: 'en', identify: () => 'alice' });
    opsdesk.close();

    expect(peek(data.dir, "SELECT value FROM meta WHERE key = 'schema_version'")).toEqual([
      { value: String(SCHEMA_VERSION) },
    ]);
    const left = peek<{ type: string; name: string }>(
      data.dir,
      "SELECT type, name FROM sqlite_schema WHERE name NOT LIKE 'sqlite_%' ORDER BY name",
    );
    const names = left.map((o) => o.name);
    for (const gone of [
      'customers',
      'products',
      'orders',
      'order_items',
      'steal',
      'grab',
      'leak',
      'scratch',
      'users_by_email',
    ])
      expect(names).not.toContain(gone);
    expect(left.filter((o) => o.type === 'trigger' || o.type === 'view')).toEqual([]);
    // opsdesk's own state is kept as it was.
    expect(peek(data.dir, 'SELECT username, role FROM users ORDER BY id')).toEqual([
      { username: 'alice', role: 'member' },
      { username: 'bob', role: 'member' },
    ]);
    expect(peek(data.dir, 'SELECT token_hash FROM api_tokens')).toEqual([{ token_hash: 'hash-of-alice' }]);
    expect(peek(data.dir, "SELECT value FROM meta WHERE key = 'state_secret'")).toEqual([
      { value: '0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef' },
    ]);
    // The shop is seeded anew (v1's rows may carry an attacker's triggers; nothing is copied).
    expect(existsSync(join(data.dir, 'shop.db'))).toBe(true);
    expect(peekShop(data.dir, 'SELECT COUNT(*) AS n FROM orders')).toEqual([{ n: 1200 }]);
    expect(peekShop(data.dir, "SELECT COUNT(*) AS n FROM customers WHERE name = 'Old Customer'")).toEqual([{ n: 0 }]);
  });

  it('opens a migrated directory again without change', () => {
    data = tempDataDir();
    writeV1DataDir(data.dir);
    createOpsdesk({ dataDir: data.dir, locale: 'en', identify: () => 'alice' }).close();
    const again = createOpsdesk({ dataDir: data.dir, locale: 'en', identify: () => 'alice' });
    expect(again.db.prepare('SELECT COUNT(*) FROM users').pluck().get()).toBe(2);
    again.close();
  });

  it('refuses a directory written by a newer opsdesk, with a clear error, changing nothing', () => {
    data = tempDataDir();
    openDatabase(data.dir).close();
    const db = new BetterSqlite3(join(data.dir, 'opsdesk.db'));
    db.prepare("UPDATE meta SET value = '99' WHERE key = 'schema_version'").run();
    db.close();
    let caught: unknown;
    try {
      openDatabase(data.dir);
    } catch (e) {
      caught = e;
    }
    expect(caught).toBeInstanceOf(DataDirError);
    expect((caught as DataDirError).code).toBe('SCHEMA_TOO_NEW');
    expect((caught as Error).message).toMatch(/schema version 99; this opsdesk understands up to 2/);
    expect(peek(data.dir, "SELECT value FROM meta WHERE key = 'schema_version'")).toEqual([{ value: '99' }]);
  });
});
