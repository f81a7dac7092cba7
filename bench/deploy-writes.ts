/**
 * The SQLite part of one deploy_service call (one question asked and answered), alone, on a
 * fresh copy of the seeded opsdesk.db, through opsdesk's own audit writer: before issue 12i (the
 * question's record; the answer's records; the deployment row — three commits) against after (the
 * question's record; the answer's records and the row in one transaction — two), beside the raw
 * SDK server's one insert (bench/support/raw-http-server.mjs). And the caller's lookups per call:
 * before (the user, then their role, grants and the service list, then the latest version: five
 * statements) against after (`accessTo`: one). Interleaved, order rotating; wall p50 and mean, and
 * mean CPU per deploy. Automatic checkpoints as opsdesk runs them (every 1,000 WAL pages): their
 * fsyncs land on whichever deploy crosses the line, so they are part of the cost.
 * Issue 12 part L: the same two commits on a second copy carrying schema v4's `audit_*_context`
 * indexes, with the question's record in a transaction of its own as before (BEGIN, INSERT,
 * COMMIT), against v5 (no such indexes; one statement); and the caller's lookup remembered
 * (`accessTo` now: one `PRAGMA data_version` while nothing changed) against its statement.
 *
 *   node --import tsx bench/deploy-writes.ts     (BENCH_DEPLOYS=5000)
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AuditEvent } from '@elicitkit/server';
import { flushAudit, sqliteAudit } from '../apps/opsdesk/src/audit.js';
import { openDatabase } from '../apps/opsdesk/src/db/open.js';
import { sqliteStore } from '../apps/opsdesk/src/db/sqlite-store.js';
import { findUser as findAccountNamed } from '../apps/opsdesk/src/identity.js';
import { accessTo } from '../apps/opsdesk/src/permissions.js';
import { p50 } from './support/stats.js';

const DEPLOYS = Number(process.env.BENCH_DEPLOYS ?? 5000);
const dir = mkdtempSync(join(tmpdir(), 'ek-bench-writes-'));
const db = openDatabase(dir);
const store = sqliteStore(db);
// accessTo takes the account (its id), as opsdesk's tools do.
const aliceAccount = (store.runNow(findAccountNamed('alice')) as { id: number }).id;
const sink = sqliteAudit(db);
// Schema v4 on its own copy: the three indexes by call id that v5 dropped.
const v4Dir = mkdtempSync(join(tmpdir(), 'ek-bench-writes-v4-'));
const v4 = openDatabase(v4Dir);
v4.exec(`CREATE INDEX audit_requests_context ON audit_requests(context_id);
CREATE INDEX audit_responses_context ON audit_responses(context_id);
CREATE INDEX audit_validations_context ON audit_validations(context_id);`);
const v4Sink = sqliteAudit(v4);
const v4Insert = v4.prepare(
  'INSERT INTO deployments (service, env, version, ticket, deployed_by, created_at) VALUES (?, ?, ?, NULL, ?, ?)',
);
// Before 12L a single queued row was written in a transaction of its own, as this one is.
const v4Question = v4.transaction(() => {
  v4Sink(asked());
  flushAudit(v4);
});
const v4Effect = v4.transaction(() => {
  flushAudit(v4);
  v4Insert.run('order-service', 'dev', '2.4.1', 'alice', new Date().toISOString());
});
const insert = db.prepare(
  'INSERT INTO deployments (service, env, version, ticket, deployed_by, created_at) VALUES (?, ?, ?, NULL, ?, ?)',
);
const row = () => insert.run('order-service', 'dev', '2.4.1', 'alice', new Date().toISOString());
const call = { contextId: 'bench', tool: 'deploy_service', key: 'env', user: 'alice', at: 0 };
const asked = (): AuditEvent => ({
  ...call,
  type: 'request',
  mode: 'form',
  revision: '2025-11-25',
  message: 'Which environment should order-service (2.4.1) be deployed to?',
  fields: ['env'],
  delivered: true,
});
const answered = (): AuditEvent[] => [
  { ...call, type: 'response', action: 'accept', content: { env: 'dev' }, elapsedMs: 3 },
  { ...call, type: 'validation', ok: true, issues: [] },
];
const question = () => {
  sink(asked());
  flushAudit(db);
};
const effectWithRows = db.transaction(() => {
  flushAudit(db);
  row();
});

// What deploy_service ran before: findCaller, then permissionsFor's three, then the latest version.
const findUser = db.prepare('SELECT username, role FROM users WHERE username = ?');
const role = db.prepare('SELECT role FROM users WHERE username = ?');
const grants = db
  .prepare('SELECT p.project FROM permissions p JOIN users u ON u.id = p.user_id WHERE u.username = ?')
  .pluck();
const services = db.prepare('SELECT name FROM services ORDER BY name').pluck();
const latest = db.prepare('SELECT latest_version FROM services WHERE name = ?').pluck();
// accessTo's statement, as it ran on every round before 12L remembered its answer.
const access = db.prepare(
  `SELECT u.username, u.role, s.latest_version FROM users u LEFT JOIN services s ON s.name = ? AND (u.role = 'owner' OR EXISTS (SELECT 1 FROM permissions p WHERE p.user_id = u.id AND p.project IN ('*', s.name))) WHERE u.username = ?`,
);

const ways = {
  'writes before (3 commits)': () => {
    question();
    for (const e of answered()) sink(e);
    flushAudit(db);
    row();
  },
  'writes after (2 commits)': () => {
    question();
    for (const e of answered()) sink(e);
    effectWithRows();
  },
  'raw server (1 commit)': row,
  'caller lookups before (5)': () => {
    findUser.get('alice');
    role.get('alice');
    grants.all('alice');
    services.all();
    latest.get('order-service');
  },
  'caller lookup after (1)': () => access.get('order-service', 'alice'),
  'v4 indexes, question in BEGIN': () => {
    v4Question();
    for (const e of answered()) v4Sink(e);
    v4Effect.immediate();
  },
  'v5, question one statement': () => {
    question();
    for (const e of answered()) sink(e);
    effectWithRows.immediate();
  },
  'caller lookup remembered': () => store.runNow(accessTo(aliceAccount, 'deploy', 'order-service')),
} satisfies Record<string, () => unknown>;

const names = Object.keys(ways) as (keyof typeof ways)[];
const wall = Object.fromEntries(names.map((n) => [n, [] as number[]]));
const cpu = Object.fromEntries(names.map((n) => [n, 0]));
for (let i = 0; i < DEPLOYS; i++) {
  for (let k = 0; k < names.length; k++) {
    const name = names[(i + k) % names.length] as keyof typeof ways;
    const c0 = process.cpuUsage();
    const t0 = process.hrtime.bigint();
    ways[name]();
    wall[name]?.push(Number(process.hrtime.bigint() - t0) / 1000);
    const c = process.cpuUsage(c0);
    cpu[name] = (cpu[name] ?? 0) + c.user + c.system;
  }
}
console.log(`SQLite per deploy on opsdesk.db (${DEPLOYS} each, interleaved)`);
for (const n of names) {
  const mean = (cpu[n] ?? 0) / DEPLOYS;
  const times = wall[n] ?? [];
  const meanWall = times.reduce((a, b) => a + b, 0) / times.length;
  console.log(
    `  ${n.padEnd(28)} wall p50 ${p50(times).toFixed(1)} µs, mean ${meanWall.toFixed(1)} µs (checkpoints included); CPU ${mean.toFixed(1)} µs (mean)`,
  );
}
db.close();
v4.close();
rmSync(dir, { recursive: true, force: true });
rmSync(v4Dir, { recursive: true, force: true });
