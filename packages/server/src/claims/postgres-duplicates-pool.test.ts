/**
 * Duplicates of one call's final round on one replica, while its atomic commit runs on Postgres:
 * each used to take a connection of the pool and wait on the claim row's lock for up to
 * `commitWaitMs`, so a client replaying its own final round as often as the pool has connections
 * held every connection the application has (its other tools' queries, everyone's commits) until
 * the effect ended or the wait ran out — and the duplicates that could not get a connection in
 * time were told "still running". Now a duplicate in the process that runs the commit waits for it
 * there, holding nothing, and gets its result.
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

const POSTGRES = withPostgres('postgres-duplicates-pool.test.ts');

const envForm = form({
  env: field.select(
    ['dev', 'prod'].map((value) => ({ value, title: value })),
    { title: 'Environment' },
  ),
});

let started: () => void = () => {};
let release: () => void = () => {};

const deploy = defineTool({
  name: 'deploy',
  description: 'Asks where, then records a deployment in the claim transaction, slowly.',
  forms: { env: envForm },
  async run(_args, ctx) {
    const answer = await ctx.ask('env', { message: 'Which environment should the service be deployed to?' });
    if (answer.action !== 'accept') return answer.result();
    return ctx.commit(
      async (tx: pg.PoolClient) => {
        await tx.query('INSERT INTO deployments (env) VALUES ($1)', [answer.value.env]);
        started();
        await new Promise<void>((resolve) => {
          release = resolve;
        });
        return done(`Deployed to ${answer.value.env}.`);
      },
      { atomic: true },
    );
  },
});

describe.skipIf(!POSTGRES)('duplicates of a running atomic commit on one replica', () => {
  let server: TestPostgres;
  let admin: pg.Pool;
  beforeAll(async () => {
    server = await startPostgres();
    admin = new pg.Pool({ connectionString: server.url });
    await admin.query('CREATE TABLE deployments (id SERIAL PRIMARY KEY, env TEXT NOT NULL)');
  });
  afterAll(async () => {
    await admin?.end();
    await server?.stop();
  });

  it('hold no connection of the pool while they wait, and each gets the recorded result', async () => {
    // The application's pool, two connections: the commit holds one.
    const pool = new pg.Pool({ connectionString: server.url, max: 2 });
    let reads = 0;
    // Waited for as each read arrives, not polled against a deadline: on a loaded machine three
    // requests can take longer than expect.poll's default second to reach the store.
    const readsReached: { n: number; resolve: () => void }[] = [];
    const query = pool.query.bind(pool) as (text: string, values?: unknown[]) => Promise<pg.QueryResult>;
    const counted = Object.assign(Object.create(pool) as pg.Pool, {
      query: (text: string, values?: unknown[]) => {
        if (text.startsWith('SELECT owner, state, result')) {
          reads++;
          for (const waiter of readsReached.filter((w) => reads >= w.n)) waiter.resolve();
        }
        return query(text, values);
      },
      connect: () => pool.connect(),
    });
    const until = (n: number) =>
      reads >= n ? Promise.resolve() : new Promise<void>((resolve) => readsReached.push({ n, resolve }));
    // Long enough that a loaded machine reaches release() while the replays still wait (2 s was
    // not), short of the test's 30 s so a duplicate holding a connection fails on the results.
    const kit = createElicitkit({ claims: createPostgresClaimStore(counted), commitWaitMs: 20_000 });
    const served = await onLoopback(createHttpHandler(() => kit.createServer({ name: 'pg', version: '1' }, [deploy])));
    try {
      const call = { name: 'deploy', arguments: {} };
      const first = pendingOf(await wireRound(served.url, call));
      const final = { ...call, inputResponses: { env: accept({ env: 'prod' }) }, requestState: first.requestState };
      const running = new Promise<void>((resolve) => {
        started = resolve;
      });
      const answered = wireRound(served.url, final);
      await running;
      // Three replays of the final round: each reads the call's claim (nothing committed yet), then commits.
      const before = reads;
      const replays = [1, 2, 3].map(() => wireRound(served.url, final));
      await until(before + 3);
      expect(reads - before).toBe(3);
      // The application's other work still gets a connection while the effect runs.
      expect((await pool.query('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
      release();
      const result = (await answered).result;
      expect(result).toMatchObject({ structuredContent: { status: 'done' } });
      for (const replay of await Promise.all(replays)) expect(replay.result).toEqual(result);
      expect((await admin.query('SELECT env FROM deployments')).rows).toEqual([{ env: 'prod' }]);
    } finally {
      release();
      await served.close();
      await pool.end();
    }
  });
});
