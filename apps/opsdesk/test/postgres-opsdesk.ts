/**
 * opsdesk over real HTTP on a PostgreSQL of its own, for a describe block: the server started before
 * its tests and everything stopped after them. Its tests skip (with a printed line) where no
 * PostgreSQL can be started, as `withPostgres` says.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll } from 'vitest';
import { startPostgres, type TestPostgres } from '../../../test/support/postgres-server.js';
import { type HttpServing, serveHttp } from '../src/serve-http.js';

/** What a block's tests reach: opsdesk, the database as opsdesk's own user, a bearer header per owner. */
export interface PostgresOpsdesk {
  serving: HttpServing;
  /** opsdesk's own user on the database (it may read the shop and opsdesk's schema). */
  pool: pg.Pool;
  /** The `authorization` header of an owner named `name`, made on first use. */
  as(name: string): Promise<Record<string, string>>;
}

/**
 * Starts PostgreSQL and opsdesk on it in `beforeAll`, stops both in `afterAll`; the value is filled
 * once `beforeAll` has run.
 *
 * @example
 * const opsdesk = usePostgresOpsdesk('ek-pg-roles-');
 * it('…', async () => { const headers = await opsdesk.as('vera'); … });
 */
export function usePostgresOpsdesk(name: string): PostgresOpsdesk {
  let server: TestPostgres | undefined;
  let dir: string | undefined;
  const headers = new Map<string, Record<string, string>>();
  const opsdesk = {
    async as(owner: string) {
      const known = headers.get(owner);
      if (known) return known;
      const made = { authorization: `Bearer ${await opsdesk.serving.ownerToken(owner)}` };
      headers.set(owner, made);
      return made;
    },
  } as PostgresOpsdesk;
  beforeAll(async () => {
    server = await startPostgres();
    const url = await server.database('opsdesk');
    opsdesk.pool = new pg.Pool({ connectionString: url });
    dir = mkdtempSync(join(tmpdir(), name));
    opsdesk.serving = await serveHttp({ dataDir: dir, database: url, locale: 'en', port: 0 });
  });
  afterAll(async () => {
    await opsdesk.serving?.close();
    await opsdesk.pool?.end();
    await server?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });
  return opsdesk;
}
