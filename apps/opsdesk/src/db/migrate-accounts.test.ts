/**
 * Version 7 names the account wherever a record says who did something, and makes account ids
 * never reused. A data directory (or Postgres database) from version 6 holds history by name
 * alone: opening it gives each such record the account holding its name at that moment (the
 * only one it can be told from then), a name nobody holds none, and on SQLite rebuilds `users`
 * so the highest id is not handed out again after its account is removed. Checked through the
 * real opsdesk over HTTP (list_deployments) and in the tables.
 */
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import pg from 'pg';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { callTool } from '../../../../test/support/mcp.js';
import { startPostgres, type TestPostgres, withPostgres } from '../../../../test/support/postgres-server.js';
import { httpClient, tempDataDir } from '../../test/harness.js';
import { initializeStatus } from '../../test/raw-http.js';
import { serveHttp } from '../serve-http.js';
import { openDatabase } from './open.js';
import { ACCOUNT_COLUMNS, SCHEMA_VERSION } from './schema.js';

/** What version 6 left in a table of history: rows by name (`deployed_by`, `username`), no account column. */
const V6_ROWS = `
  INSERT INTO deployments (service, env, version, ticket, deployed_by, created_at)
    VALUES ('search-service', 'dev', 'v6-bob', NULL, 'bob', '2026-11-30T10:00:00Z'),
           ('search-service', 'dev', 'v6-zoe', NULL, 'zoe', '2026-11-30T11:00:00Z');
  INSERT INTO audit_requests (context_id, tool, question, username, mode, revision, message, delivered, at)
    VALUES ('ctx-v6', 'deploy_service', 'prod', 'alice', 'form', '2025-11-25', 'Deploy?', 1, 1700000000000);
  INSERT INTO audit_refusals (context_id, tool, username, revision, message, at)
    VALUES ('ctx-v6-refused', 'deploy_service', 'BOB', '2025-11-25', 'no', 1700000000001);
`;

/** list_deployments of search-service as bob (granted it in the seed), over HTTP. */
async function listedAsBob(server: Awaited<ReturnType<typeof serveHttp>>, token: string) {
  const bob = await httpClient(server.url, token, { revision: '2025-11-25' });
  try {
    const r = await callTool(bob.client, 'list_deployments', { service: 'search-service' });
    expect(r.status).toBe('done');
    return r.structured?.deployments as { version: string; deployed_by: string; deployed_by_account: number | null }[];
  } finally {
    await bob.close();
  }
}

let data: ReturnType<typeof tempDataDir> | undefined;
afterEach(() => {
  data?.remove();
  data = undefined;
});

