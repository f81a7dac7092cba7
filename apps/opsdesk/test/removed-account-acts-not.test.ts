/**
 * "A token revoked, a user removed or a grant taken away applies from the very next request or
 * call — and to a call whose question is open when it happens, on every revision"
 * (docs/opsdesk.md, Identity). deploy_service and weekly_report read the caller again as they act;
 * sync_file and execute_sql looked their caller up once, before the question, and their effect
 * never asked again. Over stdio (the identity is the account, held for the process's life; no
 * token to revoke), an account removed by the operator while its question stood open still
 * overwrote the workspace, or ran the confirmed statement, when the answer arrived.
 *
 * `elicitkit serve --stdio --user carol` (a real child process, real SDK client); the account is
 * removed from another connection, as an operator does.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callTool } from '../../../test/support/mcp.js';
import { type Conn, stdioClient, tempDataDir } from './harness.js';

let data: ReturnType<typeof tempDataDir>;
let c: Conn;
const operator = (sql: string) => {
  const db = new BetterSqlite3(join(data.dir, 'opsdesk.db'));
  try {
    db.pragma('foreign_keys = ON');
    db.prepare(sql).run();
  } finally {
    db.close();
  }
};

beforeAll(async () => {
  data = tempDataDir();
  // A first start seeds the directory; then the operator adds carol, a member.
  const first = await stdioClient(data.dir, { revision: '2025-11-25', user: 'alice' });
  await first.close();
  operator("INSERT INTO users (username, role, created_at) VALUES ('carol', 'member', '2026-12-01T00:00:00Z')");
  c = await stdioClient(data.dir, { revision: '2025-11-25', user: 'carol' });
}, 60_000);
afterAll(async () => {
  await c.close();
  data.remove();
});

const side = (s: 'local' | 'remote') => join(data.dir, 'workspace', s, 'notes', 'plan.md');

describe('sync_file: an account removed while its question is open does not act', () => {
  it('keep_local answered after the removal overwrites nothing', async () => {
    writeFileSync(side('local'), 'local edit by carol\n');
    writeFileSync(side('remote'), 'remote edit by a colleague\n');
    c.script.push(async () => {
      // While carol decides, the operator removes her account.
      operator("DELETE FROM users WHERE username = 'carol'");
      return { action: 'accept', content: { resolution: 'keep_local' } };
    });
    const r = await callTool(c.client, 'sync_file', { path: 'notes/plan.md' });
    expect(
      readFileSync(side('remote'), 'utf8'),
      `a removed account's answer was acted on (status ${r.status}: ${r.text})`,
    ).toBe('remote edit by a colleague\n');
    expect(r.status).toBe('rejected');
  }, 60_000);

  it('execute_sql: a DELETE confirmed after the removal deletes nothing', async () => {
    operator("INSERT INTO users (username, role, created_at) VALUES ('dave', 'member', '2026-12-01T00:00:00Z')");
    const d = await stdioClient(data.dir, { revision: '2025-11-25', user: 'dave' });
    const shop = () => {
      const db = new BetterSqlite3(join(data.dir, 'shop.db'), { readonly: true });
      try {
        return (db.prepare('SELECT count(*) AS n FROM order_items').get() as { n: number }).n;
      } finally {
        db.close();
      }
    };
    const before = shop();
    d.script.push(async () => {
      operator("DELETE FROM users WHERE username = 'dave'");
      return { action: 'accept', content: { understood: true, typedTableName: 'order_items' } };
    });
    try {
      const r = await callTool(d.client, 'execute_sql', { sql: 'DELETE FROM order_items' });
      expect(shop(), `a removed account's confirmation ran the statement (status ${r.status}: ${r.text})`).toBe(before);
      expect(r.status).toBe('rejected');
      expect(r.text).toContain('does not know who is calling');
    } finally {
      await d.close();
    }
  }, 60_000);

  it('for comparison: a new call by the removed account is refused', async () => {
    const r = await callTool(c.client, 'sync_file', { path: 'notes/plan.md' });
    expect(r.status).toBe('rejected');
  }, 60_000);
});
