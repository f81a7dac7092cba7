import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { callTool } from '../../../../test/support/mcp.js';
import { type Conn, stdioClient, tempDataDir } from '../../test/harness.js';

let data: ReturnType<typeof tempDataDir> | undefined;
let conn: Conn | undefined;
afterEach(async () => {
  await conn?.close();
  data?.remove();
});

/** `elicitkit serve --stdio` as alice on a fresh data directory, the server in time zone `tz`, with these deployments of search-service. */
async function serverIn(tz: string, deployedAt: string[]): Promise<Conn> {
  data = tempDataDir();
  conn = await stdioClient(data.dir, { revision: '2025-11-25', user: 'alice', env: { TZ: tz } });
  const db = new BetterSqlite3(join(data.dir, 'opsdesk.db'));
  const insert = db.prepare(
    "INSERT INTO deployments (service, env, version, ticket, deployed_by, created_at) VALUES ('search-service', 'dev', ?, NULL, 'bob', ?)",
  );
  for (const [i, at] of deployedAt.entries()) insert.run(`v1.0.${i}`, at);
  db.close();
  return conn;
}

const report = async (c: Conn, from: string, to: string) => {
  const r = await callTool(c.client, 'weekly_report', { project: 'search-service', from, to });
  expect(r.status).toBe('done');
  return { lines: r.text.split('\n').filter((l) => l.startsWith('- ')), total: r.text.split('\n')[0] };
};

/**
 * A report's days are the days of the server's time zone, as sync_file's times are: they were UTC
 * days, so on a server in Shanghai a deployment at 07:00 on 1 December (23:00 UTC the day before)
 * was missing from December's report, counted in November's, and listed at "23:00".
 */
describe("weekly_report: days and times in the server's time zone", () => {
  it('UTC+8: a deployment early on 1 December is December’s, at its local time', async () => {
    const c = await serverIn('Asia/Shanghai', ['2026-11-30T23:00:00.000Z']);
    const december = await report(c, '2026-12-01', '2026-12-07');
    expect(december.total).toBe('Weekly report for search-service, 2026-12-01 to 2026-12-07: 1 deployment.');
    expect(december.lines).toEqual(['- 2026-12-01 07:00 v1.0.0 → dev by bob']);
    const november = await report(c, '2026-11-24', '2026-11-30');
    expect(november.lines).toEqual([]);
  });

  it('New York, the day summer time begins: the evening before is the day before', async () => {
    // 23:30 EST on 7 March; 01:30 EST and 03:30 EDT on 8 March (02:00 does not exist that day).
    const c = await serverIn('America/New_York', [
      '2026-03-08T04:30:00.000Z',
      '2026-03-08T06:30:00.000Z',
      '2026-03-08T07:30:00.000Z',
    ]);
    expect((await report(c, '2026-03-07', '2026-03-07')).lines).toEqual(['- 2026-03-07 23:30 v1.0.0 → dev by bob']);
    expect((await report(c, '2026-03-08', '2026-03-08')).lines).toEqual([
      '- 2026-03-08 01:30 v1.0.1 → dev by bob',
      '- 2026-03-08 03:30 v1.0.2 → dev by bob',
    ]);
  });
});
