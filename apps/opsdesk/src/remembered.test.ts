/**
 * Who a token is and what they may do are remembered between requests (`db/remembered.ts`), and
 * must never be served past a change: revoked by this process, by another connection in it, or by
 * another process on the same data directory (the CLI, a replica) — refused at the very next
 * request or call, over real HTTP.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import BetterSqlite3 from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callTool } from '../../../test/support/mcp.js';
import { type Conn, httpClient, httpOpsdeskForSuite, sqliteDb, tempDataDir } from '../test/harness.js';
import { recordStatements } from '../test/sqlite-counters.js';
import { openDatabase } from './db/open.js';
import { remembered } from './db/remembered.js';
import { sqliteStore } from './db/sqlite-store.js';
import { createToken, findUser, type Identity, userForToken } from './identity.js';
import { accessTo } from './permissions.js';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const served = httpOpsdeskForSuite();
const dbFile = () => join(served.dataDir, 'opsdesk.db');

/** Runs `sql` on opsdesk.db from another process, as the CLI or another replica would. */
function inAnotherProcess(sql: string): void {
  const script = `const db = new (require('better-sqlite3'))(process.argv[1]); db.pragma('busy_timeout = 5000'); db.exec(process.argv[2]); db.close();`;
  execFileSync(process.execPath, ['-e', script, dbFile(), sql], { cwd: ROOT });
}

/** Runs `sql` on opsdesk.db through another connection in this process (a web app's, a test's). */
function inAnotherConnection(sql: string): void {
  const db = new BetterSqlite3(dbFile());
  try {
    db.pragma('busy_timeout = 5000');
    db.exec(sql);
  } finally {
    db.close();
  }
}

const INITIALIZE = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'x', version: '1' } },
});

/** The status of one request made with `token` (an initialize: 200 when the token is good). */
async function statusWith(token: string): Promise<number> {
  const response = await fetch(served.server.url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      authorization: `Bearer ${token}`,
    },
    body: INITIALIZE,
  });
  await response.body?.cancel();
  return response.status;
}

/** A token for the account named `name` now (tokens are made for an account, by its id). */
function* tokenFor(name: string) {
  return yield* createToken((yield* findUser(name))?.id ?? 0);
}
/** dana's account, in SQL. */
const DANA_ROW = "users WHERE username = 'dana'";
const DANA = `(SELECT id FROM ${DANA_ROW})`;

/** How opsdesk stores a token (identity.ts). */
const hashOf = (token: string) => createHash('sha256').update(token).digest('hex');

describe.each([
  ['another process', inAnotherProcess],
  ['another connection in this process', inAnotherConnection],
  ['this process’s own connection', (sql: string) => sqliteDb(served.server.opsdesk).exec(sql)],
] as const)('a change made by %s applies at the next request', (_by, change) => {
  it('a revoked token is refused at its next request', async () => {
    const token = await served.server.opsdesk.store.run(tokenFor('alice'));
    // Used twice, so it is remembered.
    expect(await statusWith(token)).toBe(200);
    expect(await statusWith(token)).toBe(200);
    change(`DELETE FROM api_tokens WHERE token_hash = '${hashOf(token)}'`);
    expect(await statusWith(token)).toBe(401);
  });

  it('the token of a user removed is refused at its next request', async () => {
    await served.server.ownerToken('carol');
    const token = await served.server.opsdesk.store.run(tokenFor('carol'));
    expect(await statusWith(token)).toBe(200);
    expect(await statusWith(token)).toBe(200);
    change("DELETE FROM users WHERE username = 'carol'");
    expect(await statusWith(token)).toBe(401);
  });

  describe('grants, on a session that stays open', () => {
    let conn: Conn;
    const deploy = async (service: string) => {
      conn.script.push({ action: 'accept', content: { env: 'dev' } });
      return callTool(conn.client, 'deploy_service', { service });
    };
    beforeAll(async () => {
      await served.server.ownerToken('dana');
      inAnotherConnection("UPDATE users SET role = 'member' WHERE username = 'dana'");
      inAnotherConnection(`DELETE FROM permissions WHERE user_id = ${DANA}`);
      inAnotherConnection(`INSERT INTO permissions (user_id, project) SELECT id, 'search-service' FROM ${DANA_ROW}`);
      conn = await httpClient(served.server.url, await served.server.opsdesk.store.run(tokenFor('dana')), {
        revision: '2025-11-25',
      });
    });
    afterAll(() => conn.close());

    it('a grant given applies at the next call, and one revoked too', async () => {
      expect((await deploy('order-service')).status).toBe('rejected');
      expect((await deploy('order-service')).status).toBe('rejected');
      change(`INSERT INTO permissions (user_id, project) SELECT id, 'order-service' FROM ${DANA_ROW}`);
      expect((await deploy('order-service')).status).toBe('done');
      expect((await deploy('order-service')).status).toBe('done');
      change(`DELETE FROM permissions WHERE user_id = ${DANA} AND project = 'order-service'`);
      const refused = await deploy('order-service');
      expect(refused.status).toBe('rejected');
      expect(refused.text).toContain('search-service');
    });

    it('a role changed applies at the next call', async () => {
      expect((await deploy('payment-service')).status).toBe('rejected');
      change("UPDATE users SET role = 'owner' WHERE username = 'dana'");
      expect((await deploy('payment-service')).status).toBe('done');
      change("UPDATE users SET role = 'member' WHERE username = 'dana'");
      expect((await deploy('payment-service')).status).toBe('rejected');
    });
  });
});

