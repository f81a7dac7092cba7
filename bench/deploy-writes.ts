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
 *
 *   node --import tsx bench/deploy-writes.ts     (BENCH_DEPLOYS=5000)
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AuditEvent } from '@elicitkit/server';
import { flushAudit, sqliteAudit } from '../apps/opsdesk/src/audit.js';
import { openDatabase } from '../apps/opsdesk/src/db/open.js';
import { accessTo } from '../apps/opsdesk/src/permissions.js';
import { p50 } from './support/stats.js';

const DEPLOYS = Number(process.env.BENCH_DEPLOYS ?? 5000);
const dir = mkdtempSync(join(tmpdir(), 'ek-bench-writes-'));
const db = openDatabase(dir);
const sink = sqliteAudit(db);
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
const grants = db.prepare('SELECT project FROM permissions WHERE username = ?').pluck();
const services = db.prepare('SELECT name FROM services ORDER BY name').pluck();
const latest = db.prepare('SELECT latest_version FROM services WHERE name = ?').pluck();

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
  'caller lookup after (1)': () => accessTo(db, 'alice', 'deploy', 'order-service'),
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
rmSync(dir, { recursive: true, force: true });
