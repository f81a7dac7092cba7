/**
 * opsdesk's own transactions on Postgres (tokens, registrations, reset) with the connection lost
 * as they commit (a TCP proxy in front of PostgreSQL): the database is asked what became of the
 * transaction. Was: the connection's error every time — a registration whose account had been
 * made was told nothing was, and the link it had spent was offered for another try.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callTool } from '../../../../test/support/mcp.js';
import { commitCuttingProxy } from '../../../../test/support/postgres-cutting-proxy.js';
import { startPostgres, type TestPostgres, withPostgres } from '../../../../test/support/postgres-server.js';
import { setPasswordOnPage } from '../../test/cases.js';
import { httpClient } from '../../test/harness.js';
import { type HttpServing, serveHttp } from '../serve-http.js';
import { CommitOutcomeUnknownError } from './commit-outcome.js';
import { openPostgresStore, type PostgresStore } from './postgres-store.js';
import { all, run } from './query.js';

const POSTGRES = withPostgres('apps/opsdesk/src/db/postgres-lost-commit.test.ts');

describe.skipIf(!POSTGRES)("opsdesk's Postgres transactions: the connection lost as one commits", () => {
  let server: TestPostgres;
  let proxy: Awaited<ReturnType<typeof commitCuttingProxy>>;
  let store: PostgresStore;
  let direct: pg.Pool;
  let proxied: string;

  beforeAll(async () => {
    server = await startPostgres();
    const url = await server.database('opsdesk');
    direct = new pg.Pool({ connectionString: url });
    proxy = await commitCuttingProxy(server.port);
    proxied = url.replace(`127.0.0.1:${server.port}`, new URL(proxy.url).host);
    store = await openPostgresStore(proxied);
    await direct.query(`CREATE TABLE opsdesk.notes (note text NOT NULL);
      CREATE FUNCTION opsdesk.slow_note() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN PERFORM pg_sleep(0.3); RETURN NULL; END $$;
      CREATE CONSTRAINT TRIGGER slow_note AFTER INSERT ON opsdesk.notes
        DEFERRABLE INITIALLY DEFERRED FOR EACH ROW WHEN (NEW.note LIKE 'slow%') EXECUTE FUNCTION opsdesk.slow_note();`);
  }, 120_000);
  afterAll(async () => {
    await store?.close();
    await proxy?.close();
    await direct?.end();
    await server?.stop();
  });

  const write = (note: string) =>
    store.transaction(
      (function* () {
        yield* run('INSERT INTO notes (note) VALUES (?)', note);
        return note;
      })(),
    );
  const notes = async (note: string) =>
    (await direct.query('SELECT count(*)::int AS n FROM opsdesk.notes WHERE note = $1', [note])).rows[0].n;

  it('the database committed and its answer was lost: the transaction returns as committed', async () => {
    const cut = proxy.arm('COMMIT', 'reply');
    const done = write('kept');
    await cut;
    expect(await done).toBe('kept');
    expect(await notes('kept')).toBe(1);
  });

  it('still committing when the connection dropped: waited for, and returned as committed', async () => {
    const cut = proxy.arm('COMMIT', 'sent');
    const done = write('slow, kept');
    await cut;
    expect(await done).toBe('slow, kept');
    expect(await notes('slow, kept')).toBe(1);
  });

  it('the COMMIT never reached the database: its error, and nothing was written', async () => {
    const cut = proxy.arm('COMMIT', 'message');
    const failed = write('lost');
    await cut;
    await expect(failed).rejects.toThrow(/Connection terminated/);
    expect(await notes('lost')).toBe(0);
  });

  it('a transaction that wrote nothing loses nothing with its COMMIT: its result stands', async () => {
    const cut = proxy.arm('COMMIT', 'message');
    const read = store.transaction(all<{ n: number }>('SELECT count(*) AS n FROM notes'));
    await cut;
    expect(await read).toEqual([{ n: expect.any(Number) }]);
  });

  it('the database silent after: CommitOutcomeUnknownError, never the error that reads as nothing written', async () => {
    const cut = proxy.arm('COMMIT', 'reply', { freeze: true });
    const unknown = write('silent').catch((error: unknown) => error);
    await cut;
    // The database is asked on connections through the same proxy, which answers nothing now.
    const error = await unknown;
    proxy.thaw();
    expect(error).toBeInstanceOf(CommitOutcomeUnknownError);
    expect((error as CommitOutcomeUnknownError).code).toBe('COMMIT_OUTCOME_UNKNOWN');
    expect(await notes('silent')).toBe(1);
  }, 20_000);

  it('the password page, its account sent to be saved and the database silent after: it says nobody can tell yet, not that none was made', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ek-opsdesk-pg-page-'));
    let serving: HttpServing | undefined;
    try {
      serving = await serveHttp({ dataDir: dir, database: proxied, locale: 'en', port: 0, urlWaitMs: 200 });
      const c = await httpClient(serving.url, await serving.ownerToken('alice'), { revision: '2025-11-25' });
      let link = '';
      c.script.push(
        { action: 'accept', content: { username: 'ursula', email: 'ursula@example.com', newsletter: false } },
        (params) => {
          link = String(params.url);
          return { action: 'accept' };
        },
      );
      expect((await callTool(c.client, 'register_user')).status).toBe('pending');
      await c.close();
      // The COMMIT of the transaction that makes the account, and nothing before it.
      const cut = proxy.arm('COMMIT', 'reply', { freeze: true, after: 'INSERT INTO users' });
      const answered = setPasswordOnPage(link);
      await cut;
      const page = await answered;
      proxy.thaw();
      expect(page.status).toBe(503);
      const text = await page.text();
      expect(text).toContain('whether it was created cannot be told yet');
      expect(text).not.toContain('No account was created');
      expect(
        (await direct.query("SELECT count(*)::int AS n FROM opsdesk.users WHERE username = 'ursula'")).rows[0].n,
      ).toBe(1);
    } finally {
      await serving?.close();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
