/**
 * On 2026-07-28 a call is run again from the top each round, so the question a round asks is built
 * again from what the database and the workspace hold *now*. An answer given to one question must
 * not be taken as the answer to a different one: the person confirmed what they were shown. Raw
 * JSON-RPC rounds against `serveHttp`, the database and the files changed between the rounds the
 * way another user (or another process) changes them.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import BetterSqlite3 from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { accept, pendingOf, type RoundParams, wireRound } from '../../../test/support/modern-wire.js';
import { count, httpOpsdeskForSuite, peek, peekShop } from '../test/harness.js';

const served = httpOpsdeskForSuite();
const as = (token: string) => ({ headers: { authorization: `Bearer ${token}` } });

/** Another process writing opsdesk's database (an admin, a second replica). */
function elsewhere(sql: string, ...params: unknown[]): void {
  const db = new BetterSqlite3(join(served.dataDir, 'opsdesk.db'));
  try {
    db.prepare(sql).run(...params);
  } finally {
    db.close();
  }
}

function questionOf(round: Awaited<ReturnType<typeof wireRound>>, key: string): string {
  const requests = round.result?.inputRequests as Record<string, { params?: { message?: string } }> | undefined;
  return String(requests?.[key]?.params?.message);
}

describe('2026-07-28: an answer counts only for the question it answered', () => {
  it('deploy_service: a production confirmation shown for one version never deploys another', async () => {
    const token = served.server.ownerToken('carol');
    const call: RoundParams = { name: 'deploy_service', arguments: { service: 'order-service', env: 'prod' } };
    const first = await wireRound(served.server.url, call, as(token));
    const { requestState } = pendingOf(first);
    expect(questionOf(first, 'prod')).toContain('v2.3.1');

    // While the person reads "… → v2.3.1", the service's latest version moves on.
    elsewhere("UPDATE services SET latest_version = 'v2.4.0' WHERE name = 'order-service'");
    const before = count(served.dataDir, 'deployments');
    const answered = await wireRound(
      served.server.url,
      { ...call, inputResponses: { prod: accept({ confirmed: true, ticket: 'REL-1001' }) }, requestState },
      as(token),
    );

    // Nothing deployed on a confirmation of something else: the changed question is asked again.
    expect(count(served.dataDir, 'deployments')).toBe(before);
    const again = pendingOf(answered);
    expect(again.asks).toEqual(['prod']);
    expect(questionOf(answered, 'prod')).toContain('v2.4.0');

    // Confirmed as shown now, it deploys what was shown.
    const done = await wireRound(
      served.server.url,
      {
        ...call,
        inputResponses: { prod: accept({ confirmed: true, ticket: 'REL-1001' }) },
        requestState: again.requestState,
      },
      as(token),
    );
    expect(done.result).toMatchObject({
      structuredContent: { status: 'done', deployment: { service: 'order-service', version: 'v2.4.0', env: 'prod' } },
    });
    expect(count(served.dataDir, 'deployments')).toBe(before + 1);

    // The trail shows both questions and what became of the first answer.
    const responses = peek<{ action: string; detail: string | null }>(
      served.dataDir,
      "SELECT r.action, r.detail FROM audit_responses r WHERE r.tool = 'deploy_service' AND r.username = 'carol' ORDER BY r.id",
    );
    expect(responses).toHaveLength(2);
    expect(responses[0]?.detail).toMatch(/question changed/);
    expect(
      peek(served.dataDir, "SELECT id FROM audit_requests WHERE tool = 'deploy_service' AND username = 'carol'"),
    ).toHaveLength(2);
  });

  it('sync_file: "keep remote" chosen on one diff never overwrites a local edit the person did not see', async () => {
    const token = served.server.ownerToken('dave');
    const { local, remote } = {
      local: join(served.dataDir, 'workspace', 'local', 'notes', 'plan.md'),
      remote: join(served.dataDir, 'workspace', 'remote', 'notes', 'plan.md'),
    };
    writeFileSync(local, '# Release plan\n\nlocal edit one\n');
    writeFileSync(remote, '# Release plan\n\nremote edit\n');
    const call: RoundParams = { name: 'sync_file', arguments: { path: 'notes/plan.md' } };
    const first = await wireRound(served.server.url, call, as(token));
    const { requestState } = pendingOf(first);
    expect(questionOf(first, 'resolution')).toContain('local edit one');

    // The person is still reading the diff when the local side is edited again.
    writeFileSync(local, '# Release plan\n\nlocal edit TWO, written after the question\n');
    const answered = await wireRound(
      served.server.url,
      { ...call, inputResponses: { resolution: accept({ resolution: 'keep_remote' }) }, requestState },
      as(token),
    );
    expect(readFileSync(local, 'utf8')).toContain('local edit TWO');
    expect(pendingOf(answered).asks).toEqual(['resolution']);
    expect(questionOf(answered, 'resolution')).toContain('local edit TWO');
  });

  it('an unchanged question takes its answer in the next round, as before', async () => {
    const token = served.server.ownerToken('erin');
    const call: RoundParams = { name: 'deploy_service', arguments: { service: 'payment-service', env: 'prod' } };
    const { requestState } = pendingOf(await wireRound(served.server.url, call, as(token)));
    const done = await wireRound(
      served.server.url,
      { ...call, inputResponses: { prod: accept({ confirmed: true, ticket: 'REL-2001' }) }, requestState },
      as(token),
    );
    expect(done.result).toMatchObject({ structuredContent: { status: 'done', deployment: { env: 'prod' } } });
  });
});

