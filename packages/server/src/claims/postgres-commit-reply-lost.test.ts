/**
 * A flaky network between a replica and PostgreSQL at the worst moment of an atomic commit: the
 * message that records the result and commits is sent, and the connection drops. If the server
 * got it, it committed and only its reply was lost; if not, it rolls back. Claim, rows and result
 * are one transaction, so the claim's record says which (`done` by this attempt, or not there).
 */

import { field, form } from '@elicitkit/form';
import type pg from 'pg';
import { beforeAll, describe, expect, it } from 'vitest';
import { flakyPostgres } from '../../../../test/support/flaky-postgres.js';
import { accept, pendingOf, wireRound } from '../../../../test/support/modern-wire.js';
import type { Cut } from '../../../../test/support/postgres-cutting-proxy.js';
import { withPostgres } from '../../../../test/support/postgres-server.js';
import { onLoopback } from '../../test/loopback.js';
import { createHttpHandler } from '../http/handler.js';
import { createElicitkit } from '../kit.js';
import { done } from '../results.js';
import { defineTool, type ElicitingTool } from '../tool.js';
import { createPostgresClaimStore } from './postgres.js';

const POSTGRES = withPostgres('claims/postgres-commit-reply-lost.test.ts');

const envForm = form({
  env: field.select(
    ['dev', 'prod'].map((value) => ({ value, title: value })),
    { title: 'Environment' },
  ),
});

/** docs/server.md's Postgres tool: asks where, then deploys into its own table in the claim's transaction. */
const deploy = defineTool({
  name: 'deploy',
  description: 'Deploys a service.',
  forms: { env: envForm },
  async run(_args, ctx) {
    const answer = await ctx.ask('env', { message: 'Which environment should the service be deployed to?' });
    if (answer.action !== 'accept') return answer.result();
    return ctx.commit(
      async (tx: pg.PoolClient) => {
        const { rows } = await tx.query('INSERT INTO deployments (env) VALUES ($1) RETURNING id', [answer.value.env]);
        return done(`Deployed to ${answer.value.env} (#${rows[0].id}).`, { id: rows[0].id });
      },
      { atomic: true },
    );
  },
});

/** The message that records the result and commits (the last of the claim's transaction). */
const COMMITTING = "SET state = 'done'";

