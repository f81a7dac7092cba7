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
import { createOpsdesk } from './opsdesk.js';
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
    await pool.query("DELETE FROM opsdesk.api_tokens WHERE username = 'carol'");
    for (const serving of [a, b]) expect((await wireRound(serving.url, LIST, { headers })).status).toBe(401);
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
    const { deployments } = listed.result?.structuredContent as { deployments: { env: string }[] };
    expect(deployments[0]?.env).toBe('staging');
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
