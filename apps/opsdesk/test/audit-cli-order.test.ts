/**
 * `elicitkit audit` printed each call's records sorted as text, each line starting with its time
 * cut to the second: records made within one second — every question and answer of a quick call
 * — came out ordered by the word after the time, all `request`s, then all `response`s, so a
 * deploy's production question read as asked before the person picked an environment at all; and
 * calls were grouped requests first, so a refusal made before a later call was listed after it.
 * Records are now ordered by their time to the millisecond, then a question's own order, then as
 * stored; calls by when they began.
 *
 * Real SDK client over loopback HTTP as alice; the CLI run as a process on the data directory.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { callTool } from '../../../test/support/mcp.js';
import { CLI, httpClient, httpOpsdeskForSuite, nodeArgs, tokenOf } from './harness.js';

const served = httpOpsdeskForSuite();

describe('elicitkit audit shows a call’s records in the order they happened', () => {
  it('the production question follows the answer that led to it', async () => {
    const c = await httpClient(served.server.url, tokenOf(served.server, 'alice'), { revision: '2025-11-25' });
    try {
      c.script.push({ action: 'accept', content: { env: 'prod' } });
      c.script.push({ action: 'decline' });
      const r = await callTool(c.client, 'deploy_service', { service: 'order-service' });
      expect(r.status).toBe('declined');
    } finally {
      await c.close();
    }
    const cli = spawnSync(process.execPath, nodeArgs(CLI, 'audit', '--data', served.dataDir), {
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(cli.status).toBe(0);
    const lines = cli.stdout.split('\n');
    const at = (pattern: RegExp) => lines.findIndex((l) => pattern.test(l));
    const envAnswered = at(/response\s+deploy_service\/env accept/);
    const prodAsked = at(/request\s+deploy_service\/prod /);
    expect(envAnswered).toBeGreaterThan(-1);
    expect(prodAsked).toBeGreaterThan(-1);
    expect(prodAsked, `the trail as shown:\n${cli.stdout}`).toBeGreaterThan(envAnswered);
  }, 90_000);

  it('calls are listed in the order they were made: a refusal made first is not listed after a later call', async () => {
    const bob = await httpClient(served.server.url, tokenOf(served.server, 'bob'), { revision: '2025-11-25' });
    try {
      // bob is refused first (no question: only a refusal record) …
      expect((await callTool(bob.client, 'deploy_service', { service: 'order-service', env: 'dev' })).status).toBe(
        'rejected',
      );
    } finally {
      await bob.close();
    }
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    const alice = await httpClient(served.server.url, tokenOf(served.server, 'alice'), { revision: '2025-11-25' });
    try {
      // … then, a second later, alice's deploy asks and is declined.
      alice.script.push({ action: 'decline' });
      expect((await callTool(alice.client, 'deploy_service', { service: 'payment-service' })).status).toBe('declined');
    } finally {
      await alice.close();
    }
    const cli = spawnSync(process.execPath, nodeArgs(CLI, 'audit', '--data', served.dataDir, '--limit', '2'), {
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(cli.status).toBe(0);
    const heads = cli.stdout.split('\n').filter((l) => l.startsWith('call '));
    expect(heads, `the trail as shown:\n${cli.stdout}`).toHaveLength(2);
    expect(heads[0], `the trail as shown:\n${cli.stdout}`).toContain('by bob');
  }, 90_000);

  it('records of one millisecond: the answer, then the question it led to', () => {
    // Written by hand, every record of the call in the same millisecond: each table numbers its
    // own rows, so only the questions' own order can tell.
    const db = new BetterSqlite3(join(served.dataDir, 'opsdesk.db'));
    const at = Date.UTC(2030, 0, 1);
    try {
      const ask = db.prepare(
        "INSERT INTO audit_requests (context_id, tool, question, mode, revision, message, delivered, at) VALUES ('same-ms', 'deploy_service', ?, 'form', '2025-11-25', ?, 1, ?)",
      );
      const answer = db.prepare(
        "INSERT INTO audit_responses (context_id, tool, question, action, elapsed_ms, at) VALUES ('same-ms', 'deploy_service', ?, ?, 1, ?)",
      );
      ask.run('whereto', 'Which environment?', at);
      answer.run('whereto', 'accept', at);
      ask.run('approve', 'Deploy to production?', at);
      answer.run('approve', 'decline', at);
    } finally {
      db.close();
    }
    const cli = spawnSync(process.execPath, nodeArgs(CLI, 'audit', '--data', served.dataDir, '--limit', '1'), {
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(cli.status).toBe(0);
    const shown = cli.stdout
      .split('\n')
      .filter((l) => /deploy_service\//.test(l))
      .map((l) => l.replace(/^.*?(request|response)\s+deploy_service\/(\w+).*$/, '$1 $2'));
    expect(shown).toEqual(['request whereto', 'response whereto', 'request approve', 'response approve']);
  }, 90_000);
});
