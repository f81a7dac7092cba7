/**
 * A suite's PostgreSQL behind a `commitCuttingProxy`: the server and the proxy started before the
 * suite, a pool straight to the server (`direct`: set-up, and reading what happened), and pools
 * through the proxy (`throughProxy`: as a replica on a flaky network has), all closed after it.
 * Call it inside the suite's `describe` (it registers the suite's hooks).
 *
 * @example
 * const db = flakyPostgres((direct) => direct.query('CREATE TABLE effects (call TEXT NOT NULL)'));
 * const store = createPostgresClaimStore(db.throughProxy(), { table: 'claims' });
 * const lost = db.proxy.arm('COMMIT', 'reply');
 */
import pg from 'pg';
import { afterAll, beforeAll } from 'vitest';
import { commitCuttingProxy } from './postgres-cutting-proxy.js';
import { startPostgres, type TestPostgres } from './postgres-server.js';

export function flakyPostgres(setUp: (direct: pg.Pool) => Promise<unknown> = async () => {}) {
  let server: TestPostgres | undefined;
  let proxy: Awaited<ReturnType<typeof commitCuttingProxy>> | undefined;
  let direct: pg.Pool | undefined;
  const pools: pg.Pool[] = [];
  beforeAll(async () => {
    server = await startPostgres();
    proxy = await commitCuttingProxy(server.port);
    direct = new pg.Pool({ connectionString: server.url });
    await setUp(direct);
  });
  afterAll(async () => {
    // A frozen proxy would hold the pools' ends.
    proxy?.thaw();
    for (const pool of pools.splice(0)) await pool.end();
    await direct?.end();
    await proxy?.close();
    await server?.stop();
  });
  const started = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error('flakyPostgres: used before the suite started');
    return value;
  };
  return {
    get proxy() {
      return started(proxy);
    },
    get direct() {
      return started(direct);
    },
    /** A pool through the proxy, its connections' errors (the cuts) expected. */
    throughProxy(): pg.Pool {
      const pool = new pg.Pool({ connectionString: started(proxy).url });
      pool.on('error', () => {});
      pools.push(pool);
      return pool;
    },
  };
}