describe.skipIf(!POSTGRES)('atomic commit on Postgres: the connection lost as it commits', () => {
  const db = flakyPostgres(async (direct) => {
    await direct.query('CREATE TABLE deployments (id SERIAL PRIMARY KEY, env TEXT NOT NULL)');
    await direct.query('CREATE TABLE effects (call TEXT NOT NULL)');
  });
  let n = 0;
  /** A store of its own table, through the proxy; its table made before anything is cut. */
  const store = async () => {
    const claims = createPostgresClaimStore(db.throughProxy(), { table: `cut_${++n}` });
    await claims.read('warm-up');
    return claims;
  };
  const insert = (call: string) => async (tx: unknown) => {
    await (tx as pg.PoolClient).query('INSERT INTO effects (call) VALUES ($1)', [call]);
    return JSON.stringify(`acted on ${call}`);
  };
  const effectsOf = async (call: string) =>
    (await db.direct.query('SELECT count(*)::int AS n FROM effects WHERE call = $1', [call])).rows[0].n;

  /**
   * `tool` called through a kit whose claims go through the proxy, its question answered with
   * `env`, the final round's COMMIT cut as `cut` says: what the person was told, and what a replay
   * of that final round gets once the database answers again.
   */
  const confirmedThroughKit = async (
    tool: ElicitingTool<undefined, { env: typeof envForm }>,
    env: 'dev' | 'prod',
    cut: Cut,
    { table, commitWaitMs, freeze = false }: { table?: string; commitWaitMs?: number; freeze?: boolean } = {},
  ) => {
    const pool = db.throughProxy();
    const kit = createElicitkit({
      secret: 'a secret of at least thirty-two characters, for this test',
      claims: createPostgresClaimStore(pool, table ? { table } : {}),
      ...(commitWaitMs ? { commitWaitMs } : {}),
    });
    const serving = await onLoopback(createHttpHandler(() => kit.createServer({ name: 'pg', version: '1' }, [tool])));
    try {
      const call = { name: tool.name, arguments: {} };
      const first = pendingOf(await wireRound(serving.url, call));
      const final = { ...call, inputResponses: { env: accept({ env }) }, requestState: first.requestState };
      const lost = db.proxy.arm(COMMITTING, cut, { freeze });
      const answered = wireRound(serving.url, final);
      await lost;
      const { result } = await answered;
      if (freeze) {
        // A thaw drops every connection through the proxy, idle ones too: the replay waits until
        // the pool has let go of them all (a query on one would fail as the connection it is).
        db.proxy.thaw();
        await expect.poll(() => pool.totalCount).toBe(0);
      }
      const { result: replayed } = await wireRound(serving.url, final);
      return { result, replayed, message: String((result?.structuredContent as { message?: unknown })?.message) };
    } finally {
      await serving.close();
    }
  };

  it('a commit that took place is reported done to the person who confirmed it, not as an error', async () => {
    const { result, replayed } = await confirmedThroughKit(deploy, 'prod', 'reply');
    expect(result?.isError, `told: ${JSON.stringify(result?.content)}`).not.toBe(true);
    expect(result).toMatchObject({ structuredContent: { status: 'done' } });
    // It happened, once: the row and the claim's record were both committed, and a replay gets
    // the same record.
    expect(replayed).toEqual(result);
    expect((await db.direct.query('SELECT env FROM deployments')).rows).toEqual([{ env: 'prod' }]);
  });

  it('the reply to COMMIT lost: the store answers `ran` with the result it committed', async () => {
    const claims = await store();
    const lost = db.proxy.arm(COMMITTING, 'reply');
    const ran = claims.atomicallyAsync?.('call-1', 60_000, insert('reply-lost'), { waitMs: 5_000 });
    await lost;
    expect(await ran).toEqual({ state: 'ran', result: '"acted on reply-lost"' });
    expect(await claims.read('call-1')).toEqual({ state: 'done', result: '"acted on reply-lost"' });
    expect(await effectsOf('reply-lost')).toBe(1);
  });

  it('the COMMIT itself lost (the server never got it): the error stands, nothing committed, a replay acts once', async () => {
    const claims = await store();
    const lost = db.proxy.arm(COMMITTING, 'message');
    const failed = claims.atomicallyAsync?.('call-1', 60_000, insert('message-lost'), { waitMs: 5_000 });
    await lost;
    await expect(failed).rejects.toThrow(/Connection terminated/);
    expect(await effectsOf('message-lost')).toBe(0);
    // The server rolls the dropped transaction back; the replay waits for that on the claim row.
    expect(await claims.atomicallyAsync?.('call-1', 60_000, insert('message-lost'), { waitMs: 5_000 })).toEqual({
      state: 'ran',
      result: '"acted on message-lost"',
    });
    expect(await effectsOf('message-lost')).toBe(1);
  });

  it('the reply to COMMIT lost and the database silent after: `unknown`, not a wait without end, and not an error', async () => {
    const claims = await store();
    const lost = db.proxy.arm(COMMITTING, 'reply', { freeze: true });
    // waitMs bounds the questions that would settle it: the database answers none of them.
    const unsettled = claims.atomicallyAsync?.('call-1', 60_000, insert('silent'), { waitMs: 200 });
    await lost;
    expect(await unsettled).toEqual({ state: 'unknown' });
    db.proxy.thaw();
    // It did commit: a replay, once the database answers again, gets that record.
    expect(await claims.atomicallyAsync?.('call-1', 60_000, insert('silent'), { waitMs: 5_000 })).toEqual({
      state: 'done',
      result: '"acted on silent"',
    });
    expect(await effectsOf('silent')).toBe(1);
  });

  describe('a COMMIT still running when its connection is lost (a deferred trigger takes 300 ms)', () => {
    beforeAll(async () => {
      // Runs at COMMIT, before the transaction counts as committed: meanwhile it is in progress.
      await db.direct.query(`CREATE TABLE slow_effects (call TEXT NOT NULL);
        CREATE FUNCTION slow_commit() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
          PERFORM pg_sleep(0.3);
          IF NEW.call LIKE 'refused%' THEN RAISE EXCEPTION 'refused at commit: %', NEW.call; END IF;
          RETURN NULL;
        END $$;
        CREATE CONSTRAINT TRIGGER slow_commit AFTER INSERT ON slow_effects
          DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION slow_commit();`);
    });
    const slowInsert = (call: string) => async (tx: unknown) => {
      await (tx as pg.PoolClient).query('INSERT INTO slow_effects (call) VALUES ($1)', [call]);
      return JSON.stringify(`acted on ${call}`);
    };
    const slowEffectsOf = async (call: string) =>
      (await db.direct.query('SELECT count(*)::int AS n FROM slow_effects WHERE call = $1', [call])).rows[0].n;

    it('it commits after the loss: the store waits for it and answers `ran`, not the error', async () => {
      const claims = await store();
      const lost = db.proxy.arm(COMMITTING, 'sent');
      const ran = claims.atomicallyAsync?.('call-1', 60_000, slowInsert('late'), { waitMs: 5_000 });
      await lost;
      expect(await ran).toEqual({ state: 'ran', result: '"acted on late"' });
      expect(await claims.read('call-1')).toEqual({ state: 'done', result: '"acted on late"' });
      expect(await slowEffectsOf('late')).toBe(1);
    });

    it('it is refused at COMMIT after the loss: the error stands, nothing was kept, a replay acts once', async () => {
      const claims = await store();
      const lost = db.proxy.arm(COMMITTING, 'sent');
      const failed = claims.atomicallyAsync?.('call-1', 60_000, slowInsert('refused'), { waitMs: 5_000 });
      await lost;
      await expect(failed).rejects.toThrow(/Connection terminated/);
      expect(await slowEffectsOf('refused')).toBe(0);
      expect(await claims.read('call-1')).toBeUndefined();
      expect(
        await claims.atomicallyAsync?.('call-1', 60_000, insert('refused, then again'), { waitMs: 5_000 }),
      ).toEqual({
        state: 'ran',
        result: '"acted on refused, then again"',
      });
      expect(await effectsOf('refused, then again')).toBe(1);
    });

    it('through the kit: the person who confirmed is told it was done', async () => {
      const slowDeploy = defineTool({
        name: 'slow_deploy',
        description: 'Deploys a service, slowly committed.',
        forms: { env: envForm },
        async run(_args, ctx) {
          const answer = await ctx.ask('env', { message: 'Which environment?' });
          if (answer.action !== 'accept') return answer.result();
          return ctx.commit(
            async (tx: pg.PoolClient) => {
              await tx.query('INSERT INTO slow_effects (call) VALUES ($1)', [`kit ${answer.value.env}`]);
              return done(`Deployed to ${answer.value.env}.`);
            },
            { atomic: true },
          );
        },
      });
      const { result, replayed } = await confirmedThroughKit(slowDeploy, 'prod', 'sent', { table: 'kit_slow' });
      expect(result, `told: ${JSON.stringify(result?.content)}`).toMatchObject({
        structuredContent: { status: 'done', message: 'Deployed to prod.' },
      });
      expect(result?.isError).not.toBe(true);
      expect(replayed).toEqual(result);
      expect(await slowEffectsOf('kit prod')).toBe(1);
    });
  });

  it('through the kit, a COMMIT whose fate the database will not tell: the person is told the outcome is unknown, and to look first', async () => {
    const { result, replayed, message } = await confirmedThroughKit(deploy, 'dev', 'reply', {
      table: 'kit_silent',
      commitWaitMs: 300,
      freeze: true,
    });
    expect(result?.isError).toBe(true);
    expect(result?.structuredContent).toMatchObject({ status: 'rejected', outcome: 'unknown' });
    expect(message).toMatch(
      /connection was lost before the database answered.*check the current state before calling deploy again/,
    );
    // It did commit: the replay gets that record, and nothing runs again.
    expect(replayed).toMatchObject({ structuredContent: { status: 'done' } });
    expect((await db.direct.query("SELECT count(*)::int AS n FROM deployments WHERE env = 'dev'")).rows[0].n).toBe(1);
  });
});
