/**
 * `elicitkit serve --http --database … --redis …` as two real replicas that share no files (each
 * its own --data directory), one PostgreSQL and one Redis: tokens work across them, a 2025 session
 * is relayed, a final round replayed on both acts once, execute_sql confirms on the Postgres shop,
 * and a replica killed (SIGKILL) in the middle of an effect leaves at most one effect — the
 * survivor's replays get the recorded result or say the call is still running.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callTool } from '../../../test/support/mcp.js';
import { accept, pendingOf, type WireRound, wireRound } from '../../../test/support/modern-wire.js';
import { startPostgres, type TestPostgres, withPostgres } from '../../../test/support/postgres-server.js';
import { startRedis, type TestRedis, withRedis } from '../../../test/support/redis-server.js';
import { type Balancer, startProxy } from '../../../test/support/round-robin-proxy.js';
import { type HttpProcess, httpClient, serveHttpProcess, tempDataDir } from '../../opsdesk/test/harness.js';

const SERVICES =
  withPostgres('cli/src/serve-postgres-replicas.test.ts') && withRedis('cli/src/serve-postgres-replicas.test.ts');

const DEPLOY = { name: 'deploy_service', arguments: { service: 'order-service' } };
const PROD = { confirmed: true, ticket: 'REL-1001' };

describe.skipIf(!SERVICES)('serve --http --database --redis: two replicas on separate data directories', () => {
  let postgres: TestPostgres;
  let redis: TestRedis;
  let pool: pg.Pool;
  let url: string;
  const dirs = [tempDataDir(), tempDataDir()];
  let a: HttpProcess;
  let b: HttpProcess;
  let token: string;
  const balancers: Balancer[] = [];
  const auth = () => ({ authorization: `Bearer ${token}` });
  const deployments = async () => Number((await pool.query('SELECT count(*) AS n FROM opsdesk.deployments')).rows[0].n);
  const replica = (dir: string, tokens: boolean) =>
    serveHttpProcess(dir, ['--database', url, '--redis', redis.url], { tokens });

  beforeAll(async () => {
    [postgres, redis] = await Promise.all([startPostgres(), startRedis()]);
    url = await postgres.database('opsdesk');
    pool = new pg.Pool({ connectionString: url });
    a = await replica(dirs[0]?.dir ?? '', true);
    b = await replica(dirs[1]?.dir ?? '', false);
    token = a.tokens.alice ?? '';
  }, 60_000);
  afterAll(async () => {
    for (const balancer of balancers) await balancer.close();
    for (const r of [a, b]) if (r && r.child.exitCode === null && r.child.signalCode === null) await r.stop();
    await pool?.end();
    await Promise.all([postgres?.stop(), redis?.stop()]);
    for (const dir of dirs) dir.remove();
  }, 30_000);

  it('the tokens printed by the first replica’s start work on the second; the second printed none', async () => {
    expect(Object.keys(a.tokens)).toEqual(['alice', 'bob']);
    expect(b.tokens).toEqual({});
    for (const r of [a, b]) {
      const listed = await wireRound(r.url, { name: 'list_deployments', arguments: {} }, { headers: auth() });
      expect(listed.result?.structuredContent).toMatchObject({ status: 'done' });
    }
  });

  it('2025-11-25: a session initialized on one replica is served through the other (relayed over Redis)', async () => {
    const before = await deployments();
    const balancer = await startProxy([a.url, b.url], (_req, n) => (n === 0 ? 0 : 1));
    balancers.push(balancer);
    const c = await httpClient(balancer.url, token, {
      revision: '2025-11-25',
      script: [
        { action: 'accept', content: { env: 'prod' } },
        { action: 'accept', content: PROD },
      ],
    });
    const { status } = await callTool(c.client, 'deploy_service', { service: 'order-service' });
    await c.close();
    expect(status).toBe('done');
    expect(await deployments()).toBe(before + 1);
    expect(balancer.log.slice(1).every((entry) => entry.upstream === 1)).toBe(true);
  }, 60_000);

  it('the final 2026 round replayed 12 times at once across both: one deployment, one result', async () => {
    const before = await deployments();
    const final = await finalRound(a.url, b.url);
    const replays: WireRound[] = await Promise.all(
      Array.from({ length: 12 }, (_, i) => wireRound(i % 2 ? a.url : b.url, final, { id: i, headers: auth() })),
    );
    expect(await deployments()).toBe(before + 1);
    expect(new Set(replays.map((r) => JSON.stringify(r.result?.structuredContent))).size).toBe(1);
    expect(replays[0]?.result?.structuredContent).toMatchObject({ status: 'done', deployment: { env: 'prod' } });
  }, 60_000);

  it('execute_sql on the Postgres shop: asked on one replica, confirmed on the other, replayed on both: once', async () => {
    const call = { name: 'execute_sql', arguments: { sql: "DELETE FROM orders WHERE status = 'cancelled'" } };
    const shopOrders = async () => Number((await pool.query('SELECT count(*) AS n FROM shop.orders')).rows[0].n);
    // Items first (they reference orders): a write of its own, kept unasked or asked the same way.
    const items = {
      name: 'execute_sql',
      arguments: {
        sql: "DELETE FROM order_items WHERE order_id IN (SELECT id FROM orders WHERE status = 'cancelled')",
      },
    };
    let asked = 0;
    for (const step of [items, call]) {
      const first = await wireRound(a.url, step, { headers: auth() });
      if (first.result?.resultType !== 'input_required') continue;
      asked++;
      const { requestState } = pendingOf(first);
      const table = /FROM (\w+)/.exec(step.arguments.sql)?.[1] ?? '';
      const final = {
        ...step,
        inputResponses: { confirm: accept({ understood: true, typedTableName: table }) },
        requestState,
      };
      const replays = await Promise.all([b, a, b].map((r) => wireRound(r.url, final, { headers: auth() })));
      expect(new Set(replays.map((r) => JSON.stringify(r.result?.structuredContent))).size).toBe(1);
      expect(replays[0]?.result?.structuredContent).toMatchObject({ status: 'done' });
    }
    // Some 240 cancelled orders: more than may go unasked.
    expect(asked).toBeGreaterThan(0);
    expect(
      Number((await pool.query("SELECT count(*) AS n FROM shop.orders WHERE status = 'cancelled'")).rows[0].n),
    ).toBe(0);
    expect(await shopOrders()).toBeGreaterThan(0);
  }, 60_000);

  it('a replica killed (SIGKILL) in the middle of a deploy’s effect: at most one deployment, and the survivor’s replays agree', async () => {
    const before = await deployments();
    const final = await finalRound(a.url, a.url);
    // Every deployment row now takes two seconds to write: long enough to kill the replica inside it.
    await pool.query(`
      CREATE FUNCTION opsdesk.slow_down() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN PERFORM pg_sleep(2); RETURN NEW; END $$;
      CREATE TRIGGER slow_down AFTER INSERT ON opsdesk.deployments FOR EACH ROW EXECUTE FUNCTION opsdesk.slow_down();`);
    try {
      const dying = wireRound(a.url, final, { headers: auth() }).catch((error: unknown) => error);
      await expect
        .poll(
          async () =>
            (
              await pool.query(
                "SELECT count(*) AS n FROM pg_stat_activity WHERE query LIKE 'INSERT INTO deployments%' AND state = 'active'",
              )
            ).rows[0].n,
          { timeout: 10_000, interval: 20 },
        )
        .toBe('1');
      a.child.kill('SIGKILL');
      expect(await dying).toBeInstanceOf(Error);
      // Nothing committed: the dead replica's transaction ends with its connection.
      expect(await deployments()).toBe(before);
      const outcomes = new Set<string>();
      let replay: WireRound | undefined;
      await expect
        .poll(
          async () => {
            replay = await wireRound(b.url, final, { headers: auth() });
            const status = (replay.result?.structuredContent as { status?: string } | undefined)?.status ?? '';
            outcomes.add(status);
            return status;
          },
          { timeout: 20_000, interval: 250 },
        )
        .toBe('done');
      // A replay waits on the dead replica's claim (its row lock) until Postgres ends that
      // transaction, then acts; one that stops waiting first is told the call is still running.
      for (const status of outcomes) expect(['done', 'error', '']).toContain(status);
      expect(await deployments()).toBe(before + 1);
      const again = await wireRound(b.url, final, { headers: auth() });
      expect(JSON.stringify(again.result?.structuredContent)).toBe(JSON.stringify(replay?.result?.structuredContent));
      expect(await deployments()).toBe(before + 1);
    } finally {
      await pool.query('DROP TRIGGER slow_down ON opsdesk.deployments; DROP FUNCTION opsdesk.slow_down()');
    }
  }, 60_000);

  /** A production deploy's final round: the first round on `first`, the second on `second`. */
  async function finalRound(first: string, second: string) {
    const round1 = pendingOf(await wireRound(first, DEPLOY, { headers: auth() }));
    const round2 = pendingOf(
      await wireRound(
        second,
        { ...DEPLOY, inputResponses: { env: accept({ env: 'prod' }) }, requestState: round1.requestState },
        { headers: auth() },
      ),
    );
    expect(round2.asks).toEqual(['prod']);
    return { ...DEPLOY, inputResponses: { prod: accept(PROD) }, requestState: round2.requestState };
  }
});
