/**
 * "A deploy declined by bob left no audit request": bob may deploy only search-service, so a
 * deploy of order-service is refused before any question (by design: a person is never asked to
 * confirm what they may not do). The refusal is in the audit as its own record; a question that
 * reached bob — declined, cancelled or accepted — leaves its request and response rows like
 * anyone's. Over HTTP with each demo user's token, on both wire revisions.
 */
import { join } from 'node:path';
import type { Revision } from '@elicitkit/form';
import BetterSqlite3 from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callTool, type Reply } from '../../../test/support/mcp.js';
import { type Conn, httpClient, tempDataDir } from '../test/harness.js';
import { readAudit } from './audit.js';
import { issueToken } from './identity.js';
import { type HttpServing, serveHttp } from './serve-http.js';

const REVISIONS: Revision[] = ['2025-11-25', '2026-07-28'];

describe.each(REVISIONS)('refusals and answers in the audit (%s)', (revision) => {
  const data = tempDataDir();
  let server: HttpServing;
  const clients: Conn[] = [];
  beforeAll(async () => {
    server = await serveHttp({ dataDir: data.dir, locale: 'en', port: 0 });
  });
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close()));
    await server.close();
    data.remove();
  });
  const connect = async (user: string) => {
    const c = await httpClient(server.url, issueToken(server.opsdesk.db, user), { revision });
    clients.push(c);
    return c;
  };
  const trail = () => {
    const db = new BetterSqlite3(join(data.dir, 'opsdesk.db'), { readonly: true });
    try {
      return readAudit(db);
    } finally {
      db.close();
    }
  };

  it('bob’s deploy of order-service is refused before any question, and the refusal is recorded', async () => {
    const bob = await connect('bob');
    const before = trail();
    const r = await callTool(bob.client, 'deploy_service', { service: 'order-service', env: 'dev' });
    expect(r.status).toBe('rejected');
    expect(bob.seen).toHaveLength(0);
    const after = trail();
    expect(after.requests).toHaveLength(before.requests.length);
    expect(after.refusals.at(-1)).toMatchObject({
      tool: 'deploy_service',
      username: 'bob',
      revision,
      message: expect.stringContaining('order-service'),
    });
    expect(after.refusals).toHaveLength(before.refusals.length + 1);
  });

  const outcomes: [string, Reply, string][] = [
    ['decline', { action: 'decline' }, 'declined'],
    ['cancel', { action: 'cancel' }, 'cancelled'],
    ['accept', { action: 'accept', content: { env: 'dev' } }, 'done'],
  ];
  for (const user of ['alice', 'bob', 'owner']) {
    for (const [action, reply, status] of outcomes) {
      it(`${user}: a question ${action}d leaves its request and response rows`, async () => {
        const c = await connect(user);
        c.script.push(reply);
        const r = await callTool(c.client, 'deploy_service', { service: 'search-service' });
        expect(r.status).toBe(status);
        const { requests, responses, refusals } = trail();
        const request = requests.at(-1);
        expect(request).toMatchObject({ tool: 'deploy_service', question: 'env', username: user, delivered: true });
        expect(responses.at(-1)).toMatchObject({ context_id: request?.context_id, username: user, action });
        expect(refusals.filter((f) => f.context_id === request?.context_id)).toHaveLength(0);
      });
    }
  }
});
