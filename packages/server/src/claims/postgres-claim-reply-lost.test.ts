/**
 * A flaky network between a replica and PostgreSQL under a commit that is not atomic: the claim,
 * the completion or the release is sent, and the connection drops before its answer comes. The
 * statement may have run (`sent`: the server got it and ran it, nobody heard) or not (`message`:
 * it never arrived). Each is sent again and answers its second run as its first, as the Redis
 * store's scripts do when ioredis resends them, so a claim taken by a lost answer is the caller's
 * and its effect runs — once — instead of a running claim nobody holds, which every replay would
 * read as an unknown outcome.
 */

import { field, form } from '@elicitkit/form';
import type pg from 'pg';
import { describe, expect, it } from 'vitest';
import { flakyPostgres } from '../../../../test/support/flaky-postgres.js';
import { accept, pendingOf, wireRound } from '../../../../test/support/modern-wire.js';
import type { Cut } from '../../../../test/support/postgres-cutting-proxy.js';
import { withPostgres } from '../../../../test/support/postgres-server.js';
import { onLoopback } from '../../test/loopback.js';
import { createHttpHandler } from '../http/handler.js';
import { createElicitkit } from '../kit.js';
import { done } from '../results.js';
import { defineTool } from '../tool.js';
import { createPostgresClaimStore } from './postgres.js';

const POSTGRES = withPostgres('claims/postgres-claim-reply-lost.test.ts');

const LEASE = { leaseMs: 10_000, ttlMs: 60_000 };

/** What each of the store's statements holds, to cut on it. */
const TAKE = 'RETURNING id';
const COMPLETE = "SET state = 'done', result = $1";
const RELEASE = 'AND owner = $2 AND state';

