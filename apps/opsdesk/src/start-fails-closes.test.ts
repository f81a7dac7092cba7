/**
 * An opsdesk whose start fails after its shop opened closes the shop's connections. Was: only the
 * store was closed; the shop's pool (a role of its own on the same Postgres) stayed connected, so
 * `elicitkit serve` reported the failure and then sat for the pool's idle timeout (10 s) before
 * exiting, its connections held meanwhile. Counted by the database itself.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPostgres, type TestPostgres, withPostgres } from '../../../test/support/postgres-server.js';
import { createOpsdesk } from './opsdesk.js';

describe.skipIf(!withPostgres('opsdesk/src/start-fails-closes.test.ts'))('a failed start on Postgres', () => {
  let postgres: TestPostgres;
  let url: string;
  const dir = mkdtempSync(join(tmpdir(), 'ek-start-fails-'));
  beforeAll(async () => {
    postgres = await startPostgres();
    url = await postgres.database('opsdesk');
  }, 120_000);
  afterAll(async () => {
    await postgres?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('leaves no connection of its own open once it has failed', async () => {
    // The workspace's folder is a file: the start fails after the store and the shop opened.
    writeFileSync(join(dir, 'workspace'), 'not a folder');
    await expect(
      createOpsdesk({ dataDir: dir, database: url, locale: 'en', identify: () => undefined }),
    ).rejects.toThrow('ENOTDIR');
    const watcher = new pg.Client({ connectionString: url });
    await watcher.connect();
    try {
      const others = async () =>
        Number(
          (
            await watcher.query(
              "SELECT count(*) AS n FROM pg_stat_activity WHERE datname = 'opsdesk' AND pid <> pg_backend_pid()",
            )
          ).rows[0].n,
        );
      // A closed connection's backend ends a moment after its client leaves: waited for, briefly
      // (a pool left open keeps its idle connection for 10 s).
      let left = await others();
      for (let i = 0; i < 50 && left > 0; i++) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        left = await others();
      }
      expect(left).toBe(0);
    } finally {
      await watcher.end();
    }
  }, 60_000);
});
