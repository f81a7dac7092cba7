/**
 * opsdesk with its own state in Postgres (`serveHttp({ database })`): two replicas on separate
 * data directories and one database behave as one service — a token minted on one works on the
 * other, a final round replayed on both acts once, the audit trail of both is one — over real
 * HTTP and a real PostgreSQL server.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accept, pendingOf, wireRound } from '../../../test/support/modern-wire.js';
import { startPostgres, type TestPostgres, withPostgres } from '../../../test/support/postgres-server.js';
import { readAudit } from './audit.js';
import { DataDirError } from './db/open.js';
import { HOST_TOKEN_TTL_MS, issueToken } from './identity.js';
import { createOpsdesk } from './opsdesk.js';
import { resetDemo } from './reset.js';
import { type HttpServing, serveHttp } from './serve-http.js';

const POSTGRES = withPostgres('apps/opsdesk/src/postgres.test.ts');

describe.skipIf(!POSTGRES)('opsdesk on Postgres', () => {
  let server: TestPostgres;
  let url: string;
  let pool: pg.Pool;
  const dirs: string[] = [];
  const replicas: HttpServing[] = [];
  const dataDir = () => {
    const dir = mkdtempSync(join(tmpdir(), 'ek-opsdesk-pg-'));
    dirs.push(dir);
    return dir;
  };
  const replica = async () => {
    const serving = await serveHttp({ dataDir: dataDir(), database: url, locale: 'en', port: 0 });
    replicas.push(serving);
    return serving;
  };
  const count = async (table: string) =>
    Number((await pool.query(`SELECT COUNT(*) AS n FROM opsdesk.${table}`)).rows[0].n);

  beforeAll(async () => {
    server = await startPostgres();
    url = await server.database('opsdesk');
    pool = new pg.Pool({ connectionString: url });
  });
  afterAll(async () => {
    for (const serving of replicas) await serving.close();
    await pool?.end();
    await server?.stop();
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  it('replicas starting together create and seed the schema once; first-start tokens are printed once', async () => {
    const [a, b] = await Promise.all([replica(), replica()]);
    expect(await count('services')).toBe(4);
    expect(await count('deployments')).toBe(6);
    expect((await pool.query('SELECT username FROM opsdesk.users ORDER BY id')).rows).toEqual([
      { username: 'alice' },
      { username: 'bob' },
    ]);
    // One of the two printed them (each in a transaction under opsdesk's lock); the other found them.
    const printed = [a?.newTokens, b?.newTokens].filter((t) => t && t.length > 0);
    expect(printed).toHaveLength(1);
    expect(printed[0]?.map((t) => t.username)).toEqual(['alice', 'bob']);
  });

  it('a token minted on one replica works on the other, and a revoked one on neither', async () => {
    const [a, b] = replicas as [HttpServing, HttpServing];
    const token = await a.ownerToken('carol');
    const headers = { authorization: `Bearer ${token}` };
    for (const serving of [a, b]) {
      const round = await wireRound(serving.url, { name: 'list_deployments', arguments: {} }, { headers });
      expect(round.result?.structuredContent).toMatchObject({ status: 'done' });
    }
    await pool.query(
      "DELETE FROM opsdesk.api_tokens WHERE user_id = (SELECT id FROM opsdesk.users WHERE username = 'carol')",
    );
    for (const serving of [a, b]) expect((await wireRound(serving.url, LIST, { headers })).status).toBe(401);
  });

  it('a host token its host stopped renewing over a day ago is refused on every replica, though nobody pruned it', async () => {
    const [a, b] = replicas as [HttpServing, HttpServing];
    // The live one first: a host's start prunes what expired by its clock, which would take the lapsed one.
    const live = await issueToken(a.opsdesk.store, 'olivia');
    const lapsed = await issueToken(a.opsdesk.store, 'olivia', { now: () => Date.now() - HOST_TOKEN_TTL_MS - 60_000 });
    const stored = await pool.query(
      "SELECT 1 FROM opsdesk.api_tokens t JOIN opsdesk.users u ON u.id = t.user_id WHERE u.username = 'olivia'",
    );
    expect(stored.rowCount).toBe(2);
    for (const serving of [a, b]) {
      expect((await wireRound(serving.url, LIST, { headers: { authorization: `Bearer ${lapsed}` } })).status).toBe(401);
      expect((await wireRound(serving.url, LIST, { headers: { authorization: `Bearer ${live}` } })).status).toBe(200);
    }
  });

  it('a confirmed final round replayed on both replicas at once deploys once; every replay gets the same result', async () => {
    const [a, b] = replicas as [HttpServing, HttpServing];
    const headers = { authorization: `Bearer ${await a.ownerToken('dave')}` };
    const before = await count('deployments');
    const call = { name: 'deploy_service', arguments: { service: 'order-service' } };
    const first = pendingOf(await wireRound(a.url, call, { headers }));
    expect(first.asks).toEqual(['env']);
    const final = { ...call, inputResponses: { env: accept({ env: 'staging' }) }, requestState: first.requestState };
    const replays = await Promise.all(
      Array.from({ length: 8 }, (_, i) => wireRound((i % 2 ? a : b).url, final, { headers })),
    );
    expect(new Set(replays.map((r) => JSON.stringify(r.result?.structuredContent))).size).toBe(1);
    expect(replays[0]?.result?.structuredContent).toMatchObject({
      status: 'done',
      deployment: { service: 'order-service', env: 'staging' },
    });
    expect(await count('deployments')).toBe(before + 1);
    // The claim, the row and the result committed together; the answer's records with them.
    const trail = await readAudit(b.opsdesk.store);
    const context = trail.responses.at(-1)?.context_id;
    expect(trail.requests.filter((r) => r.context_id === context).map((r) => r.question)).toEqual(['env']);
    // Each replay carried the answer, and each is on the record (those of replica a as a's queue commits them).
    expect(new Set(trail.responses.filter((r) => r.context_id === context).map((r) => r.action))).toEqual(
      new Set(['accept']),
    );
    // Seen from the other replica: one history.
    const listed = await wireRound(
      a.url,
      { name: 'list_deployments', arguments: { service: 'order-service' } },
      {
        headers,
      },
    );
    const listedRows = (listed.result?.structuredContent ?? {}) as { deployments?: { env: string }[] };
    expect(listedRows.deployments?.[0]?.env).toBe('staging');
  });

  it('names compare without regard to case, as on SQLite', async () => {
    const [a] = replicas as [HttpServing];
    const headers = { authorization: `Bearer ${await a.ownerToken('Erin')}` };
    expect((await pool.query("SELECT username FROM opsdesk.users WHERE username = 'erin'")).rows).toEqual([
      { username: 'Erin' },
    ]);
    await a.ownerToken('ERIN'); // the same person: no second user
    expect(await count("users WHERE username = 'erin'")).toBe(1);
    const round = await wireRound(a.url, LIST, { headers });
    expect(round.result?.structuredContent).toMatchObject({ status: 'done' });
  });

  it('a refusal is on the record, and the audit of one replica is the audit of both', async () => {
    const [a, b] = replicas as [HttpServing, HttpServing];
    const bob = await b.ownerToken('bob'); // bob exists (seed): only a token is added
    await pool.query("UPDATE opsdesk.users SET role = 'member' WHERE username = 'bob'");
    const refused = await wireRound(
      a.url,
      { name: 'deploy_service', arguments: { service: 'payment-service', env: 'dev' } },
      { headers: { authorization: `Bearer ${bob}` } },
    );
    expect(refused.result?.structuredContent).toMatchObject({ status: 'rejected' });
    const trail = await readAudit(b.opsdesk.store);
    expect(trail.refusals.at(-1)).toMatchObject({ tool: 'deploy_service', username: 'bob' });
  });

  describe('execute_sql on the Postgres shop', () => {
    const sqlCall = (sql: string) => ({ name: 'execute_sql', arguments: { sql } });
    const round = async (serving: HttpServing, sql: string, headers: Record<string, string>) =>
      (await wireRound(serving.url, sqlCall(sql), { headers })).result as {
        structuredContent?: Record<string, unknown>;
        inputRequests?: { confirm?: { params: { message: string } } };
        requestState?: string;
        content?: { text: string }[];
      };
    const shopCount = async (table: string) =>
      Number((await pool.query(`SELECT count(*) AS n FROM shop.${table}`)).rows[0].n);

    it('reads, and a small write is kept unasked', async () => {
      const [a] = replicas as [HttpServing];
      const headers = { authorization: `Bearer ${await a.ownerToken('frank')}` };
      const read = await round(a, 'SELECT count(*) AS n FROM orders', headers);
      expect(read.structuredContent).toMatchObject({ status: 'done', rows: [{ n: '1200' }], rowCount: 1 });
      const write = await round(a, "UPDATE customers SET city = 'Lisbon' WHERE id = 3", headers);
      expect(write.structuredContent).toMatchObject({ status: 'done', totalChanges: 1, tables: ['customers'] });
      expect((await pool.query('SELECT city FROM shop.customers WHERE id = 3')).rows).toEqual([{ city: 'Lisbon' }]);
    });

    it('DELETE FROM order_items asks, showing what that execution did; confirmed, a replay on both replicas acts once', async () => {
      const [a, b] = replicas as [HttpServing, HttpServing];
      const headers = { authorization: `Bearer ${await a.ownerToken('grace')}` };
      const rows = await shopCount('order_items');
      const first = await round(a, 'DELETE FROM order_items', headers);
      expect(first.inputRequests?.confirm?.params.message).toContain(String(rows));
      // Nothing kept while the person is asked.
      expect(await shopCount('order_items')).toBe(rows);
      const final = {
        ...sqlCall('DELETE FROM order_items'),
        inputResponses: { confirm: accept({ understood: true, typedTableName: 'order_items' }) },
        requestState: first.requestState as string,
      };
      const replays = await Promise.all(
        Array.from({ length: 6 }, (_, i) => wireRound((i % 2 ? a : b).url, final, { headers })),
      );
      expect(new Set(replays.map((r) => JSON.stringify(r.result?.structuredContent))).size).toBe(1);
      expect(replays[0]?.result?.structuredContent).toMatchObject({ status: 'done', totalChanges: rows });
      expect(await shopCount('order_items')).toBe(0);
    });

    it('TRUNCATE, uncounted by the statistics, is measured from the rows gone: it asks', async () => {
      const [a] = replicas as [HttpServing];
      const headers = { authorization: `Bearer ${await a.ownerToken('heidi')}` };
      const before = await shopCount('customers');
      const first = await round(a, 'TRUNCATE customers CASCADE', headers);
      expect(first.inputRequests?.confirm).toBeDefined();
      expect(await shopCount('customers')).toBe(before);
    });

    it('a statement whose effect varies is confirmed against a bound, not one run’s count', async () => {
      const [a] = replicas as [HttpServing];
      const headers = { authorization: `Bearer ${await a.ownerToken('ivan')}` };
      const first = await round(a, "UPDATE customers SET email = 'x' WHERE random() < 2", headers);
      const message = first.inputRequests?.confirm?.params.message ?? '';
      expect(message).toContain('random');
    });

    it('the shop’s role has no rights on opsdesk’s tables, whatever SQL it is given', async () => {
      const [a] = replicas as [HttpServing];
      const token = await a.ownerToken('mallory');
      const headers = { authorization: `Bearer ${token}` };
      const digest = async () => {
        const out: Record<string, string> = {};
        for (const table of OPSDESK_TABLES)
          out[table] = (
            await pool.query(
              `SELECT md5(coalesce(string_agg(t::text, ',' ORDER BY t::text), '')) AS h FROM opsdesk.${table} t`,
            )
          ).rows[0].h;
        return out;
      };
      const secrets = (await pool.query('SELECT value FROM opsdesk.meta')).rows.map((r) => r.value as string);
      const hashes = (await pool.query('SELECT token_hash FROM opsdesk.api_tokens')).rows.map(
        (r) => r.token_hash as string,
      );
      const before = await digest();
      for (const sql of ATTACKS) {
        const result = await round(a, sql, headers);
        const said = JSON.stringify(result);
        // A session setting changed is done, and gone with the statement (the connection is cleared).
        if (!sql.startsWith('SELECT set_config('))
          expect(result.structuredContent?.status ?? 'asked', sql).not.toBe('done');
        for (const secret of [...secrets, ...hashes, token]) expect(said, sql).not.toContain(secret);
      }
      expect(await digest()).toEqual(before);
    });
  });

  it('reset puts the shop and the operations back to the seed, keeping users, tokens and the trail', async () => {
    const other = await server.database('resetting');
    const first = await createOpsdesk({ dataDir: dataDir(), database: other, locale: 'en', identify: () => 'x' });
    await first.close();
    const raw = new pg.Pool({ connectionString: other });
    try {
      const n = async (table: string) => Number((await raw.query(`SELECT count(*) AS n FROM ${table}`)).rows[0].n);
      const items = await n('shop.order_items');
      await raw.query(`
        DELETE FROM shop.order_items;
        CREATE TABLE shop.junk (x int);
        INSERT INTO opsdesk.deployments (service, env, version, deployed_by, created_at) VALUES ('search-service', 'dev', 'v1', 'bob', 'x');
        INSERT INTO opsdesk.api_tokens (token_hash, user_id, created_at) SELECT 'kept', id, 'now' FROM opsdesk.users WHERE username = 'alice';`);
      const report = await resetDemo(dataDir(), { database: other });
      expect(report.shop).toMatch(/^postgres:\/\/postgres@127\.0\.0\.1:\d+\/resetting \(schema shop\)$/);
      expect(await n('shop.order_items')).toBe(items);
      expect(await n('shop.orders')).toBe(1200);
      expect(
        (await raw.query("SELECT 1 FROM pg_tables WHERE schemaname = 'shop' AND tablename = 'junk'")).rowCount,
      ).toBe(0);
      expect(await n('opsdesk.deployments')).toBe(6);
      expect(await n("opsdesk.api_tokens WHERE token_hash = 'kept'")).toBe(1);
      expect(await n('opsdesk.users')).toBe(2);
    } finally {
      await raw.end();
    }
  });

  it('refuses a database whose opsdesk schema is newer, with a clear error, changing nothing', async () => {
    const other = await server.database('newer');
    const first = await createOpsdesk({ dataDir: dataDir(), database: other, locale: 'en', identify: () => 'x' });
    await first.close();
    const raw = new pg.Pool({ connectionString: other });
    try {
      await raw.query("UPDATE opsdesk.meta SET value = '99' WHERE key = 'schema_version'");
      const opening = createOpsdesk({ dataDir: dataDir(), database: other, locale: 'en', identify: () => 'x' });
      await expect(opening).rejects.toBeInstanceOf(DataDirError);
      await expect(opening).rejects.toThrow(/schema in this database has version 99/);
      expect((await raw.query("SELECT value FROM opsdesk.meta WHERE key = 'schema_version'")).rows).toEqual([
        { value: '99' },
      ]);
    } finally {
      await raw.end();
    }
  });

  it('a database that cannot be reached fails the start with what failed, and leaves nothing open', async () => {
    const opening = createOpsdesk({
      dataDir: dataDir(),
      database: `postgres://postgres@127.0.0.1:${server.port}/no_such_database`,
      locale: 'en',
      identify: () => 'x',
    });
    await expect(opening).rejects.toThrow(/no_such_database/);
  });
});

const LIST = { name: 'list_deployments', arguments: {} };

/** opsdesk's tables whose rows nothing in the shop may read or change (the audit trail grows with each call). */
const OPSDESK_TABLES = [
  'meta',
  'services',
  'release_tickets',
  'deployments',
  'users',
  'permissions',
  'api_tokens',
  'registrations',
  'sync_state',
  'elicitkit_claims',
];

