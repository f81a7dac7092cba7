import { join } from 'node:path';
import type { Revision } from '@elicitkit/form';
import { type AuditEvent, type ClaimStore, defineTool, done, rejected, type ToolContext } from '@elicitkit/server';
import { createSqliteClaimStore } from '@elicitkit/server/sqlite';
import type { CallToolResult } from '@modelcontextprotocol/server';
import BetterSqlite3 from 'better-sqlite3';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { callTool, type Reply } from '../../../test/support/mcp.js';
import { type Conn, httpClient, peek, sqliteDb, tempDataDir } from '../test/harness.js';
import { recordStatements } from '../test/sqlite-counters.js';
import { auditBeforeClaims, flushAudit, readAudit, recordCallEnds, sqliteAudit } from './audit.js';
import { type Database, openDatabase } from './db/open.js';
import { sqliteStore } from './db/sqlite-store.js';
import { issueToken } from './identity.js';
import { createOpsdesk } from './opsdesk.js';
import { type HttpServing, serveHttp } from './serve-http.js';

function response(contextId: string): AuditEvent {
  return {
    type: 'response',
    contextId,
    tool: 'deploy_service',
    key: 'env',
    user: 'alice',
    action: 'accept',
    content: { env: 'dev' },
    elapsedMs: 5,
    at: 1_700_000_000_000,
  };
}

function validation(contextId: string): AuditEvent {
  return {
    type: 'validation',
    contextId,
    tool: 'deploy_service',
    key: 'env',
    user: 'alice',
    ok: true,
    issues: [],
    at: 1,
  };
}

function request(contextId: string): AuditEvent {
  return {
    type: 'request',
    contextId,
    tool: 'deploy_service',
    key: 'env',
    user: 'alice',
    mode: 'form',
    revision: '2025-11-25',
    message: 'Which environment?',
    fields: ['env'],
    delivered: true,
    at: 1,
  };
}

