/**
 * `commit(effect, { atomic: true })` on the SQLite claim store promises "claim, writes and
 * result commit in one transaction" (docs/server.md, "Exactly once"), and for 2025 connections
 * "`commit` simply runs the effect — in its transaction with a claim when `atomic`". An effect
 * that writes a row and then throws must therefore leave no row, on every revision and round.
 */
import { field, form } from '@elicitkit/form';
import { Client } from '@modelcontextprotocol/client';
import BetterSqlite3 from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { accept, pendingOf, wireRound } from '../../../../test/support/modern-wire.js';
import { httpTransport, onLoopback } from '../../test/loopback.js';
import { createHttpHandler } from '../http/handler.js';
import { createElicitkit } from '../kit.js';
import { done } from '../results.js';
import { defineTool } from '../tool.js';
import { createSqliteClaimStore } from './sqlite.js';

const envForm = form({
  env: field.select(
    ['dev', 'prod'].map((value) => ({ value, title: value })),
    { title: 'Environment' },
  ),
});

const closing: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closing.splice(0)) await close();
});

async function start() {
  const db = new BetterSqlite3(':memory:');
  db.exec('CREATE TABLE deployments (id INTEGER PRIMARY KEY, env TEXT NOT NULL)');
  const insert = db.prepare('INSERT INTO deployments (env) VALUES (?)');
  /** Writes its row, then fails: one transaction, so nothing should be left. */
  const halfway = (env: string) => {
    insert.run(env);
    throw new Error('the second write failed');
  };
  const asking = defineTool({
    name: 'deploy_asking',
    description: 'Asks where, then writes a row and fails.',
    forms: { env: envForm },
    async run(_args, ctx) {
      const answer = await ctx.ask('env', { message: 'Which environment should the service be deployed to?' });
      if (answer.action !== 'accept') return answer.result();
      return ctx.commit(
        () => {
          halfway(answer.value.env);
          return done('unreachable');
        },
        { atomic: true },
      );
    },
  });
  const direct = defineTool({
    name: 'deploy_direct',
    description: 'Writes a row and fails, without asking.',
    async run(_args, ctx) {
      return ctx.commit(
        () => {
          halfway('dev');
          return done('unreachable');
        },
        { atomic: true },
      );
    },
  });
  const later = defineTool({
    name: 'deploy_later',
    description: 'An async effect under atomic: SQLite cannot hold a transaction across an await.',
    async run(_args, ctx) {
      return ctx.commit(
        async () => {
          await Promise.resolve();
          insert.run('dev');
          return done('written after an await');
        },
        { atomic: true },
      );
    },
  });
  const fine = defineTool({
    name: 'deploy_fine',
    description: 'Writes a row, without asking.',
    async run(_args, ctx) {
      return ctx.commit(
        () => {
          insert.run('dev');
          return done('written');
        },
        { atomic: true },
      );
    },
  });
  const kit = createElicitkit({ claims: createSqliteClaimStore(db) });
  const handler = createHttpHandler(() =>
    kit.createServer({ name: 'sqlite-atomic', version: '1' }, [asking, direct, later, fine]),
  );
  const served = await onLoopback(handler);
  closing.push(served.close);
  const rows = () => (db.prepare('SELECT env FROM deployments').all() as { env: string }[]).map((r) => r.env);
  const claims = () => (db.prepare('SELECT COUNT(*) AS n FROM elicitkit_claims').get() as { n: number }).n;
  return { url: served.url, rows, claims };
}

describe('atomic commits on SQLite roll back an effect that throws after writing', () => {
  it('control: a 2026-07-28 final round (sealed state) leaves no row', async () => {
    const s = await start();
    const call = { name: 'deploy_asking', arguments: {} };
    const first = pendingOf(await wireRound(s.url, call));
    const final = await wireRound(s.url, {
      ...call,
      inputResponses: { env: accept({ env: 'prod' }) },
      requestState: first.requestState,
    });
    expect(final.result?.isError).toBe(true);
    expect(s.rows()).toEqual([]);
  });

  it('a 2025-11-25 call (pushed question, nothing sealed) leaves no row', async () => {
    const s = await start();
    const client = new Client({ name: 'c', version: '1' }, { capabilities: { elicitation: { form: {} } } });
    client.setRequestHandler('elicitation/create', async () => ({ action: 'accept', content: { env: 'dev' } }));
    await client.connect(httpTransport(s.url));
    closing.push(() => client.close());
    const result = await client.callTool({ name: 'deploy_asking', arguments: {} });
    expect(result.isError).toBe(true);
    expect(s.rows(), 'the half-written effect of an atomic commit on a 2025 connection was kept').toEqual([]);
  });

  it('a 2026-07-28 call that commits on its first round (nothing sealed) leaves no row', async () => {
    const s = await start();
    const round = await wireRound(s.url, { name: 'deploy_direct', arguments: {} });
    expect(round.result?.isError).toBe(true);
    expect(s.rows(), 'the half-written effect of an atomic commit on a first round was kept').toEqual([]);
  });

  it('an async effect under atomic is refused on a first round too, before it writes anything', async () => {
    const s = await start();
    const round = await wireRound(s.url, { name: 'deploy_later', arguments: {} });
    expect(round.result?.isError).toBe(true);
    expect(JSON.stringify(round.result?.content)).toContain('atomic');
    expect(s.rows()).toEqual([]);
  });

  it('a call that cannot come again commits its row in its transaction and records no claim (nobody could ask for it)', async () => {
    const s = await start();
    const client = new Client({ name: 'c', version: '1' }, { capabilities: { elicitation: { form: {} } } });
    await client.connect(httpTransport(s.url));
    closing.push(() => client.close());
    expect((await client.callTool({ name: 'deploy_fine', arguments: {} })).isError).toBeFalsy();
    expect((await wireRound(s.url, { name: 'deploy_fine', arguments: {} })).result?.isError).toBeFalsy();
    expect(s.rows()).toEqual(['dev', 'dev']);
    expect(s.claims()).toBe(0);
  });
});
