/**
 * What an account holds is keyed by its name — its grants (`permissions`) and bearer tokens
 * (`api_tokens`) — and opsdesk has no tool that removes an account: an operator deletes the users
 * row. Whatever was left under the name passed to the next account made under it (register_user's
 * page, a host's issueToken): a newcomer saw and deployed the removed person's projects. Removing an
 * account now takes its grants and tokens in the same statement (a trigger), a rename moves them
 * with the person, and a data directory holding leftovers from before is cleaned as the new account
 * is made. Through the real tools, over HTTP, on SQLite and Postgres.
 */
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callTool } from '../../../../test/support/mcp.js';
import { startPostgres, type TestPostgres, withPostgres } from '../../../../test/support/postgres-server.js';
import { setPasswordOnPage } from '../../test/cases.js';
import { type Conn, httpClient, tempDataDir, tokenOf } from '../../test/harness.js';
import { SCHEMA } from '../db/schema.js';
import { type HttpServing, serveHttp } from '../serve-http.js';

/** An operator's own connection to opsdesk's tables, as a script or a database shell would be. */
interface Operator {
  sql(statement: string): Promise<void>;
  count(table: string, username: string): Promise<number>;
  /** Runs `work` with the account triggers off: a removal made by an opsdesk from before them. */
  withoutTriggers(work: () => Promise<void>): Promise<void>;
  close(): Promise<void>;
}

function sqliteOperator(dataDir: string): Operator {
  const db = new BetterSqlite3(join(dataDir, 'opsdesk.db'));
  return {
    sql: async (statement) => {
      db.exec(statement);
    },
    count: async (table, username) =>
      db.prepare(`SELECT COUNT(*) FROM ${table} WHERE username = ?`).pluck().get(username) as number,
    async withoutTriggers(work) {
      db.exec('DROP TRIGGER IF EXISTS opsdesk_account_removed; DROP TRIGGER IF EXISTS opsdesk_account_renamed');
      try {
        await work();
      } finally {
        db.exec(SCHEMA);
      }
    },
    close: async () => {
      db.close();
    },
  };
}

function postgresOperator(url: string): Operator {
  const pool = new pg.Pool({ connectionString: url, options: '-c search_path=opsdesk' });
  return {
    sql: async (statement) => {
      await pool.query(statement);
    },
    count: async (table, username) =>
      Number((await pool.query(`SELECT COUNT(*) AS n FROM ${table} WHERE username = $1`, [username])).rows[0].n),
    async withoutTriggers(work) {
      await pool.query('ALTER TABLE users DISABLE TRIGGER account_changed');
      try {
        await work();
      } finally {
        await pool.query('ALTER TABLE users ENABLE TRIGGER account_changed');
      }
    },
    close: () => pool.end(),
  };
}

interface Setup {
  server: HttpServing;
  operator: Operator;
  done(): Promise<void>;
}

