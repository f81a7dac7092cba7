/**
 * An effect whose result JSON cannot hold — a BigInt, as better-sqlite3 hands back
 * `lastInsertRowid` on a database with `defaultSafeIntegers(true)`, or a cycle. Claimed then acted
 * (not atomic), the effect has happened by the time its result is serialised to be recorded: the
 * person is told it took effect, marked `unrecorded`, and what JSON can hold of it is recorded for
 * replays. In one transaction with its claim (`atomic`), the result is serialised inside it: the
 * transaction rolls back, and the person is told nothing was done.
 */
import { field, form } from '@elicitkit/form';
import { Client } from '@modelcontextprotocol/client';
import BetterSqlite3 from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accept, pendingOf, wireRound } from '../../../test/support/modern-wire.js';
import { httpTransport, onLoopback } from '../test/loopback.js';
import { createSqliteClaimStore } from './claims/sqlite.js';
import { createHttpHandler } from './http/handler.js';
import { createElicitkit } from './kit.js';
import { done } from './results.js';
import { defineTool } from './tool.js';

const envForm = form({
  env: field.select(
    ['dev', 'prod'].map((value) => ({ value, title: value })),
    { title: 'Environment' },
  ),
});

const db = new BetterSqlite3(':memory:');
db.exec('CREATE TABLE deployments (id INTEGER PRIMARY KEY, env TEXT NOT NULL)');
const insert = db.prepare('INSERT INTO deployments (env) VALUES (?)').safeIntegers(true);
const rows = () => (db.prepare('SELECT env FROM deployments ORDER BY id').all() as { env: string }[]).map((r) => r.env);

const deployments: string[] = [];
const SENTENCE = 'could not be recorded';

/** Asks where, then acts and returns what `made` makes of it. */
const asking = (name: string, made: (env: string) => ReturnType<typeof done>, atomic = false) =>
  defineTool({
    name,
    description: 'Deploys a service.',
    forms: { env: envForm },
    async run(_args, ctx) {
      const answer = await ctx.ask('env', { message: 'Which environment should the service be deployed to?' });
      if (answer.action !== 'accept') return answer.result();
      return ctx.commit(() => made(answer.value.env), { atomic });
    },
  });

const pushed = (env: string) => {
  deployments.push(env);
  return deployments.length;
};

const tools = [
  // A row id read with safe integers: a BigInt.
  asking('deploy', (env) => done(`Deployed to ${env}.`, { id: BigInt(pushed(env)) })),
  asking('deploy_cycle', (env) => {
    const deployment: Record<string, unknown> = { env, id: pushed(env) };
    deployment.self = deployment;
    return done(`Deployed to ${env}.`, { deployment, env });
  }),
  asking('deploy_atomic', (env) => done(`Deployed to ${env}.`, { id: insert.run(env).lastInsertRowid }), true),
  // Commits on its first round, not atomic: nothing claimed, the effect run as it is.
  defineTool({
    name: 'deploy_direct',
    description: 'Deploys to dev without asking.',
    async run(_args, ctx) {
      return ctx.commit(() => done('Deployed to dev.', { id: BigInt(pushed('dev')) }));
    },
  }),
  // Commits on its first round: nothing sealed, so one transaction with nothing recorded.
  defineTool({
    name: 'deploy_atomic_direct',
    description: 'Deploys to dev without asking.',
    async run(_args, ctx) {
      return ctx.commit(() => done('Deployed to dev.', { id: insert.run('dev').lastInsertRowid }), { atomic: true });
    },
  }),
];

