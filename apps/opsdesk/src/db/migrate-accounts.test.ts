/**
 * Version 7 names the account wherever a record says who did something, and makes account ids
 * never reused. A data directory (or Postgres database) from version 6 holds history by name
 * alone: opening it gives each such record the account holding its name at that moment (the
 * only one it can be told from then), a name nobody holds none, and on SQLite rebuilds `users`
 * so the highest id is not handed out again after its account is removed. Checked through the
 * real opsdesk over HTTP (list_deployments) and in the tables.
 */
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import pg from 'pg';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { callTool } from '../../../../test/support/mcp.js';
import { startPostgres, type TestPostgres, withPostgres } from '../../../../test/support/postgres-server.js';
import { httpClient, tempDataDir } from '../../test/harness.js';
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
      // The account triggers came back with the rebuilt table.
      db.exec("INSERT INTO permissions (username, project) VALUES ('newest', '*')");
      db.exec("DELETE FROM users WHERE username = 'newest'");
      expect(db.prepare("SELECT COUNT(*) FROM permissions WHERE username = 'newest'").pluck().get()).toBe(0);
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
