/**
 * Who did or may do something is an account, not a name: a name is freed when its account is
 * removed and taken by whoever registers it next, and it changes on a rename. opsdesk gave the
 * kit the caller's name as its identity, so a 2026-07-28 call started by a removed account (its
 * requestState bound to "hana") completed for the next account named hana; and the deployment
 * history and the audit trail stored the name only, so the newcomer read as the author of the
 * predecessor's deployments, and a renamed person's history kept a name nobody held any more.
 * Through the real tools over HTTP, on SQLite and Postgres, the accounts removed, renamed and
 * re-made by an operator's statements (opsdesk has no tool for it).
 */
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callTool } from '../../../../test/support/mcp.js';
import { accept, pendingOf, type RoundParams, wireRound } from '../../../../test/support/modern-wire.js';
import { startPostgres, type TestPostgres, withPostgres } from '../../../../test/support/postgres-server.js';
import { type Conn, httpClient, stdioClient, tempDataDir } from '../../test/harness.js';
import { type HttpServing, serveHttp } from '../serve-http.js';

/** An operator's own connection to opsdesk's tables, as a script or a database shell would be. */
interface Operator {
  sql(statement: string): Promise<void>;
  rows<T>(query: string, ...params: unknown[]): Promise<T[]>;
  close(): Promise<void>;
}

function sqliteOperator(dataDir: string): Operator {
  const db = new BetterSqlite3(join(dataDir, 'opsdesk.db'));
  return {
    sql: async (statement) => {
      db.exec(statement);
    },
    rows: async <T>(query: string, ...params: unknown[]) => db.prepare(query).all(...params) as T[],
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
    rows: async <T>(query: string, ...params: unknown[]) => {
      let n = 0;
      return (
        await pool.query(
          query.replace(/\?/g, () => `$${++n}`),
          params,
        )
      ).rows as T[];
    },
    close: () => pool.end(),
  };
}

interface Setup {
  server: HttpServing;
  operator: Operator;
  done(): Promise<void>;
}

const as = (token: string) => ({ headers: { authorization: `Bearer ${token}` } });