const CLAIM = { leaseMs: 60_000, ttlMs: 60_000 };
const endOfTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('opsdesk audit rows, committed per step', () => {
  let data: ReturnType<typeof tempDataDir>;
  let db: Database;
  // Another connection, as `elicitkit audit` or a second process reads: it sees commits only.
  let other: BetterSqlite3.Database;
  const deployments = () => other.prepare('SELECT COUNT(*) FROM deployments').pluck().get() as number;
  const committed = (table: string) =>
    other.prepare(`SELECT context_id FROM ${table} ORDER BY id`).pluck().all() as string[];

  beforeEach(() => {
    data = tempDataDir();
    db = openDatabase(data.dir);
    other = new BetterSqlite3(join(data.dir, 'opsdesk.db'), { readonly: true });
  });
  afterEach(() => {
    other.close();
    if (db.open) db.close();
    data.remove();
  });

  it('commits a question’s record before anything runs after it, with the rows queued before it', async () => {
    const sink = sqliteAudit(db);
    sink(response('a'));
    sink(validation('a'));
    sink(request('a'));
    // Queued, not yet on disk: one transaction for the three of them, not three commits.
    expect(committed('audit_requests')).toEqual([]);
    // Whatever continues after the question (sending it) runs after the queued commit.
    await Promise.resolve();
    expect(committed('audit_requests')).toEqual(['a']);
    expect(committed('audit_responses')).toEqual(['a']);
    expect(committed('audit_validations')).toEqual(['a']);
  });

  it('commits a question’s record alone as one statement: no transaction of its own', async () => {
    const sink = sqliteAudit(db);
    const statements = recordStatements(db);
    try {
      sink(request('q'));
      await Promise.resolve();
    } finally {
      statements.stop();
    }
    expect(committed('audit_requests')).toEqual(['q']);
    expect(statements.sql).toHaveLength(1);
    expect(statements.sql[0]).toMatch(/^INSERT INTO audit_requests /);
  });

  it('keeps an answer’s records for what it leads to, and commits them by the end of the turn at the latest', async () => {
    const sink = sqliteAudit(db);
    sink(response('a'));
    sink(validation('a'));
    sink(response('b'));
    await Promise.resolve();
    // Still queued: the tool's next line may act (and take them into its transaction) or ask again.
    expect(committed('audit_responses')).toEqual([]);
    await endOfTurn();
    expect(committed('audit_responses')).toEqual(['a', 'b']);
    expect(committed('audit_validations')).toEqual(['a']);
  });

  it('readAudit on the same store sees rows still queued', async () => {
    const sink = sqliteAudit(db);
    sink(response('a'));
    expect((await readAudit(sqliteStore(db))).responses.map((r) => r.context_id)).toEqual(['a']);
  });

  it('a claim commits the queued rows first, so an effect that runs after it is never on disk without them', async () => {
    const sink = sqliteAudit(db);
    const inner = createSqliteClaimStore(db);
    let onDiskAtClaim: string[] = [];
    const claims = auditBeforeClaims(
      {
        ...inner,
        claim: (id, owner, options) => {
          onDiskAtClaim = committed('audit_responses');
          return inner.claim(id, owner, options);
        },
      },
      db,
    );
    sink(response('call-1'));
    expect(await claims.claim('call-1', 'me', CLAIM)).toEqual({ state: 'claimed' });
    expect(onDiskAtClaim).toEqual(['call-1']);
  });

  /** A call's context whose `commit` runs effects as the kit does: claimed atomically on a sealed round, at once on a 2025 push call. */
  const contextFor = (contextId: string, claims?: ClaimStore): ToolContext =>
    ({
      contextId,
      user: 'alice',
      revision: '2025-11-25',
      async commit(effect: () => CallToolResult, options?: { atomic?: boolean }) {
        if (!claims?.atomically || !options?.atomic) return effect();
        const found = claims.atomically(contextId, 60_000, () => JSON.stringify(effect()));
        if (found.state === 'running') throw new Error('still running');
        return JSON.parse(found.result) as CallToolResult;
      },
    }) as unknown as ToolContext;
  const insertDeployment = () =>
    db
      .prepare(
        "INSERT INTO deployments (service, env, version, deployed_by, created_at) VALUES ('order-service', 'dev', '1', 'alice', 'now')",
      )
      .run();
  /** A tool that acts once its answer's records are queued; `check` runs inside the effect. */
  const actingTool = (sink: (event: AuditEvent) => void, key: string, check: () => void = () => {}) =>
    recordCallEnds(sqliteStore(db))(
      defineTool({
        name: 'act',
        description: 'Acts on an answer.',
        async run(_args, ctx) {
          sink(response(key));
          sink(validation(key));
          return ctx.commit(
            () => {
              insertDeployment();
              check();
              return done('Acted.');
            },
            { atomic: true },
          );
        },
      }),
    );

  for (const sealed of [true, false]) {
    it(`a one-transaction effect commits with its answer’s records: both on disk, or neither (${sealed ? 'claimed' : '2025 push'})`, async () => {
      const sink = sqliteAudit(db);
      const claims = sealed ? auditBeforeClaims(createSqliteClaimStore(db), db) : undefined;
      const before = deployments();
      const tool = actingTool(sink, 'call-2', () => {
        // Inside the effect's transaction: written, but like the effect not committed.
        expect(db.prepare('SELECT context_id FROM audit_responses').pluck().all()).toEqual(['call-2']);
        expect(committed('audit_responses')).toEqual([]);
        expect(deployments()).toBe(before);
      });
      const result = await tool.run({}, contextFor('call-2', claims));
      expect(result.structuredContent).toMatchObject({ status: 'done' });
      expect(committed('audit_responses')).toEqual(['call-2']);
      expect(committed('audit_validations')).toEqual(['call-2']);
      expect(deployments()).toBe(before + 1);
      // Nothing left queued to commit a second time.
      await endOfTurn();
      expect(committed('audit_responses')).toEqual(['call-2']);
    });
  }

  it('an effect that throws rolls back alone: the records of its questions stay', async () => {
    const sink = sqliteAudit(db);
    const claims = auditBeforeClaims(createSqliteClaimStore(db), db);
    const before = deployments();
    const tool = actingTool(sink, 'call-3', () => {
      throw new Error('effect failed');
    });
    await expect(tool.run({}, contextFor('call-3', claims))).rejects.toThrow('effect failed');
    await endOfTurn();
    expect(committed('audit_responses')).toEqual(['call-3']);
    expect(committed('audit_validations')).toEqual(['call-3']);
    expect(deployments()).toBe(before);
    // Nothing claimed: a later attempt may run.
    expect(await claims.read('call-3')).toBeUndefined();
  });

  it('a replay that finds its call already acted commits its answer’s records on their own', async () => {
    const sink = sqliteAudit(db);
    const claims = auditBeforeClaims(createSqliteClaimStore(db), db);
    await actingTool(sink, 'call-4').run({}, contextFor('call-4', claims));
    const before = deployments();
    await actingTool(sink, 'call-4').run({}, contextFor('call-4', claims));
    expect(deployments()).toBe(before);
    expect(committed('audit_responses')).toEqual(['call-4', 'call-4']);
  });

  it('a failing audit write inside the effect’s transaction is undone alone: the effect still commits', async () => {
    const sink = sqliteAudit(db);
    // A row the table refuses (NOT NULL tool), queued before good ones: the savepoint undoes them all.
    sink({ ...validation('call-5'), tool: null as unknown as string });
    const before = deployments();
    await actingTool(sink, 'call-5').run({}, contextFor('call-5', auditBeforeClaims(createSqliteClaimStore(db), db)));
    expect(deployments()).toBe(before + 1);
    expect(committed('audit_responses')).toEqual([]);
  });

  it('one failing audit row inside the effect’s transaction is undone alone too: the effect still commits', async () => {
    const sink = sqliteAudit(db);
    const before = deployments();
    const tool = recordCallEnds(sqliteStore(db))(
      defineTool({
        name: 'act',
        description: 'Acts on an answer.',
        async run(_args, ctx) {
          // The one row queued is refused (NOT NULL tool): no savepoint wraps it, the statement undoes itself.
          sink({ ...validation('call-6'), tool: null as unknown as string });
          return ctx.commit(
            () => {
              insertDeployment();
              return done('Acted.');
            },
            { atomic: true },
          );
        },
      }),
    );
    const result = await tool.run({}, contextFor('call-6', auditBeforeClaims(createSqliteClaimStore(db), db)));
    expect(result.structuredContent).toMatchObject({ status: 'done' });
    expect(deployments()).toBe(before + 1);
    expect(committed('audit_validations')).toEqual([]);
  });

  it('an effect that cannot share the transaction commits the records just before it acts', async () => {
    const sink = sqliteAudit(db);
    let onDiskWhenActing: string[] = [];
    const tool = recordCallEnds(sqliteStore(db))(
      defineTool({
        name: 'act_elsewhere',
        description: 'Acts outside opsdesk.db.',
        async run(_args, ctx) {
          sink(response('call-8'));
          return ctx.commit(async () => {
            onDiskWhenActing = committed('audit_responses');
            return done('Acted elsewhere.');
          });
        },
      }),
    );
    await tool.run({}, contextFor('call-8'));
    expect(onDiskWhenActing).toEqual(['call-8']);
  });

  it('a call that returns without acting commits its answer’s records before its result leaves', async () => {
    const sink = sqliteAudit(db);
    let onDiskWhenRunReturned: string[] = [];
    const tool = recordCallEnds(sqliteStore(db))(
      defineTool({
        name: 'ask_and_stop',
        description: 'Answered, then declined to act.',
        async run() {
          sink(response('call-6'));
          onDiskWhenRunReturned = committed('audit_responses');
          return done('Nothing to do.');
        },
      }),
    );
    const result = await tool.run({}, { contextId: 'call-6', user: 'alice', revision: '2025-11-25' } as ToolContext);
    expect(result.structuredContent).toMatchObject({ status: 'done' });
    expect(onDiskWhenRunReturned).toEqual([]);
    // Without waiting for the end of the turn: committed before the wrapped run resolved.
    expect(committed('audit_responses')).toEqual(['call-6']);
  });

  it('records a refusal as its own row', async () => {
    const tool = recordCallEnds(sqliteStore(db))(
      defineTool({ name: 'refuse', description: 'Refuses.', run: () => rejected('No such service.') }),
    );
    // The kit's identity is the account (its id): the row names it, and the name it has.
    const bob = db.prepare("SELECT id FROM users WHERE username = 'bob'").pluck().get() as number;
    await tool.run({}, { contextId: 'call-7', user: String(bob), revision: '2026-07-28' } as ToolContext);
    expect(other.prepare('SELECT context_id, user_id, username, message FROM audit_refusals').all()).toEqual([
      { context_id: 'call-7', user_id: bob, username: 'bob', message: 'No such service.' },
    ]);
  });

  it('keeps an identity that names no account as written, naming no account', async () => {
    // An embedder's own identity (not opsdesk's `accountIdentity`): never taken for an account,
    // even one whose name it is.
    const tool = recordCallEnds(sqliteStore(db))(
      defineTool({ name: 'refuse', description: 'Refuses.', run: () => rejected('No.') }),
    );
    await tool.run({}, { contextId: 'call-8', user: 'bob', revision: '2026-07-28' } as ToolContext);
    sqliteAudit(db)({ ...response('call-8'), user: 'bob' });
    await flushAudit(db);
    expect(other.prepare("SELECT user_id, username FROM audit_refusals WHERE context_id = 'call-8'").all()).toEqual([
      { user_id: null, username: 'bob' },
    ]);
    expect(other.prepare("SELECT user_id, username FROM audit_responses WHERE context_id = 'call-8'").all()).toEqual([
      { user_id: null, username: 'bob' },
    ]);
  });

  it('passes every other claim operation through unchanged', async () => {
    const claims = auditBeforeClaims(createSqliteClaimStore(db), db);
    await claims.claim('x', 'me', CLAIM);
    expect(await claims.renew('x', 'me', 1000)).toBe(true);
    expect(await claims.complete('x', 'me', 'result')).toBe(true);
    expect(await claims.read('x')).toEqual({ state: 'done', result: 'result' });
    expect(await claims.release('x', 'me')).toBe(false);
    expect(await claims.sweep()).toBe(0);
  });

  it('a store without atomically stays without it', () => {
    const { atomically: _, ...plain } = createSqliteClaimStore(db);
    expect(auditBeforeClaims(plain, db).atomically).toBeUndefined();
  });

  it('a write that fails (the database closed under it) is swallowed, as every audit write was', async () => {
    const sink = sqliteAudit(db);
    sink(response('late'));
    db.close();
    // Would surface as an unhandled error (failing this test) if the queued commit threw.
    await Promise.resolve();
    await new Promise<void>((resolve) => setImmediate(resolve));
    expect(committed('audit_responses')).toEqual([]);
  });
});

