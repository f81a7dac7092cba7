/**
 * `ctx.commit(effect, { atomic: true })` on the Postgres claim store, through the real SDK and
 * HTTP: the effect is handed the transaction's client and writes the tool's own table in it, so
 * a final round replayed on two replicas (two kits, two pools, one database) writes one row; a
 * 2025 call (one round, nothing sealed) is one transaction too; an effect that takes a
 * transaction where none is given is refused before it runs.
 */
import { field, form } from '@elicitkit/form';
import { Client } from '@modelcontextprotocol/client';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accept, pendingOf, wireRound } from '../../../test/support/modern-wire.js';
import { startPostgres, type TestPostgres, withPostgres } from '../../../test/support/postgres-server.js';
import { httpTransport, onLoopback } from '../test/loopback.js';
import { createPostgresClaimStore } from './claims/postgres.js';
import { createHttpHandler } from './http/handler.js';
import { createElicitkit, type ElicitkitOptions } from './kit.js';
import { done } from './results.js';
import { defineTool } from './tool.js';

const POSTGRES = withPostgres('postgres-commit.test.ts');

const envForm = form({
  env: field.select(
    ['dev', 'prod'].map((value) => ({ value, title: value })),
    { title: 'Environment' },
  ),
});

/** The README's tool: asks where, then deploys into a table of the author's own, in the claim's transaction. */
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

const wantsTransaction = (atomic: boolean) =>
  defineTool({
    name: atomic ? 'atomic_without_store' : 'not_atomic',
    description: 'An effect that takes a transaction.',
    async run(_args, ctx) {
      return ctx.commit(async (tx: pg.PoolClient) => done(String(tx)), { atomic });
    },
  });

const SECRET = 'one secret for both replicas: a state sealed on one opens on the other';

async function replica(kit: ElicitkitOptions) {
  const elicitkit = createElicitkit({ secret: SECRET, ...kit });
  const handler = createHttpHandler(() =>
    elicitkit.createServer({ name: 'pg', version: '1' }, [deploy, wantsTransaction(true), wantsTransaction(false)]),
  );
  return onLoopback(handler);
}

describe.skipIf(!POSTGRES)('atomic commits on Postgres', () => {
  let server: TestPostgres;
  const pools: pg.Pool[] = [];
  const closing: (() => Promise<void>)[] = [];
  const pool = () => {
    const p = new pg.Pool({ connectionString: server.url });
    pools.push(p);
    return p;
  };
  beforeAll(async () => {
    server = await startPostgres();
    await pool().query('CREATE TABLE deployments (id SERIAL PRIMARY KEY, env TEXT NOT NULL)');
  });
  afterAll(async () => {
    for (const close of closing) await close();
    for (const p of pools) await p.end();
    await server?.stop();
  });
  const rows = async () => (await pools[0]?.query('SELECT env FROM deployments ORDER BY id'))?.rows ?? [];

  it('a final round replayed on two replicas at once writes one row; every replay gets the same result', async () => {
    const a = await replica({ claims: createPostgresClaimStore(pool()) });
    const b = await replica({ claims: createPostgresClaimStore(pool()) });
    closing.push(a.close, b.close);
    const before = (await rows()).length;
    const call = { name: 'deploy', arguments: {} };
    const first = pendingOf(await wireRound(a.url, call));
    const final = { ...call, inputResponses: { env: accept({ env: 'prod' }) }, requestState: first.requestState };
    const replays = await Promise.all(Array.from({ length: 8 }, (_, i) => wireRound(i % 2 ? a.url : b.url, final)));
    const results = replays.map((r) => JSON.stringify(r.result?.structuredContent));
    expect(new Set(results).size).toBe(1);
    expect(replays[0]?.result).toMatchObject({ structuredContent: { status: 'done' } });
    expect((await rows()).slice(before)).toEqual([{ env: 'prod' }]);
  });

  it('a 2025 call (one round, nothing sealed) commits its row with its claim', async () => {
    const a = await replica({ claims: createPostgresClaimStore(pool()) });
    closing.push(a.close);
    const before = (await rows()).length;
    const client = new Client({ name: 'c', version: '1' }, { capabilities: { elicitation: { form: {} } } });
    client.setRequestHandler('elicitation/create', async () => ({ action: 'accept', content: { env: 'dev' } }));
    await client.connect(httpTransport(a.url));
    try {
      const result = await client.callTool({ name: 'deploy', arguments: {} });
      expect(result.structuredContent).toMatchObject({ status: 'done' });
    } finally {
      await client.close();
    }
    expect((await rows()).slice(before)).toEqual([{ env: 'dev' }]);
  });

  it('an effect that takes a transaction is refused, before it runs, where none would be given', async () => {
    const a = await replica({});
    const b = await replica({ claims: createPostgresClaimStore(pool()) });
    closing.push(a.close, b.close);
    const noStore = await wireRound(a.url, { name: 'atomic_without_store', arguments: {} });
    expect(noStore.result?.isError).toBe(true);
    expect(JSON.stringify(noStore.result?.content)).toContain('no asynchronous transactions to give it');
    const notAtomic = await wireRound(b.url, { name: 'not_atomic', arguments: {} });
    expect(notAtomic.result?.isError).toBe(true);
    expect(JSON.stringify(notAtomic.result?.content)).toContain('only commit(effect, { atomic: true }) gives');
  });
});
