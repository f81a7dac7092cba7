import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import {
  accept,
  pendingOf,
  type RoundParams,
  type WireRound,
  wireRound,
} from '../../../../test/support/modern-wire.js';
import { count, httpOpsdeskForSuite, peek } from '../../test/harness.js';

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

function questionOf(round: WireRound, key: string): string {
  const requests = round.result?.inputRequests as Record<string, { params?: { message?: string } }> | undefined;
  return String(requests?.[key]?.params?.message);
}

/**
 * On 2026-07-28 a call is run again from the top each round, so the question a round asks is built
 * again from what the database and the workspace hold *now*. An answer given to one question must
 * not be taken as the answer to a different one: the person confirmed what they were shown. Raw
 * JSON-RPC rounds against `serveHttp`, the database changed between the rounds the way another
 * user (or another process) changes it.
 */
describe('deploy_service on 2026-07-28: an answer counts only for the question it answered', () => {
  it('a production confirmation shown for one version never deploys another', async () => {
    const token = await served.server.ownerToken('carol');
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

  it('an unchanged question takes its answer in the next round, as before', async () => {
    const token = await served.server.ownerToken('erin');
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