function suite(name: string, start: () => Promise<Setup>) {
  describe(`an account's grants and tokens do not outlive it (${name})`, () => {
    let setup: Setup;
    let alice: Conn;
    const clients: Conn[] = [];
    beforeAll(async () => {
      setup = await start();
      alice = await httpClient(setup.server.url, tokenOf(setup.server, 'alice'), { revision: '2025-11-25' });
    });
    afterAll(async () => {
      for (const c of clients) await c.close();
      await alice?.close();
      await setup?.done();
    });

    const as = async (token: string) => {
      const c = await httpClient(setup.server.url, token, { revision: '2025-11-25' });
      clients.push(c);
      return c;
    };
    /** A member the operator adds with a grant on payment-service (two seeded deployments), and their token. */
    const member = async (username: string) => {
      await setup.operator.sql(
        `INSERT INTO users (username, role, created_at) VALUES ('${username}', 'member', '2026-12-01T00:00:00Z');
         INSERT INTO permissions (username, project) VALUES ('${username}', 'payment-service')`,
      );
      return setup.server.ownerToken(username);
    };
    /** register_user through alice's client, the password set on the page: a new member named `username`. */
    const register = async (username: string) => {
      alice.script.push(
        { action: 'accept', content: { username, email: `${username}@example.com`, newsletter: false } },
        async (params) => {
          expect((await setPasswordOnPage(String(params.url))).status).toBe(200);
          return { action: 'accept' };
        },
      );
      const r = await callTool(alice.client, 'register_user');
      expect(r.structured).toMatchObject({ status: 'done', username });
    };
    const seen = async (c: Conn) => {
      const r = await callTool(c.client, 'list_deployments');
      expect(r.status).toBe('done');
      return ((r.structured?.deployments ?? []) as { service: string }[]).map((d) => d.service);
    };

    it('a new account registered under a removed member’s name holds none of their grants', async () => {
      const old = await as(await member('carol'));
      expect(await seen(old)).toEqual(['payment-service', 'payment-service']);
      await setup.operator.sql("DELETE FROM users WHERE username = 'carol'");

      await register('carol');
      const newcomer = await as(await setup.server.ownerToken('carol'));
      expect(await seen(newcomer)).toEqual([]);
      const r = await callTool(newcomer.client, 'deploy_service', { service: 'payment-service', env: 'dev' });
      expect(r.status).toBe('rejected');
    });

    it('removing an account takes its grants and tokens in the same statement', async () => {
      await member('frank');
      await setup.operator.sql("DELETE FROM users WHERE username = 'frank'");
      expect(await setup.operator.count('permissions', 'frank')).toBe(0);
      expect(await setup.operator.count('api_tokens', 'frank')).toBe(0);
    });

    it('grants left by a removal from before the trigger do not pass either (cleaned as the account is made)', async () => {
      await member('erin');
      await setup.operator.withoutTriggers(() => setup.operator.sql("DELETE FROM users WHERE username = 'erin'"));
      expect(await setup.operator.count('permissions', 'erin')).toBe(1);

      await register('Erin');
      expect(await setup.operator.count('permissions', 'erin')).toBe(0);
      const newcomer = await as(await setup.server.ownerToken('erin'));
      expect(await seen(newcomer)).toEqual([]);
    });

    it('a rename that only changes case keeps the grants and token', async () => {
      const token = await member('gwen');
      await setup.operator.sql("UPDATE users SET username = 'Gwen' WHERE username = 'gwen'");
      expect(await seen(await as(token))).toEqual(['payment-service', 'payment-service']);
    });

    it('a renamed account keeps its grants and token; a new account under the old name gets neither', async () => {
      const token = await member('dave');
      await setup.operator.sql("UPDATE users SET username = 'david' WHERE username = 'dave'");
      const renamed = await as(token);
      expect(await seen(renamed)).toEqual(['payment-service', 'payment-service']);

      await register('dave');
      const newcomer = await as(await setup.server.ownerToken('dave'));
      expect(await seen(newcomer)).toEqual([]);
      // The old token still answers for the renamed person, not for the newcomer.
      expect(await seen(await as(token))).toEqual(['payment-service', 'payment-service']);
    });
  });
}

suite('SQLite', async () => {
  const data = tempDataDir();
  const server = await serveHttp({ dataDir: data.dir, locale: 'en', port: 0 });
  const operator = sqliteOperator(data.dir);
  return {
    server,
    operator,
    async done() {
      await operator.close();
      await server.close();
      data.remove();
    },
  };
});

const POSTGRES = withPostgres('apps/opsdesk/src/tools/account-removed.test.ts');
describe.skipIf(!POSTGRES)('on Postgres', () => {
  let pgServer: TestPostgres | undefined;
  afterAll(async () => {
    await pgServer?.stop();
  });
  suite('Postgres', async () => {
    pgServer = await startPostgres();
    const url = await pgServer.database('account_removed');
    const data = tempDataDir();
    const server = await serveHttp({ dataDir: data.dir, database: url, locale: 'en', port: 0 });
    const operator = postgresOperator(url);
    return {
      server,
      operator,
      async done() {
        await operator.close();
        await server.close();
        data.remove();
      },
    };
  });
});
