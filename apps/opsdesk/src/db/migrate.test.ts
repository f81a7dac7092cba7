import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { peek, peekShop, sqliteDb, tempDataDir } from '../../test/harness.js';
import { writeV1DataDir } from '../../test/v1-data-dir.js';
import { readAudit, sqliteAudit } from '../audit.js';
import { userForToken } from '../identity.js';
import { createOpsdesk } from '../opsdesk.js';
import { DataDirError, openDatabase } from './open.js';
import { SCHEMA_VERSION } from './schema.js';
import { sqliteStore } from './sqlite-store.js';

let data: ReturnType<typeof tempDataDir>;
afterEach(() => data.remove());

describe('migrating a version-1 data directory', () => {
  it('moves the shop out to a fresh shop.db and drops it, and every leftover, from opsdesk.db', async () => {
    data = tempDataDir();
    writeV1DataDir(data.dir);
    const opsdesk = await createOpsdesk({ dataDir: data.dir, locale: 'en', identify: () => 'alice' });
    await opsdesk.close();

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
    // Only opsdesk's own triggers (an account's grants and tokens go with it; a deployment by name names its account) remain.
    expect(left.filter((o) => o.type === 'trigger' || o.type === 'view')).toEqual([
      { type: 'trigger', name: 'opsdesk_deployment_account' },
      { type: 'trigger', name: 'opsdesk_holdings_removed' },
    ]);
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

  it('opens a migrated directory again without change', async () => {
    data = tempDataDir();
    writeV1DataDir(data.dir);
    await (await createOpsdesk({ dataDir: data.dir, locale: 'en', identify: () => 'alice' })).close();
    const again = await createOpsdesk({ dataDir: data.dir, locale: 'en', identify: () => 'alice' });
    expect(sqliteDb(again).prepare('SELECT COUNT(*) FROM users').pluck().get()).toBe(2);
    await again.close();
  });

  it('refuses a directory written by a newer opsdesk, with a clear error, changing nothing', async () => {
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
    expect((caught as Error).message).toMatch(
      new RegExp(`schema version 99; this opsdesk understands up to ${SCHEMA_VERSION}\\.`),
    );
    expect(peek(data.dir, "SELECT value FROM meta WHERE key = 'schema_version'")).toEqual([{ value: '99' }]);
  });
});

/** Turns a fresh data directory into what a version-2 opsdesk left: audit requests without `client`/`adaptation`, one row in. */
function writeV2DataDir(dir: string): void {
  openDatabase(dir).close();
  const db = new BetterSqlite3(join(dir, 'opsdesk.db'));
  db.exec(`
    DROP TABLE audit_requests;
    CREATE TABLE audit_requests (
      id INTEGER PRIMARY KEY, context_id TEXT NOT NULL, tool TEXT NOT NULL, question TEXT NOT NULL,
      username TEXT, mode TEXT NOT NULL, revision TEXT NOT NULL, message TEXT NOT NULL,
      fields TEXT, origin TEXT, delivered INTEGER NOT NULL, reason TEXT, at INTEGER NOT NULL
    );
    CREATE INDEX audit_requests_context ON audit_requests(context_id);
    INSERT INTO audit_requests (context_id, tool, question, username, mode, revision, message, fields, delivered, at)
      VALUES ('ctx-old', 'deploy_service', 'confirm', 'alice', 'form', '2025-11-25', 'Deploy to prod?', '["confirmed"]', 1, 1700000000000);
    UPDATE meta SET value = '2' WHERE key = 'schema_version';
  `);
  db.close();
}

describe('migrating a version-2 data directory', () => {
  it('adds the audit columns for the client and its adaptation, keeping the old rows (with neither)', async () => {
    data = tempDataDir();
    writeV2DataDir(data.dir);
    const db = openDatabase(data.dir);
    try {
      expect(db.prepare("SELECT value FROM meta WHERE key = 'schema_version'").pluck().get()).toBe(
        String(SCHEMA_VERSION),
      );
      const old = (await readAudit(db)).requests;
      expect(old).toHaveLength(1);
      expect(old[0]).toMatchObject({
        context_id: 'ctx-old',
        username: 'alice',
        fields: ['confirmed'],
        delivered: true,
        client: null,
        adaptation: null,
      });
      // The migrated table takes the new records whole.
      sqliteAudit(db)({
        type: 'request',
        contextId: 'ctx-new',
        tool: 'deploy_service',
        key: 'confirm',
        user: 'bob',
        mode: 'form',
        revision: '2025-11-25',
        message: 'Deploy to prod?',
        fields: ['confirmed', 'ticket'],
        delivered: true,
        client: 'trae',
        adaptation: { quirk: 'booleanAsChoice', fields: ['confirmed'] },
        at: 1700000001000,
      });
      expect((await readAudit(db)).requests.map((r) => [r.context_id, r.client, r.adaptation])).toEqual([
        ['ctx-old', null, null],
        ['ctx-new', 'trae', { quirk: 'booleanAsChoice', fields: ['confirmed'] }],
      ]);
    } finally {
      db.close();
    }
  });

  it('opens a migrated version-2 directory again without change, and a half-migrated one without failing', async () => {
    data = tempDataDir();
    writeV2DataDir(data.dir);
    openDatabase(data.dir).close();
    // A column already there (say a crash after ALTER in an older build) is not added twice.
    const raw = new BetterSqlite3(join(data.dir, 'opsdesk.db'));
    raw.prepare("UPDATE meta SET value = '2' WHERE key = 'schema_version'").run();
    raw.close();
    const db = openDatabase(data.dir);
    const columns = (db.pragma('table_info(audit_requests)') as { name: string }[]).map((c) => c.name);
    expect(columns.filter((c) => c === 'client' || c === 'adaptation')).toEqual(['client', 'adaptation']);
    expect((await readAudit(db)).requests).toHaveLength(1);
    db.close();
  });
});

describe('migrating a version-4 data directory', () => {
  const indexes = (dir: string) =>
    peek<{ name: string }>(dir, "SELECT name FROM sqlite_schema WHERE type = 'index' AND name LIKE 'audit%'").map(
      (r) => r.name,
    );

  it('drops the audit indexes by call id (no query reads them), keeping every audit row', async () => {
    data = tempDataDir();
    openDatabase(data.dir).close();
    // What a version-4 opsdesk left: the three indexes, a record in each indexed table.
    const raw = new BetterSqlite3(join(data.dir, 'opsdesk.db'));
    raw.exec(`
      CREATE INDEX audit_requests_context ON audit_requests(context_id);
      CREATE INDEX audit_responses_context ON audit_responses(context_id);
      CREATE INDEX audit_validations_context ON audit_validations(context_id);
      INSERT INTO audit_requests (context_id, tool, question, username, mode, revision, message, delivered, at)
        VALUES ('ctx-4', 'deploy_service', 'env', 'alice', 'form', '2025-11-25', 'Which environment?', 1, 1700000000000);
      INSERT INTO audit_responses (context_id, tool, question, username, action, content, elapsed_ms, at)
        VALUES ('ctx-4', 'deploy_service', 'env', 'alice', 'accept', '{"env":"dev"}', 12, 1700000000012);
      INSERT INTO audit_validations (context_id, tool, question, username, ok, issues, at)
        VALUES ('ctx-4', 'deploy_service', 'env', 'alice', 1, '[]', 1700000000012);
      UPDATE meta SET value = '4' WHERE key = 'schema_version';
    `);
    raw.close();
    expect(indexes(data.dir)).toHaveLength(3);

    const db = openDatabase(data.dir);
    try {
      expect(db.prepare("SELECT value FROM meta WHERE key = 'schema_version'").pluck().get()).toBe(
        String(SCHEMA_VERSION),
      );
      expect(indexes(data.dir)).toEqual([]);
      const trail = await readAudit(db);
      expect([trail.requests, trail.responses, trail.validations].map((rows) => rows.map((r) => r.context_id))).toEqual(
        [['ctx-4'], ['ctx-4'], ['ctx-4']],
      );
    } finally {
      db.close();
    }
  });

  it('creates none of them in a fresh directory, and reads the trail newest first without them', () => {
    data = tempDataDir();
    const db = openDatabase(data.dir);
    try {
      expect(indexes(data.dir)).toEqual([]);
      // readAudit's one query per table walks the rowid backwards: no index by call id is involved.
      for (const table of [
        'audit_requests',
        'audit_responses',
        'audit_validations',
        'audit_violations',
        'audit_refusals',
      ]) {
        const plan = db.prepare(`EXPLAIN QUERY PLAN SELECT * FROM ${table} ORDER BY id DESC LIMIT ?`).all(10) as {
          detail: string;
        }[];
        expect(plan.map((p) => p.detail)).toEqual([`SCAN ${table}`]);
      }
    } finally {
      db.close();
    }
  });
});

describe('migrating a version-5 data directory (v6: api_tokens.expires_at)', () => {
  it('adds the column; the tokens already there keep working and never expire', () => {
    data = tempDataDir();
    openDatabase(data.dir).close();
    const raw = new BetterSqlite3(join(data.dir, 'opsdesk.db'));
    const token = 'ek_a-token-a-version-5-opsdesk-printed';
    raw.exec(`
      DROP TRIGGER opsdesk_holdings_removed;
      DROP TABLE api_tokens;
      CREATE TABLE api_tokens (token_hash TEXT PRIMARY KEY, username TEXT NOT NULL COLLATE NOCASE, created_at TEXT NOT NULL);
      UPDATE meta SET value = '5' WHERE key = 'schema_version';
    `);
    raw
      .prepare("INSERT INTO api_tokens (token_hash, username, created_at) VALUES (?, 'alice', '2026-11-01T00:00:00Z')")
      .run(createHash('sha256').update(token).digest('hex'));
    raw.close();

    const db = openDatabase(data.dir);
    try {
      expect(db.prepare("SELECT value FROM meta WHERE key = 'schema_version'").pluck().get()).toBe(
        String(SCHEMA_VERSION),
      );
      expect(db.prepare('SELECT expires_at FROM api_tokens').all()).toEqual([{ expires_at: null }]);
      expect(sqliteStore(db).runNow(userForToken(token))?.username).toBe('alice');
    } finally {
      db.close();
    }
  });
});

describe('migrating a version-8 data directory', () => {
  it('gives registrations the account that asked for them, a pending one from before none', () => {
    data = tempDataDir();
    openDatabase(data.dir).close();
    // Version 8's registrations, without the column, one of them waiting for its password.
    const raw = new BetterSqlite3(join(data.dir, 'opsdesk.db'));
    raw.exec(`
      DROP TABLE registrations;
      CREATE TABLE registrations (
        token_hash TEXT PRIMARY KEY, context_id TEXT NOT NULL, username TEXT NOT NULL COLLATE NOCASE,
        email TEXT NOT NULL, newsletter INTEGER NOT NULL, expires_at INTEGER NOT NULL, used_at INTEGER
      );
      INSERT INTO registrations (token_hash, context_id, username, email, newsletter, expires_at)
        VALUES ('h', 'c', 'vera', 'v@example.com', 0, 9999999999999);
      UPDATE meta SET value = '8' WHERE key = 'schema_version';
    `);
    raw.close();
    const db = openDatabase(data.dir);
    try {
      expect(db.prepare("SELECT value FROM meta WHERE key = 'schema_version'").pluck().get()).toBe('9');
      expect(db.prepare('SELECT username, requested_by_id FROM registrations').all()).toEqual([
        { username: 'vera', requested_by_id: null },
      ]);
    } finally {
      db.close();
    }
  });
});