describe('migrating a version-6 SQLite data directory', () => {
  /** A fresh directory turned into what version 6 left: `users` without AUTOINCREMENT, no account columns or trigger, history by name. */
  function writeV6DataDir(dir: string): void {
    openDatabase(dir).close();
    const db = new BetterSqlite3(join(dir, 'opsdesk.db'));
    // Grants and tokens by name, as before v8.
    db.pragma('foreign_keys = OFF');
    db.exec(V7_SQLITE);
    db.exec(`
      DROP TRIGGER opsdesk_deployment_account;
      CREATE TABLE users_v6 (
        id INTEGER PRIMARY KEY,
        username TEXT NOT NULL UNIQUE COLLATE NOCASE,
        email TEXT,
        newsletter INTEGER NOT NULL DEFAULT 0,
        role TEXT NOT NULL DEFAULT 'member' CHECK (role IN ('owner', 'member')),
        password_hash TEXT,
        registration_cid TEXT UNIQUE,
        created_at TEXT NOT NULL
      );
      INSERT INTO users_v6 SELECT id, username, email, newsletter, role, password_hash, registration_cid, created_at FROM users;
      DROP TABLE users;
      ALTER TABLE users_v6 RENAME TO users;
      DELETE FROM sqlite_sequence;
      UPDATE meta SET value = '6' WHERE key = 'schema_version';
    `);
    for (const { table, account } of ACCOUNT_COLUMNS) db.exec(`ALTER TABLE ${table} DROP COLUMN ${account}`);
    db.exec(V6_ROWS);
    db.close();
  }

  it('gives each record by name the account holding it, and never hands out a removed account’s id again', async () => {
    data = tempDataDir();
    writeV6DataDir(data.dir);
    const server = await serveHttp({ dataDir: data.dir, locale: 'en', port: 0 });
    const db = new BetterSqlite3(join(data.dir, 'opsdesk.db'));
    try {
      expect(db.prepare("SELECT value FROM meta WHERE key = 'schema_version'").pluck().get()).toBe(
        String(SCHEMA_VERSION),
      );
      const id = (name: string) => db.prepare('SELECT id FROM users WHERE username = ?').pluck().get(name) as number;
      const bob = id('bob');
      const listed = await listedAsBob(server, server.newTokens.find((t) => t.username === 'bob')?.token ?? '');
      expect(listed.find((d) => d.version === 'v6-bob')).toMatchObject({
        deployed_by: 'bob',
        deployed_by_account: bob,
      });
      expect(listed.find((d) => d.version === 'v6-zoe')).toMatchObject({
        deployed_by: 'zoe (no account)',
        deployed_by_account: null,
      });
      expect(db.prepare("SELECT user_id FROM audit_requests WHERE context_id = 'ctx-v6'").pluck().get()).toBe(
        id('alice'),
      );
      // Names compare without case, as everywhere.
      expect(db.prepare("SELECT user_id FROM audit_refusals WHERE context_id = 'ctx-v6-refused'").pluck().get()).toBe(
        bob,
      );

      // The newest account removed: the next one made gets an id of its own, not the removed one's.
      db.exec("INSERT INTO users (username, role, created_at) VALUES ('newest', 'member', 'x')");
      const newest = id('newest');
      db.exec("DELETE FROM users WHERE username = 'newest'");
      db.exec("INSERT INTO users (username, role, created_at) VALUES ('newest', 'member', 'x')");
      expect(id('newest')).toBeGreaterThan(newest);
      // An account's grants go with it on the rebuilt table.
      const again = id('newest');
      db.exec(`INSERT INTO permissions (user_id, project) VALUES (${again}, '*')`);
      db.exec("DELETE FROM users WHERE username = 'newest'");
      expect(db.prepare('SELECT COUNT(*) FROM permissions WHERE user_id = ?').pluck().get(again)).toBe(0);
    } finally {
      db.close();
      await server.close();
    }
  });
});

const POSTGRES = withPostgres('apps/opsdesk/src/db/migrate-accounts.test.ts');
describe.skipIf(!POSTGRES)('migrating a version-6 Postgres database', () => {
  let pgServer: TestPostgres | undefined;
  afterAll(async () => {
    await pgServer?.stop();
  });

  it('gives each record by name the account holding it', async () => {
    pgServer = await startPostgres();
    const url = await pgServer.database('migrate_accounts');
    data = tempDataDir();
    // Made at the current version, then turned into what version 6 left.
    await (await serveHttp({ dataDir: data.dir, database: url, locale: 'en', port: 0 })).close();
    const pool = new pg.Pool({ connectionString: url, options: '-c search_path=opsdesk' });
    try {
      await pool.query(V7_POSTGRES);
      await pool.query('DROP TRIGGER deployment_account ON deployments');
      for (const { table, account } of ACCOUNT_COLUMNS) await pool.query(`ALTER TABLE ${table} DROP COLUMN ${account}`);
      await pool.query(V6_ROWS);
      await pool.query("UPDATE meta SET value = '6' WHERE key = 'schema_version'");

      const server = await serveHttp({ dataDir: data.dir, database: url, locale: 'en', port: 0 });
      try {
        const id = async (name: string) =>
          Number((await pool.query('SELECT id FROM users WHERE username = $1', [name])).rows[0]?.id);
        const bob = await id('bob');
        const listed = await listedAsBob(server, await server.ownerToken('bob'));
        expect(listed.find((d) => d.version === 'v6-bob')).toMatchObject({
          deployed_by: 'bob',
          deployed_by_account: bob,
        });
        expect(listed.find((d) => d.version === 'v6-zoe')).toMatchObject({
          deployed_by: 'zoe (no account)',
          deployed_by_account: null,
        });
        const userOf = async (table: string, context: string) =>
          Number((await pool.query(`SELECT user_id FROM ${table} WHERE context_id = $1`, [context])).rows[0]?.user_id);
        expect(await userOf('audit_requests', 'ctx-v6')).toBe(await id('alice'));
        expect(await userOf('audit_refusals', 'ctx-v6-refused')).toBe(bob);
        expect((await pool.query("SELECT value FROM meta WHERE key = 'schema_version'")).rows).toEqual([
          { value: String(SCHEMA_VERSION) },
        ]);
      } finally {
        await server.close();
      }
    } finally {
      await pool.end();
    }
  });
});

