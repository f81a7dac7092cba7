/**
 * What an account holds was keyed by its name — its grants (`permissions`) and bearer tokens
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
import { initializeStatus } from '../../test/raw-http.js';
import { issueToken, userForToken } from '../identity.js';
import { type HttpServing, serveHttp } from '../serve-http.js';

/** An operator's own connection to opsdesk's tables, as a script or a database shell would be. */
interface Operator {
  sql(statement: string): Promise<void>;
  /** Grants `project` to the account named `username` now (by its id where grants are kept by account). */
  grant(username: string, project: string): Promise<void>;
  /** Rows of `table` (permissions, api_tokens) held by the account `account` (its id, or its name where rows are kept by name). */
  count(table: string, account: { id: number; name: string }): Promise<number>;
  /** The id of the account named `username` now. */
  id(username: string): Promise<number>;
  /**
   * Runs `work` with nothing that acts on a removal: no triggers on users, no foreign keys (an
   * opsdesk from before them, a database shell, a restore or replica applying rows as they come).
   */
  bypassing(work: () => Promise<void>): Promise<void>;
  close(): Promise<void>;
}

/** Whether `table` keeps its rows by account (`user_id`, v8) or by name (before). */
const byAccount = (columns: string[]) => columns.includes('user_id');

function sqliteOperator(dataDir: string): Operator {
  const db = new BetterSqlite3(join(dataDir, 'opsdesk.db'));
  const keyed = (table: string) =>
    byAccount(db.prepare(`SELECT name FROM pragma_table_info('${table}')`).pluck().all() as string[]);
  return {
    sql: async (statement) => {
      db.exec(statement);
    },
    grant: async (username, project) => {
      if (keyed('permissions'))
        db.prepare('INSERT INTO permissions (user_id, project) SELECT id, ? FROM users WHERE username = ?').run(
          project,
          username,
        );
      else db.prepare('INSERT INTO permissions (username, project) VALUES (?, ?)').run(username, project);
    },
    count: async (table, account) =>
      keyed(table)
        ? (db.prepare(`SELECT COUNT(*) FROM ${table} WHERE user_id = ?`).pluck().get(account.id) as number)
        : (db.prepare(`SELECT COUNT(*) FROM ${table} WHERE username = ?`).pluck().get(account.name) as number),
    id: async (username) => db.prepare('SELECT id FROM users WHERE username = ?').pluck().get(username) as number,
    async bypassing(work) {
      const triggers = db
        .prepare("SELECT name, sql FROM sqlite_schema WHERE type = 'trigger' AND tbl_name = 'users'")
        .all() as { name: string; sql: string }[];
      db.pragma('foreign_keys = OFF');
      for (const t of triggers) db.exec(`DROP TRIGGER ${t.name}`);
      try {
        await work();
      } finally {
        for (const t of triggers) db.exec(t.sql);
        db.pragma('foreign_keys = ON');
      }
    },
    close: async () => {
      db.close();
    },
  };
}