describe.skipIf(!POSTGRES)('claims on Postgres: an answer lost on the way back', () => {
  const db = flakyPostgres((direct) => direct.query('CREATE TABLE effects (call TEXT NOT NULL)'));
  let n = 0;
  /** A store of its own table, through the proxy; its table made before anything is cut. */
  const store = async () => {
    const table = `lost_${++n}`;
    const claims = createPostgresClaimStore(db.throughProxy(), { table });
    await claims.read('warm-up');
    return { claims, table };
  };
  const rowsOf = async (table: string) =>
    (await db.direct.query(`SELECT id, state, owner, result FROM ${table} ORDER BY id`)).rows;

  describe.each(['sent', 'message'] as Cut[])('cut %s', (cut) => {
    it('the claim: it is the caller’s, and only theirs', async () => {
      const { claims, table } = await store();
      const lost = db.proxy.arm(TAKE, cut);
      const claimed = claims.claim('call-1', 'owner-a', LEASE);
      await lost;
      expect(await claimed).toEqual({ state: 'claimed' });
      expect(await rowsOf(table)).toEqual([{ id: 'call-1', state: 'running', owner: 'owner-a', result: null }]);
      // Another attempt finds it held, as ever.
      expect(await claims.claim('call-1', 'owner-b', LEASE)).toMatchObject({ state: 'running', owner: 'owner-a' });
    });

    it('the completion: recorded, and the caller is told so', async () => {
      const { claims, table } = await store();
      expect(await claims.claim('call-1', 'owner-a', LEASE)).toEqual({ state: 'claimed' });
      const lost = db.proxy.arm(COMPLETE, cut);
      const completed = claims.complete('call-1', 'owner-a', '"the result"');
      await lost;
      expect(await completed).toBe(true);
      expect(await rowsOf(table)).toEqual([{ id: 'call-1', state: 'done', owner: null, result: '"the result"' }]);
    });

    it('the release: the claim is gone, and a later attempt may act', async () => {
      const { claims, table } = await store();
      expect(await claims.claim('call-1', 'owner-a', LEASE)).toEqual({ state: 'claimed' });
      const lost = db.proxy.arm(RELEASE, cut);
      const released = claims.release('call-1', 'owner-a');
      await lost;
      expect(await released).toBe(true);
      expect(await rowsOf(table)).toEqual([]);
      expect(await claims.claim('call-1', 'owner-b', LEASE)).toEqual({ state: 'claimed' });
    });
  });

  it('a completion sent again does not record over another holder’s claim', async () => {
    const { claims, table } = await store();
    expect(await claims.claim('call-1', 'owner-a', LEASE)).toEqual({ state: 'claimed' });
    // owner-a's completion never reached the database; its resend finds the claim not its own.
    await db.direct.query(`UPDATE ${table} SET owner = 'owner-b'`);
    const lost = db.proxy.arm(COMPLETE, 'message');
    const completed = claims.complete('call-1', 'owner-a', '"the result"');
    await lost;
    expect(await completed).toBe(false);
    expect(await rowsOf(table)).toEqual([{ id: 'call-1', state: 'running', owner: 'owner-b', result: null }]);
  });

  it('the database refusing the statement is its answer: thrown at once, not sent again', async () => {
    const pool = db.throughProxy();
    const sent: string[] = [];
    const counted = Object.assign(Object.create(pool) as pg.Pool, {
      query: (text: string, values?: unknown[]) => {
        sent.push(text);
        return pool.query(text, values);
      },
    });
    const claims = createPostgresClaimStore(counted, { table: `lost_${++n}` });
    await claims.read('warm-up');
    sent.length = 0;
    // An id the column cannot hold (a NUL byte): refused by the server.
    await expect(claims.claim('call\u0000', 'owner-a', LEASE)).rejects.toMatchObject({ severity: 'ERROR' });
    expect(sent.filter((text) => text.includes(TAKE))).toHaveLength(1);
  });

  it.each(['sent', 'message'] as Cut[])(
    'through the kit (cut %s on the claim): the person is told it was done, the effect ran once, and a replay gets the same',
    async (cut) => {
      const envForm = form({
        env: field.select(
          ['dev', 'prod'].map((value) => ({ value, title: value })),
          { title: 'Environment' },
        ),
      });
      const call = `kit ${cut}`;
      const deploy = defineTool({
        name: 'deploy',
        description: 'Deploys a service.',
        forms: { env: envForm },
        async run(_args, ctx) {
          const answer = await ctx.ask('env', { message: 'Which environment should the service be deployed to?' });
          if (answer.action !== 'accept') return answer.result();
          // Not atomic: the claim, then the effect on a connection of its own, then the completion.
          return ctx.commit(async () => {
            await db.direct.query('INSERT INTO effects (call) VALUES ($1)', [call]);
            return done(`Deployed to ${answer.value.env}.`);
          });
        },
      });
      const kit = createElicitkit({
        secret: 'a secret of at least thirty-two characters, for this test',
        claims: createPostgresClaimStore(db.throughProxy(), { table: `kit_${cut}` }),
      });
      const serving = await onLoopback(
        createHttpHandler(() => kit.createServer({ name: 'pg', version: '1' }, [deploy])),
      );
      try {
        const tool = { name: 'deploy', arguments: {} };
        const first = pendingOf(await wireRound(serving.url, tool));
        const final = { ...tool, inputResponses: { env: accept({ env: 'prod' }) }, requestState: first.requestState };
        const lost = db.proxy.arm(TAKE, cut);
        const answered = wireRound(serving.url, final);
        await lost;
        const { result } = await answered;
        expect(result, `told: ${JSON.stringify(result?.content)}`).toMatchObject({
          structuredContent: { status: 'done', message: 'Deployed to prod.' },
        });
        const { result: replayed } = await wireRound(serving.url, final);
        expect(replayed).toEqual(result);
        expect(
          (await db.direct.query('SELECT count(*)::int AS n FROM effects WHERE call = $1', [call])).rows[0].n,
        ).toBe(1);
      } finally {
        await serving.close();
      }
    },
  );
});
