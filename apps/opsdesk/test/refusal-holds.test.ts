/**
 * What the person refused stays refused, whatever changed while they were asked. On 2026-07-28
 * each round runs the tool again from the top: a statement that now measures under the threshold,
 * or a conflict the other side undid, takes a way to the effect that asks nothing — the person's
 * cancel or decline must still end the call, with nothing done. 2025 runs the tool once.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Revision } from '@elicitkit/form';
import BetterSqlite3 from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callTool } from '../../../test/support/mcp.js';
import { type HttpServing, serveHttp } from '../src/serve-http.js';
import { count, httpClient, peekShop, tempDataDir, tokenOf } from './harness.js';

let data: ReturnType<typeof tempDataDir>;
let server: HttpServing;
beforeAll(async () => {
  data = tempDataDir();
  server = await serveHttp({ dataDir: data.dir, locale: 'en', port: 0 });
});
afterAll(async () => {
  await server.close();
  data.remove();
});

/** Another user of the shared shop runs a statement while the question is open. */
function someoneElseRuns(sql: string): void {
  const db = new BetterSqlite3(join(data.dir, 'shop.db'));
  try {
    db.pragma('busy_timeout = 5000');
    db.prepare(sql).run();
  } finally {
    db.close();
  }
}

const CASES: [Revision, 'cancel' | 'decline'][] = [
  ['2025-11-25', 'cancel'],
  ['2025-11-25', 'decline'],
  ['2026-07-28', 'cancel'],
  ['2026-07-28', 'decline'],
];

describe.each(CASES)('execute_sql (%s), the person answers %s', (revision, action) => {
  it('the refused DELETE does not run, though it now measures under the threshold', async () => {
    const c = await httpClient(server.url, tokenOf(server, 'alice'), { revision });
    try {
      const [{ top }] = peekShop<{ top: number }>(data.dir, 'SELECT max(id) AS top FROM order_items') as [
        { top: number },
      ];
      // 103 rows: over the 100-row threshold, so the person is asked.
      const statement = `DELETE FROM order_items WHERE id > ${top - 103}`;
      let asked = '';
      c.script.push((params) => {
        asked = String(params.message);
        // While the question is open, someone else deletes 10 of those rows: 93 would go now.
        someoneElseRuns(`DELETE FROM order_items WHERE id > ${top - 10}`);
        return { action };
      });
      const before = count(data.dir, 'order_items');
      const r = await callTool(c.client, 'execute_sql', { sql: statement });
      expect(asked).toContain('`order_items`: 103 rows deleted');
      // Only the other person's 10 rows are gone; this call ends as the person said.
      expect({ status: r.status, left: count(data.dir, 'order_items') }).toEqual({
        status: action === 'cancel' ? 'cancelled' : 'declined',
        left: before - 10,
      });
    } finally {
      await c.close();
    }
  });
});

describe.each(['2025-11-25', '2026-07-28'] as Revision[])(
  'sync_file (%s), the person cancels a conflict',
  (revision) => {
    it('the call ends cancelled and copies nothing, though the other side undid its edit meanwhile', async () => {
      const local = join(data.dir, 'workspace', 'local', 'notes', 'plan.md');
      const remote = join(data.dir, 'workspace', 'remote', 'notes', 'plan.md');
      const c = await httpClient(server.url, tokenOf(server, 'alice'), { revision });
      try {
        await callTool(c.client, 'sync_file', { path: 'notes/plan.md' }); // in sync: records the base
        const base = readFileSync(remote, 'utf8');
        writeFileSync(local, `${base}\nlocal edit ${revision}\n`);
        writeFileSync(remote, `${base}\nremote edit ${revision}\n`);
        c.script.push(() => {
          // While the question is open, the remote side's author reverts their edit.
          writeFileSync(remote, base);
          return { action: 'cancel' };
        });
        const r = await callTool(c.client, 'sync_file', { path: 'notes/plan.md' });
        expect({ status: r.status, remote: readFileSync(remote, 'utf8') }).toEqual({
          status: 'cancelled',
          remote: base,
        });
      } finally {
        await c.close();
      }
    });
  },
);
