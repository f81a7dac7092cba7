/**
 * opsdesk acts once per call, however its final round is replayed — the attack from issue 10:
 * the same `requestState` and answers sent again to `elicitkit serve --http` as raw JSON-RPC, in
 * sequence, at the same moment, and after the server restarted on the same data directory; over
 * stdio with the SDK client's low-level request; and, on 2025-11-25, the same answer sent again.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client, isInputRequiredResult } from '@modelcontextprotocol/client';
import BetterSqlite3 from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accept, pendingOf, type RoundParams, wireRound } from '../../../test/support/modern-wire.js';
import { legacySession, sseMessages } from '../../../test/support/sse.js';
import { setPasswordOnPage } from '../test/cases.js';
import {
  CLI,
  connectStdio,
  count,
  type HttpProcess,
  nodeArgs,
  peek,
  peekShop,
  serveHttpProcess,
  tempDataDir,
} from '../test/harness.js';

let data: ReturnType<typeof tempDataDir>;
let served: HttpProcess;
let tokens: Record<string, string>;
const as = (user: string) => ({ headers: { authorization: `Bearer ${tokens[user]}` } });

beforeAll(async () => {
  data = tempDataDir();
  served = await serveHttpProcess(data.dir);
  tokens = served.tokens;
}, 60_000);
afterAll(async () => {
  await served.stop();
  data.remove();
});

/** Runs a call up to its last round (its one question answered) and returns that round, unsent. */
async function lastRound(call: RoundParams, answer: Record<string, unknown>, user = 'alice'): Promise<RoundParams> {
  const first = pendingOf(await wireRound(served.url, call, as(user)));
  expect(first.asks).toHaveLength(1);
  return { ...call, inputResponses: { [first.asks[0] ?? '']: accept(answer) }, requestState: first.requestState };
}

const prodDeploy = (): RoundParams => ({
  name: 'deploy_service',
  arguments: { service: 'order-service', env: 'prod' },
});
const approved = { confirmed: true, ticket: 'REL-1001' };

async function replayed(round: RoundParams, user = 'alice') {
  const first = await wireRound(served.url, round, as(user));
  const sequential = [];
  for (let i = 0; i < 20; i++) sequential.push(await wireRound(served.url, round, as(user)));
  const concurrent = await Promise.all(Array.from({ length: 20 }, () => wireRound(served.url, round, as(user))));
  return { first, replays: [...sequential, ...concurrent] };
}