describe('closing opsdesk', () => {
  it('commits an answer’s records still waiting for the end of the turn before the database closes', async () => {
    const data = tempDataDir();
    try {
      const opsdesk = await createOpsdesk({ dataDir: data.dir, locale: 'en', identify: () => 'alice' });
      // The sink opsdesk's kit writes through, on the same connection and queue.
      const sink = sqliteAudit(sqliteDb(opsdesk));
      sink(response('closing'));
      await opsdesk.close();
      expect(peek(data.dir, 'SELECT context_id FROM audit_responses')).toEqual([{ context_id: 'closing' }]);
    } finally {
      data.remove();
    }
  });
});

/**
 * A call refused before any question is in the audit as its own record, a refusal: bob may deploy
 * only search-service, so a deploy of order-service is refused without asking (by design: a person
 * is never asked to confirm what they may not do; it was once reported as "a deploy declined by
 * bob left no audit request"). A question that reached bob — declined, cancelled or accepted —
 * leaves its request and response rows like anyone's. Over HTTP with each demo user's token, on
 * both wire revisions.
 */
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
    const c = await httpClient(server.url, await issueToken(server.opsdesk.store, user), { revision });
    clients.push(c);
    return c;
  };
  const trail = async () => {
    const db = new BetterSqlite3(join(data.dir, 'opsdesk.db'), { readonly: true });
    try {
      return await readAudit(db);
    } finally {
      db.close();
    }
  };

  it('bob’s deploy of order-service is refused before any question, and the refusal is recorded', async () => {
    const bob = await connect('bob');
    const before = await trail();
    const r = await callTool(bob.client, 'deploy_service', { service: 'order-service', env: 'dev' });
    expect(r.status).toBe('rejected');
    expect(bob.seen).toHaveLength(0);
    const after = await trail();
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
        const { requests, responses, refusals } = await trail();
        const request = requests.at(-1);
        expect(request).toMatchObject({ tool: 'deploy_service', question: 'env', username: user, delivered: true });
        expect(responses.at(-1)).toMatchObject({ context_id: request?.context_id, username: user, action });
        expect(refusals.filter((f) => f.context_id === request?.context_id)).toHaveLength(0);
      });
    }
  }
});