function postgresOperator(url: string): Operator {
  const pool = new pg.Pool({ connectionString: url, options: '-c search_path=opsdesk', max: 1 });
  const keyed = async (table: string) =>
    byAccount(
      (
        await pool.query(
          "SELECT column_name FROM information_schema.columns WHERE table_schema = 'opsdesk' AND table_name = $1",
          [table],
        )
      ).rows.map((r) => r.column_name),
    );
  return {
    sql: async (statement) => {
      await pool.query(statement);
    },
    grant: async (username, project) => {
      if (await keyed('permissions'))
        await pool.query('INSERT INTO permissions (user_id, project) SELECT id, $1 FROM users WHERE username = $2', [
          project,
          username,
        ]);
      else await pool.query('INSERT INTO permissions (username, project) VALUES ($1, $2)', [username, project]);
    },
    count: async (table, account) =>
      Number(
        ((await keyed(table))
          ? await pool.query(`SELECT COUNT(*) AS n FROM ${table} WHERE user_id = $1`, [account.id])
          : await pool.query(`SELECT COUNT(*) AS n FROM ${table} WHERE username = $1`, [account.name])
        ).rows[0].n,
      ),
    id: async (username) =>
      Number((await pool.query('SELECT id FROM users WHERE username = $1', [username])).rows[0].id),
    // One connection (max: 1): what a restore does, triggers and foreign keys off for its session.
    async bypassing(work) {
      await pool.query('SET session_replication_role = replica');
      try {
        await work();
      } finally {
        await pool.query('SET session_replication_role = DEFAULT');
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
        `INSERT INTO users (username, role, created_at) VALUES ('${username}', 'member', '2026-12-01T00:00:00Z')`,
      );
      await setup.operator.grant(username, 'payment-service');
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
    const statusWith = (token: string) => initializeStatus(setup.server.url, token);
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
      const frank = { id: await setup.operator.id('frank'), name: 'frank' };
      expect(await setup.operator.count('api_tokens', frank)).toBe(1);
      await setup.operator.sql("DELETE FROM users WHERE username = 'frank'");
      expect(await setup.operator.count('permissions', frank)).toBe(0);
      expect(await setup.operator.count('api_tokens', frank)).toBe(0);
    });

    it('what a removal left behind (triggers and foreign keys off) passes to no account made under the name', async () => {
      const token = await member('erin');
      await setup.operator.bypassing(() => setup.operator.sql("DELETE FROM users WHERE username = 'erin'"));
      expect(await statusWith(token)).toBe(401);

      // Made by register_user's page, and by an operator's INSERT: neither may answer to the old token or hold the old grants.
      await register('Erin');
      expect(await statusWith(token)).toBe(401);
      expect(await seen(await as(await setup.server.ownerToken('erin')))).toEqual([]);

      const second = await member('ernie');
      await setup.operator.bypassing(() => setup.operator.sql("DELETE FROM users WHERE username = 'ernie'"));
      await setup.operator.sql(
        "INSERT INTO users (username, role, created_at) VALUES ('ernie', 'member', '2026-12-02T00:00:00Z')",
      );
      expect(await statusWith(second)).toBe(401);
      expect(await seen(await as(await setup.server.ownerToken('ernie')))).toEqual([]);
    });

    it('an account renamed to a removed account’s name holds its own grants and token only', async () => {
      const helens = await member('helen');
      await setup.operator.sql("INSERT INTO users (username, role, created_at) VALUES ('ian', 'member', 'x')");
      const ians = await setup.server.ownerToken('ian');
      await setup.operator.bypassing(() => setup.operator.sql("DELETE FROM users WHERE username = 'helen'"));
      await setup.operator.sql("UPDATE users SET username = 'helen' WHERE username = 'ian'");
      expect(await statusWith(helens)).toBe(401);
      expect(await seen(await as(ians))).toEqual([]);
    });

    it.each(['2025-11-25', '2026-07-28'] as const)(
      'a call in flight while its account takes a removed account’s name finishes as its own account (%s)',
      async (revision) => {
        const suffix = revision.slice(0, 4);
        const [kate, leo] = [`kate${suffix}`, `leo${suffix}`];
        const katesToken = await member(kate);
        const leosToken = await member(leo);
        await setup.operator.grant(leo, 'order-service');
        // Deployed to a service of its own, so the payment-service history the other cases count stays as seeded.
        await setup.operator.grant(kate, 'user-service');
        const kateId = await setup.operator.id(kate);
        // kate's deploy asks its question; while it is open, leo is removed and kate renamed to leo.
        const c = await httpClient(setup.server.url, katesToken, {
          revision,
          script: [
            async () => {
              await setup.operator.sql(`DELETE FROM users WHERE username = '${leo}'`);
              await setup.operator.sql(`UPDATE users SET username = '${leo}' WHERE username = '${kate}'`);
              return { action: 'accept', content: { env: 'dev' } };
            },
          ],
        });
        clients.push(c);
        const r = await callTool(c.client, 'deploy_service', { service: 'user-service' });
        expect(r.status).toBe('done');
        const listed = await callTool(c.client, 'list_deployments', { service: 'user-service' });
        const newest = (
          (listed.structured?.deployments ?? []) as { deployed_by: string; deployed_by_account: number }[]
        )[0];
        expect(newest).toMatchObject({ deployed_by: leo, deployed_by_account: kateId });
        // kate under leo's name holds kate's grants, not the removed leo's; leo's token answers for nobody.
        expect(await seen(c)).not.toContain('order-service');
        expect(await statusWith(leosToken)).toBe(401);
      },
    );

    it.each([
      ['before the page was opened', false],
      ['while the page was open', true],
    ])(
      'a registration link makes nothing once the account that asked for it is removed (%s)',
      async (_when, opened) => {
        const username = opened ? 'nina' : 'noah';
        const asker = await as(await member(`${username}-asker`));
        let told: { status: number; text: string } | undefined;
        asker.script.push(
          { action: 'accept', content: { username, email: `${username}@example.com`, newsletter: false } },
          async (params) => {
            const url = String(params.url);
            // The page as the person first saw it: its CSRF value and cookie, taken before the removal.
            const form = opened ? await fetch(url) : undefined;
            const html = (await form?.text()) ?? '';
            await setup.operator.sql(`DELETE FROM users WHERE username = '${username}-asker'`);
            const shown = await fetch(url);
            expect([shown.status, await shown.text()]).toEqual([410, expect.stringContaining('no longer exists')]);
            const csrf = /name="csrf" value="([^"]+)"/.exec(html)?.[1] ?? '';
            const cookie = (form?.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
            const password = 'correct horse battery';
            const sent = await fetch(url, {
              method: 'POST',
              headers: { 'content-type': 'application/x-www-form-urlencoded', cookie, origin: new URL(url).origin },
              body: new URLSearchParams({ csrf, password, confirm: password }),
            });
            told = { status: sent.status, text: await sent.text() };
            return { action: 'decline' };
          },
        );
        // The removal took the asker's token too: the call's end may never reach its client, so it is not awaited.
        void callTool(asker.client, 'register_user').catch(() => {});
        await expect
          .poll(() => told, { timeout: 10_000 })
          .toEqual({ status: 410, text: expect.stringContaining('no longer exists') });
        expect(await setup.operator.count('users', { id: 0, name: username })).toBe(0);
      },
    );

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