describe('commit: a result JSON cannot hold', () => {
  let serving: { url: string; close(): Promise<void> };
  const claims = createSqliteClaimStore(db);
  beforeAll(async () => {
    const kit = createElicitkit({ secret: 'a secret of at least thirty-two characters, for this test', claims });
    serving = await onLoopback(createHttpHandler(() => kit.createServer({ name: 't', version: '1' }, tools)));
  });
  afterAll(async () => serving?.close());

  const confirmed = async (name: string) => {
    const call = { name, arguments: {} };
    const first = pendingOf(await wireRound(serving.url, call));
    return { ...call, inputResponses: { env: accept({ env: 'prod' }) }, requestState: first.requestState };
  };

  it('a BigInt after the effect acted: the person is told it took effect, unrecorded, not handed a serialisation error', async () => {
    deployments.length = 0;
    const final = await confirmed('deploy');
    const answered = await wireRound(serving.url, final);
    expect(deployments).toEqual(['prod']);
    const told = JSON.stringify(answered.result ?? answered.error);
    expect(answered.result?.isError, `told: ${told}`).not.toBe(true);
    expect(told).not.toContain('serialize a BigInt');
    expect(answered.result).toMatchObject({
      structuredContent: { status: 'done', outcome: 'unrecorded', message: expect.stringContaining(SENTENCE) },
    });
    expect(told).toContain('Deployed to prod.');
    // What could be kept was recorded: a replay gets the same bytes and nothing runs again.
    expect((await wireRound(serving.url, final)).result).toEqual(answered.result);
    expect(deployments).toEqual(['prod']);
  });

  it('a cycle after the effect acted: the fields JSON can hold are kept, the one holding the cycle left out', async () => {
    deployments.length = 0;
    const final = await confirmed('deploy_cycle');
    const answered = await wireRound(serving.url, final);
    expect(deployments).toEqual(['prod']);
    expect(answered.result?.isError).not.toBe(true);
    expect(answered.result?.structuredContent).toMatchObject({ status: 'done', env: 'prod', outcome: 'unrecorded' });
    expect(answered.result?.structuredContent).not.toHaveProperty('deployment');
    expect((await wireRound(serving.url, final)).result).toEqual(answered.result);
    expect(deployments).toEqual(['prod']);
  });

  it('atomic, after a question: the transaction rolls back, nothing was done, and the person is told why', async () => {
    const before = rows().length;
    const final = await confirmed('deploy_atomic');
    const answered = await wireRound(serving.url, final);
    expect(answered.result?.isError).toBe(true);
    expect(JSON.stringify(answered.result?.content)).toContain('nothing was done');
    expect(rows()).toHaveLength(before);
    // Nothing claimed: the call's id is free, and a replay tries again (and is refused again).
    const replay = await wireRound(serving.url, final);
    expect(JSON.stringify(replay.result?.content)).toContain('nothing was done');
    expect(rows()).toHaveLength(before);
  });

  it('atomic, committing on its first round: the transaction rolls back, nothing was done', async () => {
    const before = rows().length;
    const answered = await wireRound(serving.url, { name: 'deploy_atomic_direct', arguments: {} });
    expect(answered.result?.isError).toBe(true);
    expect(JSON.stringify(answered.result?.content)).toContain('nothing was done');
    expect(rows()).toHaveLength(before);
  });

  // Was: run unclaimed, its result went to the transport as it was, which could not send it: the
  // caller waited for an answer that never came.
  it('an effect run unclaimed (a first round), its result holding a BigInt: the person is told it took effect', async () => {
    deployments.length = 0;
    const answered = await wireRound(serving.url, { name: 'deploy_direct', arguments: {} });
    expect(deployments).toEqual(['dev']);
    expect(answered.result).toMatchObject({ structuredContent: { status: 'done', outcome: 'unrecorded' } });
    expect(JSON.stringify(answered.result)).toContain('Deployed to dev.');
  });

  it('a 2025-11-25 call (nothing claimed: it cannot come again), its result holding a BigInt: the person is told it took effect', async () => {
    deployments.length = 0;
    const client = new Client({ name: 't', version: '1' }, { capabilities: { elicitation: { form: {} } } });
    client.setRequestHandler('elicitation/create', async () => ({ action: 'accept', content: { env: 'prod' } }));
    await client.connect(httpTransport(serving.url));
    try {
      const result = await client.callTool({ name: 'deploy', arguments: {} }, { timeout: 10_000 });
      expect(deployments).toEqual(['prod']);
      expect(result).toMatchObject({ structuredContent: { status: 'done', outcome: 'unrecorded' } });
    } finally {
      await client.close();
    }
  });
});
