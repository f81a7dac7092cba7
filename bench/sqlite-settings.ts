/**
 * The two opsdesk.db fixes of issue 12, each against what it replaced, in one process on a fresh
 * copy of the seeded database: a commit in WAL with `synchronous = FULL` vs `NORMAL` (one
 * deployments row per transaction, as a deploy writes), and `db.prepare()` on every lookup vs the
 * statement prepared once (`findUser`'s query). Paired and alternating; p50 per operation.
 *
 *   node --import tsx bench/sqlite-settings.ts     (BENCH_SQLITE_OPS=2000)
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { p50 } from './support/stats.js';

const OPS = Number(process.env.BENCH_SQLITE_OPS ?? 2000);
const dir = mkdtempSync(join(tmpdir(), 'ek-bench-sqlite-'));
const { createOpsdesk } = await import('@elicitkit/opsdesk');
await (await createOpsdesk({ dataDir: dir, locale: 'en', identify: () => 'alice' })).close(); // seeded
const db = new BetterSqlite3(join(dir, 'opsdesk.db'));
db.pragma('journal_mode = WAL');

const insert = db.prepare(
  "INSERT INTO deployments (service, env, version, ticket, deployed_by, created_at) VALUES ('order-service', 'dev', '1', NULL, 'alice', ?)",
);
function commitWith(mode: 'FULL' | 'NORMAL'): number {
  db.pragma(`synchronous = ${mode}`);
  const started = process.hrtime.bigint();
  insert.run(new Date().toISOString());
  return Number(process.hrtime.bigint() - started) / 1000;
}
const sql = 'SELECT username, role FROM users WHERE username = ?';
const once = db.prepare(sql);
function lookup(prepareEachTime: boolean): number {
  const started = process.hrtime.bigint();
  (prepareEachTime ? db.prepare(sql) : once).get('alice');
  return Number(process.hrtime.bigint() - started) / 1000;
}

const full: number[] = [];
const normal: number[] = [];
const each: number[] = [];
const cached: number[] = [];
for (let i = 0; i < OPS; i++) {
  const first = i % 2 === 0;
  if (first) full.push(commitWith('FULL'));
  normal.push(commitWith('NORMAL'));
  if (!first) full.push(commitWith('FULL'));
  if (first) each.push(lookup(true));
  cached.push(lookup(false));
  if (!first) each.push(lookup(true));
}
console.log(`SQLite on opsdesk.db (${OPS} operations each, p50)`);
console.log(
  `  commit, WAL: synchronous=FULL ${p50(full).toFixed(1)} µs, NORMAL ${p50(normal).toFixed(1)} µs (${(p50(full) / p50(normal)).toFixed(1)}×)`,
);
console.log(
  `  findUser: prepare() each call ${p50(each).toFixed(1)} µs, prepared once ${p50(cached).toFixed(1)} µs (${(p50(each) / p50(cached)).toFixed(1)}×)`,
);
db.close();
rmSync(dir, { recursive: true, force: true });