describe('SQLite: an account replaced in place (INSERT OR REPLACE)', () => {
  it('the new account answers to none of the old one’s tokens and holds none of its grants', async () => {
    const data = tempDataDir();
    const server = await serveHttp({ dataDir: data.dir, locale: 'en', port: 0 });
    const operator = sqliteOperator(data.dir);
    try {
      await operator.sql("INSERT INTO users (username, role, created_at) VALUES ('carol', 'member', 'x')");
      await operator.grant('carol', 'payment-service');
      const token = await server.ownerToken('carol');
      // REPLACE deletes the old row without firing delete triggers (SQLite runs them only with recursive_triggers on).
      await operator.sql("INSERT OR REPLACE INTO users (username, role, created_at) VALUES ('carol', 'member', 'y')");
      const c = await httpClient(server.url, token, { revision: '2025-11-25' }).catch((error: Error) => error);
      if (!(c instanceof Error)) {
        const r = await callTool(c.client, 'list_deployments');
        await c.close();
        expect.unreachable(`the old token was taken for the new account: ${JSON.stringify(r.structured)}`);
      }
      expect(String(c)).toMatch(/Unknown bearer token/);
    } finally {
      await operator.close();
      await server.close();
      data.remove();
    }
  });
});

/**
 * A host asks a token for a name whose account an operator is removing in a transaction not yet
 * committed: the host's lookup still sees the account. Kept by name, the token was written beside
 * the removal, outlived it and answered for nobody — then for the next account made under the
 * name. By account, writing it waits for the removal (the foreign key), finds the account gone,
 * and the host's request is made again: a token for an account that exists.
 */
async function tokenRacingARemoval(server: HttpServing, url: string): Promise<void> {
  const operator = new pg.Client({ connectionString: url, options: '-c search_path=opsdesk' });
  await operator.connect();
  try {
    await operator.query("INSERT INTO users (username, role, created_at) VALUES ('kim', 'member', 'x')");
    const removed = Number((await operator.query("SELECT id FROM users WHERE username = 'kim'")).rows[0].id);
    await operator.query("BEGIN; DELETE FROM users WHERE username = 'kim'");
    let settled = false;
    const issued = issueToken(server.opsdesk.store, 'kim').finally(() => {
      settled = true;
    });
    issued.catch(() => {});
    // Until the host's write waits on the removal's lock, or it is done without waiting.
    for (;;) {
      const waiting = await operator.query(
        "SELECT 1 FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND datname = current_database()",
      );
      if (settled || waiting.rowCount) break;
    }
    await operator.query('COMMIT');
    const token = await issued;
    const holder = await server.opsdesk.store.run(userForToken(token));
    expect(holder, 'the host was handed a token that answers for nobody').toBeDefined();
    expect(holder?.id).not.toBe(removed);
    expect(holder?.username).toBe('kim');
  } finally {
    await operator.query('ROLLBACK').catch(() => {});
    await operator.end();
  }
}

const POSTGRES = withPostgres('apps/opsdesk/src/tools/account-removed.test.ts');
describe.skipIf(!POSTGRES)('on Postgres', () => {
  let pgServer: TestPostgres | undefined;
  afterAll(async () => {
    await pgServer?.stop();
  });
  it('a token asked for while its account is being removed is made for an account that exists', async () => {
    pgServer ??= await startPostgres();
    const url = await pgServer.database('token_racing_removal');
    const data = tempDataDir();
    const server = await serveHttp({ dataDir: data.dir, database: url, locale: 'en', port: 0 });
    try {
      await tokenRacingARemoval(server, url);
    } finally {
      await server.close();
      data.remove();
    }
  });
  suite('Postgres', async () => {
    pgServer ??= await startPostgres();
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