/**
 * Version 8 keys grants and bearer tokens by account id. A version-7 database keeps them by name,
 * in step with removals and renames only through triggers: opening it moves each row to the
 * account holding its name, drops those whose name nobody holds (a removed account's leftovers,
 * which the next account made under the name took), and drops the name-keeping triggers. The v7
 * shape below is that version's own (schema.ts and postgres-schema.ts at v7).
 */
const V7_SQLITE = `
  DROP TRIGGER IF EXISTS opsdesk_holdings_removed;
  DROP INDEX IF EXISTS api_tokens_account;
  CREATE TABLE permissions_v7 (
    username TEXT NOT NULL COLLATE NOCASE,
    project TEXT NOT NULL,
    PRIMARY KEY (username, project)
  );
  INSERT INTO permissions_v7 SELECT u.username, p.project FROM permissions p JOIN users u ON u.id = p.user_id;
  CREATE TABLE api_tokens_v7 (
    token_hash TEXT PRIMARY KEY,
    username TEXT NOT NULL COLLATE NOCASE,
    created_at TEXT NOT NULL,
    expires_at INTEGER
  );
  INSERT INTO api_tokens_v7 SELECT t.token_hash, u.username, t.created_at, t.expires_at FROM api_tokens t JOIN users u ON u.id = t.user_id;
  DROP TABLE permissions;
  DROP TABLE api_tokens;
  ALTER TABLE permissions_v7 RENAME TO permissions;
  ALTER TABLE api_tokens_v7 RENAME TO api_tokens;
  CREATE TRIGGER IF NOT EXISTS opsdesk_account_removed AFTER DELETE ON users BEGIN
    DELETE FROM permissions WHERE username = old.username;
    DELETE FROM api_tokens WHERE username = old.username;
  END;
  CREATE TRIGGER IF NOT EXISTS opsdesk_account_renamed AFTER UPDATE OF username ON users
  WHEN old.username <> new.username COLLATE NOCASE BEGIN
    DELETE FROM permissions WHERE username = new.username;
    DELETE FROM api_tokens WHERE username = new.username;
    UPDATE permissions SET username = new.username WHERE username = old.username;
    UPDATE api_tokens SET username = new.username WHERE username = old.username;
  END;
  UPDATE meta SET value = '7' WHERE key = 'schema_version';
`;

const V7_POSTGRES = `
  DROP INDEX IF EXISTS api_tokens_account;
  ALTER TABLE permissions ADD COLUMN username TEXT COLLATE opsdesk.nocase;
  UPDATE permissions p SET username = u.username FROM users u WHERE u.id = p.user_id;
  ALTER TABLE permissions DROP CONSTRAINT permissions_pkey, DROP COLUMN user_id,
    ALTER COLUMN username SET NOT NULL, ADD PRIMARY KEY (username, project);
  ALTER TABLE api_tokens ADD COLUMN username TEXT COLLATE opsdesk.nocase;
  UPDATE api_tokens t SET username = u.username FROM users u WHERE u.id = t.user_id;
  ALTER TABLE api_tokens DROP COLUMN user_id, ALTER COLUMN username SET NOT NULL;
  CREATE OR REPLACE FUNCTION opsdesk.account_changed() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    IF TG_OP = 'DELETE' THEN
      DELETE FROM opsdesk.permissions WHERE username = OLD.username;
      DELETE FROM opsdesk.api_tokens WHERE username = OLD.username;
      RETURN OLD;
    END IF;
    IF NEW.username <> OLD.username COLLATE opsdesk.nocase THEN
      DELETE FROM opsdesk.permissions WHERE username = NEW.username;
      DELETE FROM opsdesk.api_tokens WHERE username = NEW.username;
      UPDATE opsdesk.permissions SET username = NEW.username WHERE username = OLD.username;
      UPDATE opsdesk.api_tokens SET username = NEW.username WHERE username = OLD.username;
    END IF;
    RETURN NEW;
  END $$;
  CREATE OR REPLACE TRIGGER account_changed AFTER DELETE OR UPDATE OF username ON opsdesk.users
    FOR EACH ROW EXECUTE FUNCTION opsdesk.account_changed();
  UPDATE meta SET value = '7' WHERE key = 'schema_version';
`;

/** What a v7 removal left by name when it bypassed the triggers: zoe's grant on everything and her token. */
const V7_LEFTOVERS = `
  INSERT INTO permissions (username, project) VALUES ('zoe', '*');
  INSERT INTO api_tokens (token_hash, username, created_at) VALUES ('${createHash('sha256').update('ek_zoe_left_behind').digest('hex')}', 'zoe', 'x');
`;

