/**
 * What does exactly-once cost on PostgreSQL? One deployment row written three ways, paired and
 * interleaved, a yield after every call:
 *   - plain: the transaction a tool author writes without Elicitkit — BEGIN, the INSERT, COMMIT;
 *   - ours: `createPostgresClaimStore(pool).atomicallyAsync` (what `ctx.commit(effect, { atomic:
 *     true })` runs) with the same INSERT as its effect: the claim, the row and the recorded
 *     result in one transaction;
 *   - SQLite (information): `createSqliteClaimStore(db).atomically` with the same INSERT on a
 *     better-sqlite3 file in WAL mode, as opsdesk keeps its claims.
 * PostgreSQL is Debian's (15), started for the run on a free loopback port with its defaults
 * (fsync and synchronous_commit on: a commit waits for the disk), one pool per side.
 *
 *   node --import tsx bench/postgres-commit.ts
 *   BENCH_PG_PAIRS=400 (default), BENCH_PG_WARMUP=100, BENCH_PG_DURABLE=0 (fsync off: statements, not the disk)
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createPostgresClaimStore } from '@elicitkit/server/postgres';
import { createSqliteClaimStore } from '@elicitkit/server/sqlite';
import BetterSqlite3 from 'better-sqlite3';
import pg from 'pg';
import { postgresAvailable, startPostgres } from '../test/support/postgres-server.js';
import { iqr, p50, report, yieldToLoop } from './support/stats.js';

const PAIRS = Number(process.env.BENCH_PG_PAIRS ?? 400);
const WARMUP = Number(process.env.BENCH_PG_WARMUP ?? 100);
const GOAL = 1.5;
const INSERT = 'INSERT INTO deployments (service, env) VALUES ($1, $2) RETURNING id';
const result = (id: unknown) => JSON.stringify({ content: [{ type: 'text', text: `Deployed (#${id}).` }] });

async function timed(fn: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await fn();
  const ms = performance.now() - started;
  await yieldToLoop();
  return ms;
}

export async function postgresCommit(): Promise<void> {
  console.log(`\nclaim + effect on PostgreSQL against a plain INSERT transaction (${PAIRS} pairs after ${WARMUP})`);
  if (!postgresAvailable()) {
    report({
      goal: `claim + effect on Postgres ≤ ${GOAL}× a plain INSERT transaction`,
      figure: 'PostgreSQL not installed (apt-get install postgresql)',
      pass: undefined,
    });
    return;
  }
  const server = await startPostgres({ durable: process.env.BENCH_PG_DURABLE !== '0' });
  const plainPool = new pg.Pool({ connectionString: server.url, max: 2 });
  const oursPool = new pg.Pool({ connectionString: server.url, max: 2 });
  const dir = mkdtempSync(join(tmpdir(), 'bench-pg-sqlite-'));
  const db = new BetterSqlite3(join(dir, 'claims.db'));
  try {
    await plainPool.query(
      'CREATE TABLE deployments (id SERIAL PRIMARY KEY, service TEXT NOT NULL, env TEXT NOT NULL, at TIMESTAMPTZ DEFAULT now())',
    );
    const store = createPostgresClaimStore(oursPool);
    db.pragma('journal_mode = WAL');
    db.exec('CREATE TABLE deployments (id INTEGER PRIMARY KEY, service TEXT NOT NULL, env TEXT NOT NULL)');
    const sqliteStore = createSqliteClaimStore(db);
    const sqliteInsert = db.prepare('INSERT INTO deployments (service, env) VALUES (?, ?)');

    const plain = async () => {
      const client = await plainPool.connect();
      try {
        await client.query('BEGIN');
        const { rows } = await client.query(INSERT, ['orders', 'prod']);
        await client.query('COMMIT');
        return result(rows[0].id);
      } finally {
        client.release();
      }
    };
    const ours = async () => {
      const done = await store.atomicallyAsync?.(
        crypto.randomUUID(),
        3_600_000,
        async (tx) => result((await (tx as pg.PoolClient).query(INSERT, ['orders', 'prod'])).rows[0].id),
        { waitMs: 60_000 },
      );
      if (done?.state !== 'ran') throw new Error(`expected a run, got ${JSON.stringify(done)}`);
    };
    const sqlite = async () => {
      sqliteStore.atomically?.(crypto.randomUUID(), 3_600_000, () =>
        result(sqliteInsert.run('orders', 'prod').lastInsertRowid),
      );
    };

    const sides = [plain, ours, sqlite];
    const rows: number[][] = [];
    for (let i = 0; i < WARMUP + PAIRS; i++) {
      const row: number[] = [];
      // The order rotates from step to step, so load that comes and goes hits every side alike.
      for (let k = 0; k < sides.length; k++) {
        const at = (i + k) % sides.length;
        row[at] = await timed(sides[at] as () => Promise<unknown>);
      }
      if (i >= WARMUP) rows.push(row);
    }
    const col = (k: number) => rows.map((r) => r[k] as number);
    const toPlain = rows.map((r) => (r[1] as number) / (r[0] as number));
    const toSqlite = rows.map((r) => (r[1] as number) / (r[2] as number));
    console.log(
      `  plain p50 ${p50(col(0)).toFixed(3)} ms, ours p50 ${p50(col(1)).toFixed(3)} ms, SQLite store p50 ${p50(col(2)).toFixed(3)} ms`,
    );
    const ratio = p50(toPlain);
    report({
      goal: `claim + effect on Postgres ≤ ${GOAL}× a plain INSERT transaction`,
      figure: `${ratio.toFixed(2)}× (paired p50 of ${rows.length}, IQR ${iqr(toPlain)}; ${p50(col(1)).toFixed(2)} vs ${p50(col(0)).toFixed(2)} ms)`,
      pass: ratio <= GOAL,
    });
    report({
      goal: 'claim + effect on Postgres against the SQLite store (information)',
      figure: `${p50(toSqlite).toFixed(2)}× (paired p50, IQR ${iqr(toSqlite)}; SQLite ${p50(col(2)).toFixed(3)} ms)`,
      pass: 'info',
    });
  } finally {
    db.close();
    rmSync(dir, { recursive: true, force: true });
    await plainPool.end();
    await oursPool.end();
    await server.stop();
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await postgresCommit();
