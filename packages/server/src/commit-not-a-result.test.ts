/**
 * An effect that returns no tool result (nothing — a missing `return` —, `null`, a string, a list)
 * through `ctx.commit`, over HTTP on 2026-07-28. Claimed then acted (not atomic), the effect has
 * happened by the time its result is looked at: the person is told it took effect, marked
 * `unrecorded`, and every replay gets those same bytes, nothing run again (was: the raw TypeError
 * of reading it, the claim left running, and every replay told the outcome was unknown). In one transaction with
 * its claim (`atomic`), the result is looked at inside it: the transaction rolls back and the
 * person is told nothing was done, naming what the effect returned (was: a raw TypeError, and a
 * `null` or a list committed with the effect's rows while the person was told an error).
 */
import { field, form } from '@elicitkit/form';
import BetterSqlite3 from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accept, pendingOf, wireRound } from '../../../test/support/modern-wire.js';
import { onLoopback } from '../test/loopback.js';
import { createSqliteClaimStore } from './claims/sqlite.js';
import { createHttpHandler } from './http/handler.js';
import { createElicitkit } from './kit.js';
import { defineTool } from './tool.js';

const envForm = form({
  env: field.select(
    ['dev', 'prod'].map((value) => ({ value, title: value })),
    { title: 'Environment' },
  ),
});

const db = new BetterSqlite3(':memory:');
db.exec('CREATE TABLE deployments (id INTEGER PRIMARY KEY, env TEXT NOT NULL)');
const insert = db.prepare('INSERT INTO deployments (env) VALUES (?)');
const rows = () => (db.prepare('SELECT COUNT(*) AS n FROM deployments').get() as { n: number }).n;

const acted: string[] = [];
const RETURNS: Record<string, unknown> = {
  nothing: undefined,
  null: null,
  text: 'Deployed.',
  list: [{ type: 'text', text: 'Deployed.' }],
};

const tools = Object.entries(RETURNS).flatMap(([what, value]) =>
  [false, true].map((atomic) =>
    defineTool({
      name: `deploy_${what}${atomic ? '_atomic' : ''}`,
      description: 'Deploys a service.',
      forms: { env: envForm },
      async run(_args, ctx) {
        const answer = await ctx.ask('env', { message: 'Which environment should the service be deployed to?' });
        if (answer.action !== 'accept') return answer.result();
        return ctx.commit(
          () => {
            if (atomic) insert.run(answer.value.env);
            else acted.push(answer.value.env);
            return value as never;
          },
          { atomic },
        );
      },
    }),
  ),
);

// Commits on its first round: nothing sealed, so nothing claimed; the effect is run as it is.
tools.push(
  defineTool({
    name: 'deploy_direct',
    description: 'Deploys to dev without asking.',
    async run(_args, ctx) {
      return ctx.commit(() => {
        acted.push('dev');
        return undefined as never;
      });
    },
  }),
);

const SAID: Record<string, string> = {
  nothing: 'nothing (a missing return?)',
  null: 'null',
  text: 'a string',
  list: 'an array',
};

describe('commit: an effect that returns no tool result', () => {
  let serving: { url: string; close(): Promise<void> };
  beforeAll(async () => {
    const kit = createElicitkit({
      secret: 'a secret of at least thirty-two characters, for this test',
      claims: createSqliteClaimStore(db),
    });
    serving = await onLoopback(createHttpHandler(() => kit.createServer({ name: 't', version: '1' }, tools)));
  });
  afterAll(async () => serving?.close());

  const confirmed = async (name: string) => {
    const call = { name, arguments: {} };
    const first = pendingOf(await wireRound(serving.url, call));
    return { ...call, inputResponses: { env: accept({ env: 'prod' }) }, requestState: first.requestState };
  };

  it.each(Object.keys(RETURNS))(
    'acted, returning %s: told it took effect, unrecorded; a replay the same, nothing again',
    async (what) => {
      acted.length = 0;
      const final = await confirmed(`deploy_${what}`);
      const answered = await wireRound(serving.url, final);
      expect(acted).toEqual(['prod']);
      const told = JSON.stringify(answered.result ?? answered.error);
      expect(answered.result?.isError, `told: ${told}`).not.toBe(true);
      expect(answered.result, `told: ${told}`).toMatchObject({
        structuredContent: { status: 'done', outcome: 'unrecorded', message: expect.stringContaining('took effect') },
      });
      const replay = await wireRound(serving.url, final);
      expect(replay.result).toEqual(answered.result);
      expect(acted).toEqual(['prod']);
    },
  );

  it('acted unclaimed (a first round), returning nothing: told it took effect, unrecorded', async () => {
    acted.length = 0;
    const answered = await wireRound(serving.url, { name: 'deploy_direct', arguments: {} });
    expect(acted).toEqual(['dev']);
    expect(answered.result, JSON.stringify(answered.result)).toMatchObject({
      structuredContent: { status: 'done', outcome: 'unrecorded' },
    });
  });

  it.each(Object.keys(RETURNS))(
    'atomic, returning %s: rolled back, nothing done, and the person is told what it returned',
    async (what) => {
      const before = rows();
      const final = await confirmed(`deploy_${what}_atomic`);
      const answered = await wireRound(serving.url, final);
      const told = JSON.stringify(answered.result ?? answered.error);
      expect(answered.result?.isError, `told: ${told}`).toBe(true);
      expect(told).toContain(`returned ${SAID[what]}`);
      expect(told).toContain('nothing was done');
      expect(rows()).toBe(before);
    },
  );
});
