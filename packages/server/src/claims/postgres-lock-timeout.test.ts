/**
 * The Postgres store's one-transaction commit bounds the claim's INSERT by the kit's
 * `commitWaitMs` (how long a duplicate waits for the first attempt), and only that: the effect's
 * own statements run under the session's lock timeout. An effect that waits on one of its own rows
 * (locked by some other work of the application) for longer than `commitWaitMs` goes on waiting and
 * commits; it is never read as "a duplicate gave up waiting" (`busy`), which would tell the only
 * attempt of the call "An earlier attempt of this same call is still running" while nothing ran.
 */
import { field, form } from '@elicitkit/form';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accept, pendingOf, wireRound } from '../../../../test/support/modern-wire.js';
import { startPostgres, type TestPostgres, withPostgres } from '../../../../test/support/postgres-server.js';
import { onLoopback } from '../../test/loopback.js';
import { createHttpHandler } from '../http/handler.js';
import { createElicitkit } from '../kit.js';
import { done } from '../results.js';
import { defineTool } from '../tool.js';
import { createPostgresClaimStore } from './postgres.js';

const POSTGRES = withPostgres('postgres-lock-timeout.test.ts');

const envForm = form({
  env: field.select(
    ['dev', 'prod'].map((value) => ({ value, title: value })),
    { title: 'Environment' },
  ),
});

const bump = defineTool({
  name: 'bump',
  description: 'Asks where, then bumps a counter row in the claim transaction.',
  forms: { env: envForm },
  async run(_args, ctx) {
    const answer = await ctx.ask('env', { message: 'Which environment should the counter be bumped in?' });
    if (answer.action !== 'accept') return answer.result();
    return ctx.commit(
      async (tx: pg.PoolClient) => {
        await tx.query('UPDATE counters SET n = n + 1 WHERE env = $1', [answer.value.env]);
        return done(`Bumped ${answer.value.env}.`);
      },
      { atomic: true },
    );
  },
});

describe.skipIf(!POSTGRES)('the Postgres atomic commit and the effect’s own lock waits', () => {
  let server: TestPostgres;
  let pool: pg.Pool;
  beforeAll(async () => {
    server = await startPostgres();
    pool = new pg.Pool({ connectionString: server.url });
    await pool.query('CREATE TABLE counters (env TEXT PRIMARY KEY, n INT NOT NULL)');
    await pool.query("INSERT INTO counters VALUES ('prod', 0)");
  });
  afterAll(async () => {
    await pool?.end();
    await server?.stop();
  });

  it('an effect that waits on a row lock longer than commitWaitMs is not reported as "still running"', async () => {
    const claimsPool = new pg.Pool({ connectionString: server.url });
    const kit = createElicitkit({ claims: createPostgresClaimStore(claimsPool), commitWaitMs: 300 });
    const served = await onLoopback(createHttpHandler(() => kit.createServer({ name: 'pg', version: '1' }, [bump])));
    // Some other work of the application holds the counter's row for a while.
    const holder = await pool.connect();
    try {
      await holder.query('BEGIN');
      await holder.query("SELECT * FROM counters WHERE env = 'prod' FOR UPDATE");
      const call = { name: 'bump', arguments: {} };
      const first = pendingOf(await wireRound(served.url, call));
      let answered = false;
      const final = wireRound(served.url, {
        ...call,
        inputResponses: { env: accept({ env: 'prod' }) },
        requestState: first.requestState,
      }).finally(() => {
        answered = true;
      });
      // The holder lets go once the effect's UPDATE has waited on it for well past commitWaitMs
      // (as the database measures it), or once the round has answered, whichever comes first.
      await expect
        .poll(
          async () => {
            if (answered) return true;
            const { rows } = await pool.query(
              `SELECT 1 FROM pg_stat_activity WHERE query LIKE 'UPDATE counters%' AND wait_event_type = 'Lock'
                 AND now() - query_start > interval '2 seconds'`,
            );
            return rows.length > 0;
          },
          { timeout: 20_000, interval: 50 },
        )
        .toBe(true);
      await holder.query('COMMIT');
      const result = (await final).result;
      expect(
        result?.structuredContent,
        'the only attempt was told an earlier attempt is still running, while nothing ran',
      ).toMatchObject({ status: 'done' });
      const { rows } = await pool.query("SELECT n FROM counters WHERE env = 'prod'");
      expect(rows[0]?.n).toBe(1);
    } finally {
      await holder.query('ROLLBACK').catch(() => {});
      holder.release();
      await served.close();
      await claimsPool.end();
    }
  });
});