describe('elicitkit serve --http: a final round replayed (2026-07-28, raw JSON-RPC)', () => {
  it('deploy_service to production, 20 times in sequence and 20 at once: one deployment, the same bytes', async () => {
    const before = count(data.dir, 'deployments');
    const { first, replays } = await replayed(await lastRound(prodDeploy(), approved));
    expect(first.result).toMatchObject({ structuredContent: { status: 'done', deployment: { env: 'prod' } } });
    for (const r of replays) expect(r.body).toBe(first.body);
    expect(count(data.dir, 'deployments')).toBe(before + 1);
  });

  it('a replay answers from the record even when its checks would now fail (the ticket was revoked since)', async () => {
    const round = await lastRound(
      { name: 'deploy_service', arguments: { service: 'payment-service', env: 'prod' } },
      { confirmed: true, ticket: 'REL-2001' },
    );
    const first = await wireRound(served.url, round, as('alice'));
    expect(first.result).toMatchObject({ structuredContent: { status: 'done' } });
    const db = new BetterSqlite3(join(data.dir, 'opsdesk.db'));
    db.prepare("UPDATE release_tickets SET status = 'rejected' WHERE id = 'REL-2001'").run();
    try {
      expect((await wireRound(served.url, round, as('alice'))).body).toBe(first.body);
    } finally {
      db.prepare("UPDATE release_tickets SET status = 'approved' WHERE id = 'REL-2001'").run();
      db.close();
    }
  });

  it('execute_sql, a confirmed UPDATE of every row: applied once, the same report each time', async () => {
    const stock = () => peekShop<{ s: number }>(data.dir, 'SELECT SUM(stock) AS s FROM products')[0]?.s ?? 0;
    const before = stock();
    const round = await lastRound(
      { name: 'execute_sql', arguments: { sql: 'UPDATE products SET stock = stock + 1' } },
      { understood: true, typedTableName: 'products' },
    );
    const { first, replays } = await replayed(round);
    expect(first.result).toMatchObject({ structuredContent: { status: 'done', changes: 50, table: 'products' } });
    for (const r of replays) expect(r.body).toBe(first.body);
    expect(stock()).toBe(before + 50);
  });

  it('sync_file, a conflict resolved then replayed: resolved once, the same report each time', async () => {
    for (const side of ['local', 'remote']) {
      mkdirSync(join(data.dir, 'workspace', side, 'notes'), { recursive: true });
      writeFileSync(join(data.dir, 'workspace', side, 'notes/replayed.md'), `${side} edit\n`);
    }
    const round = await lastRound(
      { name: 'sync_file', arguments: { path: 'notes/replayed.md' } },
      { resolution: 'keep_both' },
    );
    const { first, replays } = await replayed(round);
    expect(first.result).toMatchObject({ structuredContent: { status: 'done', action: 'keep_both' } });
    for (const r of replays) expect(r.body).toBe(first.body);
    const read = (side: string, file: string) => readFileSync(join(data.dir, 'workspace', side, file), 'utf8');
    // Remote won the file, the local edit was kept beside it — once, not copied over again by a replay.
    expect([read('local', 'notes/replayed.md'), read('remote', 'notes/replayed.md')]).toEqual([
      'remote edit\n',
      'remote edit\n',
    ]);
    expect([read('local', 'notes/replayed.md.local'), read('remote', 'notes/replayed.md.local')]).toEqual([
      'local edit\n',
      'local edit\n',
    ]);
  });

  it('register_user, its last round replayed after the page: one account, the same result', async () => {
    const first = pendingOf(await wireRound(served.url, { name: 'register_user', arguments: {} }, as('alice')));
    const second = await wireRound(
      served.url,
      {
        name: 'register_user',
        arguments: {},
        inputResponses: { account: accept({ username: 'kim', email: 'kim@example.com', newsletter: false }) },
        requestState: first.requestState,
      },
      as('alice'),
    );
    const page = pendingOf(second);
    const requests = (second.result?.inputRequests ?? {}) as Record<string, { params: { url: string } }>;
    const link = requests.password?.params.url ?? '';
    expect((await setPasswordOnPage(link)).status).toBe(200);
    const last: RoundParams = {
      name: 'register_user',
      arguments: {},
      inputResponses: { password: { action: 'accept' } },
      requestState: page.requestState,
    };
    const { first: done, replays } = await replayed(last);
    expect(done.result).toMatchObject({ structuredContent: { status: 'done', username: 'kim', passwordSet: true } });
    for (const r of replays) expect(r.body).toBe(done.body);
    expect(peek(data.dir, "SELECT COUNT(*) AS n FROM users WHERE username = 'kim'")).toEqual([{ n: 1 }]);
  });

  it("another user cannot replay alice's final round", async () => {
    const before = count(data.dir, 'deployments');
    const round = await lastRound(prodDeploy(), approved);
    const stolen = await wireRound(served.url, round, as('bob'));
    expect(stolen.error).toMatchObject({ code: -32602 });
    expect(count(data.dir, 'deployments')).toBe(before);
  });

  it('the answer sent again on a 2025-11-25 session: one deployment, one result', async () => {
    const before = count(data.dir, 'deployments');
    const { post } = await legacySession(served.url, as('alice').headers);
    const call = await post({
      id: 1,
      method: 'tools/call',
      params: { name: 'deploy_service', arguments: prodDeploy().arguments },
    });
    const events = sseMessages(call);
    const question = await events.next();
    expect(question).toMatchObject({ method: 'elicitation/create' });
    const answer = { id: question?.id, result: { action: 'accept', content: approved } };
    for (let i = 0; i < 20; i++) await post(answer);
    await Promise.all(Array.from({ length: 20 }, () => post(answer)));
    expect(await events.next()).toMatchObject({ id: 1, result: { structuredContent: { status: 'done' } } });
    expect(await events.next()).toBeUndefined();
    expect(count(data.dir, 'deployments')).toBe(before + 1);
  });

  it('after a restart on the same data: a replay still acts no more, and a round never sent still works', async () => {
    const before = count(data.dir, 'deployments');
    const sent = await lastRound(prodDeploy(), approved);
    const original = await wireRound(served.url, sent, as('alice'));
    const unsent = await lastRound(prodDeploy(), approved);
    expect(await served.stop()).toBe(0);
    served = await serveHttpProcess(data.dir);
    expect(served.tokens).toEqual({}); // tokens are only shown on the first start; the old ones still work
    for (let i = 0; i < 5; i++) expect((await wireRound(served.url, sent, as('alice'))).body).toBe(original.body);
    expect(count(data.dir, 'deployments')).toBe(before + 1);
    const late = await wireRound(served.url, unsent, as('alice'));
    expect(late.result).toMatchObject({ structuredContent: { status: 'done' } });
    expect((await wireRound(served.url, unsent, as('alice'))).body).toBe(late.body);
    expect(count(data.dir, 'deployments')).toBe(before + 2);
  }, 60_000);
});

describe('elicitkit serve --stdio: a final round replayed (2026-07-28, SDK low-level requests)', () => {
  it('20 times in sequence and 20 at once: one deployment, the same result', async () => {
    const local = tempDataDir();
    const client = new Client(
      { name: 'replayer', version: '1' },
      {
        capabilities: { elicitation: { form: {} } },
        versionNegotiation: { mode: { pin: '2026-07-28' } },
        inputRequired: { autoFulfill: false },
      },
    );
    await connectStdio(
      client,
      {
        command: process.execPath,
        args: nodeArgs(CLI, 'serve', '--stdio', '--data', local.dir, '--user', 'alice'),
      },
      { timeout: 60_000 },
    );
    try {
      const round = (extra: Record<string, unknown> = {}) =>
        client.request(
          { method: 'tools/call', params: { name: 'deploy_service', arguments: prodDeploy().arguments, ...extra } },
          { allowInputRequired: true, timeout: 60_000 },
        );
      const first = await round();
      if (!isInputRequiredResult(first)) throw new Error('expected the production confirmation');
      const final = { inputResponses: { prod: accept(approved) }, requestState: first.requestState };
      const before = count(local.dir, 'deployments');
      const results: unknown[] = [];
      for (let i = 0; i < 20; i++) results.push(await round(final));
      results.push(...(await Promise.all(Array.from({ length: 20 }, () => round(final)))));
      expect(new Set(results.map((r) => JSON.stringify(r))).size).toBe(1);
      expect(results[0]).toMatchObject({ structuredContent: { status: 'done' } });
      expect(count(local.dir, 'deployments')).toBe(before + 1);
    } finally {
      await client.close();
      local.remove();
    }
  });
});