describe('remembered', () => {
  let data: ReturnType<typeof tempDataDir>;
  let db: ReturnType<typeof openDatabase>;
  beforeAll(() => {
    data = tempDataDir();
    db = openDatabase(data.dir);
  });
  afterAll(() => {
    db.close();
    data.remove();
  });

  const account = (name: string) => (sqliteStore(db).runNow(findUser(name)) as Identity).id;

  it('asks SQLite only whether another connection committed once an answer is known', () => {
    const alice = account('alice');
    const token = sqliteStore(db).runNow(tokenFor('alice'));
    expect(sqliteStore(db).runNow(userForToken(token))?.username).toBe('alice');
    expect(sqliteStore(db).runNow(accessTo(alice, 'deploy', 'order-service'))?.latestVersion).toBe('v2.3.1');
    const statements = recordStatements(db);
    try {
      expect(sqliteStore(db).runNow(userForToken(token))?.username).toBe('alice');
      expect(sqliteStore(db).runNow(accessTo(alice, 'deploy', 'order-service'))?.latestVersion).toBe('v2.3.1');
    } finally {
      statements.stop();
    }
    expect(statements.sql).toEqual(['PRAGMA data_version', 'PRAGMA data_version']);
  });

  it('never remembers an unknown token: each one is looked up', () => {
    const statements = recordStatements(db);
    try {
      expect(sqliteStore(db).runNow(userForToken('ek_unknown'))).toBeUndefined();
      expect(sqliteStore(db).runNow(userForToken('ek_unknown'))).toBeUndefined();
    } finally {
      statements.stop();
    }
    expect(statements.sql.filter((s) => s.includes('FROM api_tokens'))).toHaveLength(2);
  });

  it('does not keep an answer read inside a transaction that is then rolled back', () => {
    let token = '';
    const rolledBack = db.transaction(() => {
      token = sqliteStore(db).runNow(tokenFor('bob'));
      expect(sqliteStore(db).runNow(userForToken(token))?.username).toBe('bob');
      throw new Error('roll back');
    });
    expect(() => rolledBack()).toThrow('roll back');
    expect(sqliteStore(db).runNow(userForToken(token))).toBeUndefined();
  });

  it('hands out frozen answers: one caller cannot change what the next one is told', () => {
    const access = sqliteStore(db).runNow(accessTo(account('bob'), 'deploy', 'search-service'));
    expect(Object.isFrozen(access)).toBe(true);
    expect(Object.isFrozen(access?.caller)).toBe(true);
    expect(Object.isFrozen(remembered(db, 'x', () => ({ n: 1 })))).toBe(true);
  });
});