describe('2026-07-28: execute_sql asks a question that stays the same when its statement calls random()', () => {
  /** An SDK client on 2026-07-28 whose person confirms every question with `orders`. */
  async function confirming(token: string, action: 'accept' | 'decline' = 'accept') {
    const messages: string[] = [];
    const client = new Client(
      { name: 'sql-person', version: '1' },
      { capabilities: { elicitation: { form: {} } }, versionNegotiation: { mode: { pin: '2026-07-28' } } },
    );
    client.setRequestHandler('elicitation/create', async (request) => {
      messages.push(request.params.message);
      return action === 'accept' ? { action, content: { understood: true, typedTableName: 'orders' } } : { action };
    });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(served.server.url), {
        requestInit: { headers: { authorization: `Bearer ${token}` } },
      }),
    );
    return { client, messages };
  }

  it('a statement whose effect differs on every run states a bound, the same every time: asked once per call', async () => {
    const { client, messages } = await confirming(served.server.ownerToken('frank'));
    // Five calls: each asks once, and all five questions are the same words (no run's count in them).
    for (let i = 0; i < 5; i++) {
      const result = await client.callTool({
        name: 'execute_sql',
        arguments: { sql: 'UPDATE orders SET status = status WHERE abs(random()) % 2 = 0' },
      });
      expect(result).toMatchObject({ structuredContent: { status: 'done', table: 'orders' } });
      expect((result.structuredContent as { changes: number }).changes).toBeLessThanOrEqual(1200);
      expect(messages).toHaveLength(i + 1);
    }
    expect(new Set(messages).size).toBe(1);
    expect(messages[0]).toContain('up to 1200 rows of `orders`');
    await client.close();
  });

  it('random() only in the SET list: the bound is stated all the same, and the run keeps to it', async () => {
    const { client, messages } = await confirming(served.server.ownerToken('grace'));
    const result = await client.callTool({
      name: 'execute_sql',
      arguments: { sql: 'UPDATE orders SET status = status || substr(random(), 1, 0) WHERE id <= 150' },
    });
    expect(result).toMatchObject({ structuredContent: { status: 'done', changes: 150 } });
    expect(messages).toEqual([expect.stringContaining('up to 1200 rows of `orders`')]);
    await client.close();
  });

  it('a write calling random() whose one run stays small is kept without a question: what was judged is what ran', async () => {
    const { client, messages } = await confirming(served.server.ownerToken('heidi'));
    const result = await client.callTool({
      name: 'execute_sql',
      arguments: { sql: "UPDATE orders SET status = 'held' WHERE id = 7 AND random() IS NOT NULL" },
    });
    expect(result).toMatchObject({ structuredContent: { status: 'done', changes: 1, table: 'orders' } });
    expect(messages).toEqual([]);
    await client.close();
  });

  it('declined, such a write changes nothing', async () => {
    const status = () => peekShop(served.dataDir, "SELECT COUNT(*) AS n FROM orders WHERE status = 'held-2'");
    const { client, messages } = await confirming(served.server.ownerToken('ivan'), 'decline');
    const result = await client.callTool({
      name: 'execute_sql',
      arguments: { sql: "UPDATE orders SET status = 'held-2' WHERE id <= 150 + abs(random()) % 300" },
    });
    expect(messages).toHaveLength(1);
    expect(result).toMatchObject({ structuredContent: { status: 'declined' } });
    expect(status()).toEqual([{ n: 0 }]);
    await client.close();
  });

  it('a write without random() under the threshold still runs without a question', async () => {
    const { client, messages } = await confirming(served.server.ownerToken('judy'));
    const result = await client.callTool({
      name: 'execute_sql',
      arguments: { sql: 'UPDATE orders SET status = status WHERE id = 9' },
    });
    expect(result).toMatchObject({ structuredContent: { status: 'done', changes: 1 } });
    expect(messages).toEqual([]);
    await client.close();
  });
});