function suite(name: string, start: () => Promise<Setup>) {
  describe(`history and authority name the account, not its name (${name})`, () => {
    let setup: Setup;
    const clients: Conn[] = [];
    beforeAll(async () => {
      setup = await start();
    });
    afterAll(async () => {
      for (const c of clients) await c.close();
      await setup?.done();
    });

    /** A member the operator adds, granted payment-service: the newest account, and its token. */
    const member = async (username: string) => {
      await setup.operator.sql(
        `INSERT INTO users (username, role, created_at) VALUES ('${username}', 'member', '2026-12-01T00:00:00Z');
         INSERT INTO permissions (user_id, project) SELECT id, 'payment-service' FROM users WHERE username = '${username}'`,
      );
      return setup.server.ownerToken(username);
    };
    const remove = (username: string) => setup.operator.sql(`DELETE FROM users WHERE username = '${username}'`);
    const client = async (token: string) => {
      const c = await httpClient(setup.server.url, token, { revision: '2025-11-25' });
      clients.push(c);
      return c;
    };
    const deploymentsOf = async (c: Conn) => {
      const r = await callTool(c.client, 'list_deployments', { service: 'payment-service' });
      expect(r.status).toBe('done');
      return {
        text: r.text,
        rows: (r.structured?.deployments ?? []) as { id: number; deployed_by: string }[],
      };
    };
    const deployDev = async (token: string) => {
      const r = await callTool((await client(token)).client, 'deploy_service', {
        service: 'payment-service',
        env: 'dev',
      });
      expect(r.structured).toMatchObject({ status: 'done' });
      return Number((r.structured?.deployment as { id?: number } | undefined)?.id);
    };
    /** A deploy of a service no member is granted: refused before any question, a refusal on the record. */
    const refuse = async (token: string) => {
      const r = await callTool((await client(token)).client, 'deploy_service', {
        service: 'order-service',
        env: 'dev',
      });
      expect(r.status).toBe('rejected');
    };
    const deployments = async () =>
      Number((await setup.operator.rows<{ n: number | string }>('SELECT COUNT(*) AS n FROM deployments'))[0]?.n);

    it('a 2026-07-28 call started by a removed account does not complete for the next account under its name', async () => {
      // The newest account: without ids that are never reused, SQLite would hand its id to the next one.
      const old = await member('hana');
      const call: RoundParams = { name: 'deploy_service', arguments: { service: 'payment-service', env: 'prod' } };
      const { requestState } = pendingOf(await wireRound(setup.server.url, call, as(old)));

      await remove('hana');
      const newcomer = await member('hana');
      const before = await deployments();
      const replayed = await wireRound(
        setup.server.url,
        { ...call, inputResponses: { prod: accept({ confirmed: true, ticket: 'REL-2001' }) }, requestState },
        as(newcomer),
      );
      // The state was issued to another account: refused as any state not this caller's.
      expect(replayed.error?.code).toBe(-32602);
      expect(replayed.result).toBeUndefined();
      expect(await deployments()).toBe(before);

      // The newcomer's own call asks them and deploys as them.
      const own = pendingOf(await wireRound(setup.server.url, call, as(newcomer)));
      const done = await wireRound(
        setup.server.url,
        {
          ...call,
          inputResponses: { prod: accept({ confirmed: true, ticket: 'REL-2001' }) },
          requestState: own.requestState,
        },
        as(newcomer),
      );
      expect(done.result).toMatchObject({ structuredContent: { status: 'done' } });
    });

    it('a removed account’s deployments and audit records do not read as the next account’s under its name', async () => {
      const first = await member('ines');
      const oldDeployment = await deployDev(first);
      await refuse(first);
      const [oldAccount] = await setup.operator.rows<{ id: number | string }>(
        "SELECT id FROM users WHERE username = 'ines'",
      );
      await remove('ines');
      const second = await member('ines');
      const newDeployment = await deployDev(second);

      const { rows, text } = await deploymentsOf(await client(second));
      const by = (id: number) => rows.find((r) => r.id === id)?.deployed_by;
      expect(by(newDeployment)).toBe('ines');
      expect(by(oldDeployment)).not.toBe('ines');
      expect(by(oldDeployment)).toBe(`ines (removed account #${oldAccount?.id})`);
      expect(text).toContain(`#${oldDeployment} `);
      expect(text).toMatch(new RegExp(`#${oldDeployment} .* by ines \\(removed account #${oldAccount?.id}\\)`));

      // The trail names each record's account: a refusal of each is two accounts under one name.
      await refuse(second);
      const refusals = await setup.operator.rows<{ user_id: number | string | null }>(
        "SELECT user_id FROM audit_refusals WHERE username = 'ines' ORDER BY id",
      );
      const [newAccount] = await setup.operator.rows<{ id: number | string }>(
        "SELECT id FROM users WHERE username = 'ines'",
      );
      expect(refusals.map((r) => String(r.user_id))).toEqual([String(oldAccount?.id), String(newAccount?.id)]);
      expect(String(newAccount?.id)).not.toBe(String(oldAccount?.id));
    });

    it('a renamed account’s deployments follow it to its new name', async () => {
      const token = await member('jonas');
      const id = await deployDev(token);
      await setup.operator.sql("UPDATE users SET username = 'jon' WHERE username = 'jonas'");
      const { rows } = await deploymentsOf(await client(token));
      expect(rows.find((r) => r.id === id)?.deployed_by).toBe('jon');
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

const POSTGRES = withPostgres('apps/opsdesk/src/tools/account-identity.test.ts');
describe.skipIf(!POSTGRES)('on Postgres', () => {
  let pgServer: TestPostgres | undefined;
  afterAll(async () => {
    await pgServer?.stop();
  });
  suite('Postgres', async () => {
    pgServer = await startPostgres();
    const url = await pgServer.database('account_identity');
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

/**
 * Over stdio the caller is `--user`, a name: the process serves the account holding it when it
 * starts, for its whole life. It looked the name up again on every call, so once the account was
 * removed and the name registered again, the process acted as the newcomer, and once renamed,
 * its own person was refused.
 */
describe('stdio: the process serves the account --user named when it started', () => {
  let data: ReturnType<typeof tempDataDir>;
  let operator: Operator;
  const clients: Conn[] = [];
  beforeAll(() => {
    data = tempDataDir();
  });
  afterAll(async () => {
    for (const c of clients) await c.close();
    await operator?.close();
    data?.remove();
  });

  const member = (username: string) =>
    operator.sql(
      `INSERT INTO users (username, role, created_at) VALUES ('${username}', 'member', '2026-12-01T00:00:00Z');
       INSERT INTO permissions (user_id, project) SELECT id, 'payment-service' FROM users WHERE username = '${username}'`,
    );
  const start = async (user: string) => {
    const c = await stdioClient(data.dir, { user, revision: '2025-11-25' });
    clients.push(c);
    return c;
  };

  it('removed, it is refused, even once another account takes the name; renamed, it goes on', async () => {
    // The first start seeds the data directory; the operator then adds two members.
    const first = await stdioClient(data.dir, { user: 'alice', revision: '2025-11-25' });
    await first.close();
    operator = sqliteOperator(data.dir);
    await member('lena');
    await member('mia');
    const lena = await start('lena');
    const mia = await start('mia');

    await operator.sql("DELETE FROM users WHERE username = 'lena'");
    await member('lena');
    const removed = await callTool(lena.client, 'list_deployments', { service: 'payment-service' });
    expect(removed.status).toBe('rejected');
    expect(removed.text).toMatch(/does not know who is calling/);
    // Every tool, register_user too: a removed caller makes no account, and is asked nothing.
    const before = lena.seen.length;
    const registering = await callTool(lena.client, 'register_user');
    expect(registering.status).toBe('rejected');
    expect(registering.text).toMatch(/does not know who is calling/);
    expect(lena.seen.length).toBe(before);

    await operator.sql("UPDATE users SET username = 'mira' WHERE username = 'mia'");
    const renamed = await callTool(mia.client, 'list_deployments', { service: 'payment-service' });
    expect(renamed.status).toBe('done');
  });
});