/** Opened at v8: bob's grant and token work by his account, zoe's leftovers are gone and a new zoe gets nothing. */
async function checkMigratedHoldings(
  server: Awaited<ReturnType<typeof serveHttp>>,
  bobsToken: string,
  sql: (statement: string) => Promise<unknown[]>,
): Promise<void> {
  expect(await sql("SELECT value FROM meta WHERE key = 'schema_version'")).toEqual([{ value: String(SCHEMA_VERSION) }]);
  // bob's grant (search-service) and first-start token, now his account's.
  expect((await listedAsBob(server, bobsToken)).length).toBeGreaterThan(0);
  expect(await sql('SELECT COUNT(*) AS n FROM permissions WHERE user_id IS NULL')).toEqual([{ n: 0 }]);
  // A name-keeping trigger left in place would still run against columns that are gone.
  await sql("UPDATE users SET username = 'robert' WHERE username = 'bob'");
  expect((await listedAsBob(server, bobsToken)).length).toBeGreaterThan(0);
  // zoe's leftovers were nobody's: dropped, not handed to the account made next under her name.
  await sql("INSERT INTO users (username, role, created_at) VALUES ('zoe', 'member', 'x')");
  expect(await initializeStatus(server.url, 'ek_zoe_left_behind')).toBe(401);
  expect(
    await sql("SELECT COUNT(*) AS n FROM permissions p JOIN users u ON u.id = p.user_id WHERE u.username = 'zoe'"),
  ).toEqual([{ n: 0 }]);
  await sql("DELETE FROM users WHERE username = 'robert'");
  expect(await initializeStatus(server.url, bobsToken)).toBe(401);
}

describe('migrating a version-7 SQLite data directory (v8: grants and tokens by account)', () => {
  it('moves each grant and token to its account and drops what no account holds', async () => {
    data = tempDataDir();
    const first = await serveHttp({ dataDir: data.dir, locale: 'en', port: 0 });
    const bobsToken = first.newTokens.find((t) => t.username === 'bob')?.token ?? '';
    await first.close();
    const db = new BetterSqlite3(join(data.dir, 'opsdesk.db'));
    db.pragma('foreign_keys = OFF');
    db.exec(V7_SQLITE);
    db.exec(V7_LEFTOVERS);
    db.pragma('foreign_keys = ON');

    const server = await serveHttp({ dataDir: data.dir, locale: 'en', port: 0 });
    try {
      await checkMigratedHoldings(server, bobsToken, async (statement) => {
        const prepared = db.prepare(statement);
        if (prepared.reader) return prepared.all();
        prepared.run();
        return [];
      });
      expect(
        db
          .prepare(
            "SELECT name FROM sqlite_schema WHERE name IN ('opsdesk_account_removed', 'opsdesk_account_renamed')",
          )
          .all(),
      ).toEqual([]);
    } finally {
      db.close();
      await server.close();
    }
  });
});

describe.skipIf(!POSTGRES)('migrating a version-7 Postgres database (v8: grants and tokens by account)', () => {
  let pgServer: TestPostgres | undefined;
  afterAll(async () => {
    await pgServer?.stop();
  });

  it('moves each grant and token to its account and drops what no account holds', async () => {
    pgServer = await startPostgres();
    const url = await pgServer.database('migrate_holdings');
    data = tempDataDir();
    const first = await serveHttp({ dataDir: data.dir, database: url, locale: 'en', port: 0 });
    const bobsToken = first.newTokens.find((t) => t.username === 'bob')?.token ?? '';
    await first.close();
    const pool = new pg.Pool({ connectionString: url, options: '-c search_path=opsdesk' });
    try {
      await pool.query(V7_POSTGRES);
      await pool.query(V7_LEFTOVERS);
      const server = await serveHttp({ dataDir: data.dir, database: url, locale: 'en', port: 0 });
      try {
        await checkMigratedHoldings(server, bobsToken, async (statement) =>
          (await pool.query(statement)).rows.map((r) => ('n' in r ? { n: Number(r.n) } : r)),
        );
        expect((await pool.query("SELECT tgname FROM pg_trigger WHERE tgname = 'account_changed'")).rows).toEqual([]);
      } finally {
        await server.close();
      }
    } finally {
      await pool.end();
    }
  });
});