/** Statements that try to reach opsdesk's tables or become someone else, each a different way. */
const ATTACKS = [
  'SELECT * FROM opsdesk.users',
  'SELECT value FROM opsdesk.meta',
  'SELECT token_hash FROM opsdesk.api_tokens',
  "UPDATE opsdesk.users SET role = 'owner'",
  'DELETE FROM opsdesk.deployments',
  "INSERT INTO opsdesk.api_tokens (token_hash, user_id, created_at) VALUES ('x', 1, 'now')",
  'DROP TABLE opsdesk.users CASCADE',
  'ALTER TABLE opsdesk.users ADD COLUMN x int',
  'TRUNCATE opsdesk.api_tokens',
  'LOCK TABLE opsdesk.users',
  'CREATE TABLE stolen AS SELECT * FROM opsdesk.users',
  'CREATE VIEW peek AS SELECT * FROM opsdesk.api_tokens',
  'WITH gone AS (DELETE FROM opsdesk.users RETURNING *) SELECT * FROM gone',
  'DO $$ BEGIN DELETE FROM opsdesk.deployments; END $$',
  'SET ROLE postgres',
  'RESET ROLE',
  "SELECT set_config('role', 'postgres', false)",
  "SELECT set_config('search_path', 'opsdesk', false)",
  'SELECT * FROM users',
  'SET SESSION AUTHORIZATION postgres',
  'ALTER ROLE CURRENT_USER SUPERUSER',
  'CREATE ROLE evil SUPERUSER LOGIN',
  'GRANT ALL ON SCHEMA opsdesk TO PUBLIC',
  'GRANT ALL ON ALL TABLES IN SCHEMA opsdesk TO CURRENT_USER',
  'ALTER SCHEMA opsdesk OWNER TO CURRENT_USER',
  'COPY opsdesk.users TO STDOUT',
  "SELECT pg_read_file('/etc/passwd')",
  "SELECT lo_import('/etc/passwd')",
  'SELECT * FROM pg_authid',
  'CREATE EXTENSION dblink',
  'SELECT * FROM opsdesk.users; DELETE FROM opsdesk.users',
  'SELECT 1; DELETE FROM opsdesk.users',
  'BEGIN',
  'COMMIT',
];
