import { join } from 'node:path';
import type { AuditEvent } from '@elicitkit/server';
import { createSqliteClaimStore } from '@elicitkit/server/sqlite';
import BetterSqlite3 from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { tempDataDir } from '../test/harness.js';
import { auditBeforeClaims, readAudit, sqliteAudit } from './audit.js';
import { type Database, openDatabase } from './db/open.js';

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

const CLAIM = { leaseMs: 60_000, ttlMs: 60_000 };

describe('opsdesk audit rows, committed per step', () => {
  let data: ReturnType<typeof tempDataDir>;
  let db: Database;
  // Another connection, as `elicitkit audit` or a second process reads: it sees commits only.
  let other: BetterSqlite3.Database;
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

  it('commits a step’s rows together before anything the step leads to runs', async () => {
    const sink = sqliteAudit(db);
    sink(response('a'));
    sink(validation('a'));
    sink(response('b'));
    // Queued, not yet on disk: one transaction for the three of them, not three commits.
    expect(committed('audit_responses')).toEqual([]);
    // Whatever continues after this step (the tool's next line, the result going out) runs after
    // the queued commit.
    await Promise.resolve();
    expect(committed('audit_responses')).toEqual(['a', 'b']);
    expect(committed('audit_validations')).toEqual(['a']);
  });

  it('readAudit on the same connection sees rows still queued', () => {
    const sink = sqliteAudit(db);
    sink(response('a'));
    expect(readAudit(db).responses.map((r) => r.context_id)).toEqual(['a']);
  });

  it('a claim commits the queued rows first, so an effect is never on disk without them', async () => {
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

    sink(response('call-2'));
    const ran = claims.atomically?.('call-2', 60_000, () => {
      db.prepare(
        "INSERT INTO deployments (service, env, version, deployed_by, created_at) VALUES ('order-service', 'dev', '1', 'alice', 'now')",
      ).run();
      // Inside the effect's transaction, the audit row is already committed.
      expect(committed('audit_responses')).toEqual(['call-1', 'call-2']);
      return 'ok';
    });
    expect(ran).toEqual({ state: 'ran', result: 'ok' });
  });

  it('an effect that throws rolls back alone: the rows that led to it stay', async () => {
    const sink = sqliteAudit(db);
    const claims = auditBeforeClaims(createSqliteClaimStore(db), db);
    sink(validation('call-3'));
    expect(() =>
      claims.atomically?.('call-3', 60_000, () => {
        throw new Error('effect failed');
      }),
    ).toThrow('effect failed');
    expect(committed('audit_validations')).toEqual(['call-3']);
    // Nothing claimed: a later attempt may run.
    expect(await claims.read('call-3')).toBeUndefined();
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
