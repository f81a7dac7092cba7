/**
 * A grant taken away while a question is open: the answer must not act on a service the person may
 * no longer deploy or see. On 2026-07-28 each round re-checks (the tool runs again); the same call on
 * 2025-11-25 (pushed question, one run) must hold the same way — "a grant taken away applies from the
 * very next request or call" (docs/opsdesk.md, Identity), and EK16: one behaviour on every revision.
 */
import { join } from 'node:path';
import type { Revision } from '@elicitkit/form';
import BetterSqlite3 from 'better-sqlite3';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { callTool } from '../../../test/support/mcp.js';
import { startPostgres, type TestPostgres, withPostgres } from '../../../test/support/postgres-server.js';
import { httpClient, peek, tempDataDir, tokenOf } from '../test/harness.js';
import { type HttpServing, serveHttp } from './serve-http.js';

/** Takes bob's grants away from another connection, as an operator's script would. */
function revokeBob(dataDir: string): void {
  const db = new BetterSqlite3(join(dataDir, 'opsdesk.db'));
  try {
    db.prepare("DELETE FROM permissions WHERE user_id = (SELECT id FROM users WHERE username = 'bob')").run();
  } finally {
    db.close();
  }
}

describe.each(['2026-07-28', '2025-11-25'] as Revision[])('grant revoked while a question is open (%s)', (revision) => {
  let server: HttpServing | undefined;
  let data: ReturnType<typeof tempDataDir> | undefined;
  afterEach(async () => {
    await server?.close();
    data?.remove();
  });

  it('deploy_service does not deploy a service whose grant was taken away before the answer', async () => {
    data = tempDataDir();
    server = await serveHttp({ dataDir: data.dir, locale: 'en', port: 0 });
    const dir = data.dir;
    const bob = await httpClient(server.url, tokenOf(server, 'bob'), {
      revision,
      script: [
        () => {
          revokeBob(dir);
          return { action: 'accept', content: { env: 'dev' } };
        },
      ],
    });
    try {
      const before = peek<{ id: number }>(dir, 'SELECT id FROM deployments').length;
      const r = await callTool(bob.client, 'deploy_service', { service: 'search-service' });
      const rows = peek<{ id: number }>(dir, 'SELECT id FROM deployments ORDER BY id').slice(before);
      expect(rows, `bob's deploy committed after his grant was revoked (status ${r.status}: ${r.text})`).toEqual([]);
      expect(r.status).toBe('rejected');
    } finally {
      await bob.close();
    }
  });

  it('weekly_report does not report on a project whose grant was taken away before the answer', async () => {
    data = tempDataDir();
    server = await serveHttp({ dataDir: data.dir, locale: 'en', port: 0 });
    const dir = data.dir;
    const bob = await httpClient(server.url, tokenOf(server, 'bob'), {
      revision,
      script: [
        () => {
          revokeBob(dir);
          return { action: 'accept', content: { project: 'search-service' } };
        },
      ],
    });
    try {
      const r = await callTool(bob.client, 'weekly_report', { from: '2026-11-01', to: '2026-11-30' });
      expect(r.status, `report on search-service after bob's grant was revoked: ${r.text}`).not.toBe('done');
    } finally {
      await bob.close();
    }
  });
});

const POSTGRES = withPostgres('apps/opsdesk/src/revoked-mid-call.test.ts');

describe.skipIf(!POSTGRES)('grant revoked while a question is open, on Postgres', () => {
  let pgServer: TestPostgres;
  beforeAll(async () => {
    pgServer = await startPostgres();
  });
  afterAll(async () => {
    await pgServer?.stop();
  });

  it.each(['2026-07-28', '2025-11-25'] as Revision[])(
    'deploy_service does not deploy after the grant is taken away (%s)',
    async (revision) => {
      const url = await pgServer.database(`revoked_${revision.replaceAll('-', '_')}`);
      const pool = new pg.Pool({ connectionString: url });
      const data = tempDataDir();
      const server = await serveHttp({ dataDir: data.dir, database: url, locale: 'en', port: 0 });
      const bob = await httpClient(server.url, tokenOf(server, 'bob'), {
        revision,
        script: [
          async () => {
            await pool.query(
              "DELETE FROM opsdesk.permissions WHERE user_id = (SELECT id FROM opsdesk.users WHERE username = 'bob')",
            );
            return { action: 'accept', content: { env: 'dev' } };
          },
        ],
      });
      try {
        const r = await callTool(bob.client, 'deploy_service', { service: 'search-service' });
        const made = Number((await pool.query('SELECT COUNT(*) AS n FROM opsdesk.deployments')).rows[0].n) - 6;
        expect(made, `bob's deploy committed after his grant was revoked (status ${r.status}: ${r.text})`).toBe(0);
        expect(r.status).toBe('rejected');
      } finally {
        await bob.close();
        await server.close();
        await pool.end();
        data.remove();
      }
    },
  );
});
