/**
 * `elicitkit audit` is a reader, and it opened the data through `createOpsdesk`: its workspace
 * (seeded when new) and shop too. Seeding wrote the seed file's hash as `notes/plan.md`'s
 * last-synced state over whatever the state was (`ON CONFLICT DO UPDATE`). With `--database URL`
 * (replicas on several hosts) and no `--data`, the folder is the operator's default data
 * directory, new on the machine they read the trail from: reading the trail rewrote the shared
 * sync state every replica judges `notes/plan.md` by — a side equal to the seed then reads as
 * unchanged and the other is copied over it unasked. The audit now opens the state alone
 * (`openStore`), and a seed never overwrites a state the database holds (a new host's fresh
 * data directory did the same).
 *
 * A throw-away PostgreSQL; opsdesk created on it in process; the CLI run as a process.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPostgres, type TestPostgres, withPostgres } from '../../../test/support/postgres-server.js';
import { createOpsdesk } from '../src/opsdesk.js';
import { CLI, nodeArgs, tempDataDir } from './harness.js';

const POSTGRES = withPostgres('apps/opsdesk/test/seed-keeps-shared-sync.test.ts');

describe.skipIf(!POSTGRES)('elicitkit audit --database writes nothing', () => {
  let server: TestPostgres;
  beforeAll(async () => {
    server = await startPostgres();
  }, 120_000);
  afterAll(async () => {
    await server?.stop();
  });

  it('reading the trail leaves the shared sync state as it was', async () => {
    const url = await server.database('audit_reads_only');
    const host = tempDataDir();
    const operatorHome = tempDataDir();
    const pool = new pg.Pool({ connectionString: url });
    try {
      const opsdesk = await createOpsdesk({
        dataDir: host.dir,
        database: url,
        locale: 'en',
        identify: () => undefined,
      });
      await opsdesk.close();
      // notes/plan.md has been edited and synced since the seed: its last-synced state moved on.
      const synced = 'a'.repeat(64);
      await pool.query("UPDATE opsdesk.sync_state SET base_hash = $1 WHERE path = 'notes/plan.md'", [synced]);

      const env = { ...process.env, XDG_DATA_HOME: operatorHome.dir, ELICITKIT_DATA: '' };
      const cli = spawnSync(process.execPath, nodeArgs(CLI, 'audit', '--database', url, '--json'), {
        encoding: 'utf8',
        env,
        timeout: 90_000,
      });
      expect(cli.status, cli.stderr).toBe(0);

      const { rows } = await pool.query("SELECT base_hash FROM opsdesk.sync_state WHERE path = 'notes/plan.md'");
      expect(rows[0]?.base_hash, 'elicitkit audit rewrote notes/plan.md’s last-synced state').toBe(synced);
      expect(existsSync(join(operatorHome.dir, 'elicitkit', 'workspace'))).toBe(false);
    } finally {
      await pool.end();
      host.remove();
      operatorHome.remove();
    }
  }, 180_000);

  it('a host starting on a fresh data directory keeps the shared sync state', async () => {
    const url = await server.database('fresh_host_keeps_state');
    const first = tempDataDir();
    const second = tempDataDir();
    const pool = new pg.Pool({ connectionString: url });
    try {
      await (
        await createOpsdesk({ dataDir: first.dir, database: url, locale: 'en', identify: () => undefined })
      ).close();
      const synced = 'b'.repeat(64);
      await pool.query("UPDATE opsdesk.sync_state SET base_hash = $1 WHERE path = 'notes/plan.md'", [synced]);
      // Another host joins with a data directory of its own, new: its workspace is seeded.
      await (
        await createOpsdesk({ dataDir: second.dir, database: url, locale: 'en', identify: () => undefined })
      ).close();
      const { rows } = await pool.query("SELECT base_hash FROM opsdesk.sync_state WHERE path = 'notes/plan.md'");
      expect(rows[0]?.base_hash).toBe(synced);
    } finally {
      await pool.end();
      first.remove();
      second.remove();
    }
  }, 180_000);
});
