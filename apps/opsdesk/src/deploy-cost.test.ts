/**
 * What one deploy_service round trip asks of opsdesk.db, counted (not timed) over real HTTP on
 * both revisions: how many commits, and which statements. The bench (bench/http-sequential.ts)
 * measures the time; these pin the work, so a change that adds a commit or a query per call fails.
 */
import { join } from 'node:path';
import type { Revision } from '@elicitkit/form';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callTool } from '../../../test/support/mcp.js';
import { type Conn, httpClient, httpOpsdeskForSuite, peek, sqliteDb } from '../test/harness.js';
import { recordStatements, walCommits } from '../test/sqlite-counters.js';

const tokenOf = (user: string) => served.server.newTokens.find((t) => t.username === user)?.token ?? '';
const served = httpOpsdeskForSuite();

describe.each(['2025-11-25', '2026-07-28'] as Revision[])('one deploy over HTTP (%s)', (revision) => {
  let conn: Conn;
  const dbFile = () => join(served.dataDir, 'opsdesk.db');
  const deploy = async () => {
    conn.script.push({ action: 'accept', content: { env: 'dev' } });
    return callTool(conn.client, 'deploy_service', { service: 'order-service' });
  };
  /** Runs `work` with automatic checkpoints off and the WAL emptied first: what it committed, and ran. */
  const measured = async (work: () => Promise<unknown>) => {
    const db = sqliteDb(served.server.opsdesk);
    db.pragma('wal_autocheckpoint = 0');
    db.pragma('wal_checkpoint(TRUNCATE)');
    const statements = recordStatements(db);
    try {
      await work();
      // Answer records still queued would commit at the end of this turn: count them too.
      await new Promise<void>((resolve) => setImmediate(resolve));
    } finally {
      statements.stop();
      db.pragma('wal_autocheckpoint = 1000');
    }
    return { commits: walCommits(dbFile()), sql: statements.sql };
  };

  beforeAll(async () => {
    conn = await httpClient(served.server.url, tokenOf('alice'), { revision });
    // The first call sweeps expired claims (once a minute): not part of a deploy's own cost.
    expect((await deploy()).status).toBe('done');
  });
  afterAll(() => conn.close());

  it('commits twice: the question’s record, then the answer’s records with the claim, the row and the result', async () => {
    let status: string | undefined;
    const { commits, sql } = await measured(async () => {
      status = (await deploy()).status;
    });
    expect(status).toBe('done');
    expect(commits).toBe(2);
    // The answer's records went in with the effect: one transaction holds them all.
    const row = sql.findIndex((s) => s.startsWith('INSERT INTO deployments'));
    expect(row).toBeGreaterThan(-1);
    const begin = sql.slice(0, row).findLastIndex((s) => s.startsWith('BEGIN'));
    const end = row + sql.slice(row).indexOf('COMMIT');
    const inOne = sql.slice(begin, end);
    expect(sql.slice(begin + 1, end).some((s) => s.startsWith('BEGIN') || s === 'COMMIT')).toBe(false);
    expect(inOne.some((s) => s.includes('INSERT INTO audit_responses'))).toBe(true);
    expect(inOne.some((s) => s.includes('INSERT INTO audit_validations'))).toBe(true);
    // On 2026-07-28 the round was sealed: its claim and recorded result are in it too.
    if (revision === '2026-07-28') expect(inOne.some((s) => s.includes('INTO elicitkit_claims'))).toBe(true);
  });

  it('looks up the caller and their permission in one statement, then only asks whether they changed', async () => {
    // Forget what earlier calls left remembered (db/remembered.ts): any write to these tables does.
    sqliteDb(served.server.opsdesk).prepare("UPDATE users SET role = role WHERE username = 'alice'").run();
    const { sql } = await measured(() => deploy());
    const permission = sql.filter((s) => s.includes('FROM permissions'));
    // Read by the first round; a 2026-07-28 second round finds it remembered.
    expect(permission).toHaveLength(1);
    expect(permission[0]).toContain('LEFT JOIN services');
    // The rest that reads users is the bearer token, read by the first request only (the audit's
    // records name the account's name at the time by its id, inside their own INSERTs).
    const others = sql.filter(
      (s) => s.includes('users') && !s.includes('FROM permissions') && !s.startsWith('INSERT INTO audit_'),
    );
    expect(others).toHaveLength(1);
    expect(others[0]).toContain('FROM api_tokens');
    expect(sql.filter((s) => s.includes('FROM services') && !s.includes('FROM permissions'))).toEqual([]);

    // Nothing changed since: the next deploy reads neither, only whether another connection
    // committed (once per request and per round, before anything remembered is used, and once more
    // in the transaction that writes the row, where the grant is checked again).
    const next = (await measured(() => deploy())).sql;
    expect(
      next.filter((s) => /users|permissions|api_tokens|FROM services/.test(s) && !s.startsWith('INSERT INTO audit_')),
    ).toEqual([]);
    const requests = 2; // 2025-11-25: the call and its answer; 2026-07-28: one per round
    const rounds = revision === '2026-07-28' ? 2 : 1;
    expect(next.filter((s) => s === 'PRAGMA data_version')).toHaveLength(requests + rounds + 1);
  });

  it('a revoked grant applies at the next call: nothing about the caller is served past a change', async () => {
    const db = sqliteDb(served.server.opsdesk);
    const refusals = () => peek(served.dataDir, "SELECT message FROM audit_refusals WHERE username = 'alice'").length;
    const before = refusals();
    db.prepare("DELETE FROM permissions WHERE user_id = (SELECT id FROM users WHERE username = 'alice')").run();
    db.prepare(
      "INSERT INTO permissions (user_id, project) VALUES ((SELECT id FROM users WHERE username = 'alice'), 'search-service')",
    ).run();
    try {
      const refused = await callTool(conn.client, 'deploy_service', { service: 'order-service' });
      expect(refused.status).toBe('rejected');
      expect(refused.text).toContain('search-service');
    } finally {
      db.prepare("DELETE FROM permissions WHERE user_id = (SELECT id FROM users WHERE username = 'alice')").run();
      db.prepare(
        "INSERT INTO permissions (user_id, project) VALUES ((SELECT id FROM users WHERE username = 'alice'), '*')",
      ).run();
    }
    expect(refusals()).toBe(before + 1);
    // Granted again: the very next call deploys.
    expect((await deploy()).status).toBe('done');
  });
});
