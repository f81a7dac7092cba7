import type { Database, Statement } from 'better-sqlite3';
import type { Shop } from './open.js';

/** Rows shown in a result; more are counted, not shown. */
const MAX_ROWS_SHOWN = 200;
/** A read stops counting here: enough to say "more than", and a runaway query ends. */
const MAX_ROWS_COUNTED = 10_000;
/** Bytes of row data a read may go through, counted or shown. */
const MAX_READ_BYTES = 16 * 1024 * 1024;
/** A shown text or blob is cut to this many characters. */
const MAX_CELL = 2000;

/** What a write did (or would do, in the dry run). */
export interface WriteEffect {
  /** Rows the statement itself changed (`changes()`). */
  changes: number;
  /** Rows changed in all, triggers and foreign-key actions included (`total_changes()` moved by). */
  total: number;
  /** Rows in each table the statement itself writes, before and after. */
  tables: Record<string, { before: number; after: number }>;
  /** Schema objects (by name) the statement adds, removes or alters. */
  schema: { added: string[]; removed: string[]; altered: string[] };
  /** RETURNING rows, capped. */
  returned: Rows;
}

export interface Rows {
  columns: string[];
  rows: Record<string, unknown>[];
  /** Rows counted; with `complete: false`, at least this many. */
  count: number;
  complete: boolean;
  /** Why an incomplete read stopped: too many rows, or too much data. */
  stopped?: 'rows' | 'bytes';
}

class ShopRunError extends Error {
  readonly code = 'SQLITE_RUNTIME';
  constructor(message: string) {
    super(message);
    this.name = 'ShopRunError';
  }
}

/** The statement left an object in the temp database: it would outlive the statement, so it is undone. */
export class TempObjectError extends Error {
  readonly code = 'TEMP_OBJECT';
  constructor() {
    super('temporary tables, views and triggers are not allowed');
    this.name = 'TempObjectError';
  }
}

/** Runs a write inside a savepoint and rolls it back: what it would do, or SQLite's reason it fails. */
export function dryRun(shop: Shop, sql: string, direct: readonly string[]): WriteEffect {
  const db = shop.db;
  db.exec('SAVEPOINT opsdesk_dry_run');
  try {
    return measure(db, db.prepare(sql), direct);
  } catch (error) {
    if (error instanceof TempObjectError) throw error;
    throw new ShopRunError(error instanceof Error ? error.message : String(error));
  } finally {
    db.exec('ROLLBACK TO opsdesk_dry_run');
    db.exec('RELEASE opsdesk_dry_run');
  }
}

/** Runs a write for real, in one transaction. */
export function write(shop: Shop, sql: string, direct: readonly string[]): WriteEffect {
  const db = shop.db;
  try {
    return db.transaction(() => measure(db, db.prepare(sql), direct))();
  } catch (error) {
    if (error instanceof TempObjectError) throw error;
    throw new ShopRunError(error instanceof Error ? error.message : String(error));
  }
}

/** Runs a read with `query_only` on, bounded in rows and bytes. */
export function read(shop: Shop, sql: string): Rows {
  const db = shop.db;
  db.pragma('query_only = ON');
  try {
    return collect(db.prepare(sql));
  } catch (error) {
    throw new ShopRunError(error instanceof Error ? error.message : String(error));
  } finally {
    db.pragma('query_only = OFF');
  }
}

function measure(db: Database, statement: Statement, direct: readonly string[]): WriteEffect {
  const counts = () => Object.fromEntries(direct.map((t) => [t, rowCount(db, t)]));
  const before = counts();
  const schemaBefore = schema(db);
  const totalBefore = db.prepare('SELECT total_changes()').pluck().get() as number;
  let changes: number;
  let returned: Rows = { columns: [], rows: [], count: 0, complete: true };
  if (statement.reader) {
    returned = collect(statement);
    changes = db.prepare('SELECT changes()').pluck().get() as number;
  } else {
    changes = statement.run().changes;
  }
  const total = (db.prepare('SELECT total_changes()').pluck().get() as number) - totalBefore;
  // Thrown inside the savepoint or transaction, so the temp object is rolled back with the rest.
  if ((db.prepare('SELECT COUNT(*) FROM temp.sqlite_schema').pluck().get() as number) > 0) throw new TempObjectError();
  const after = counts();
  const schemaAfter = schema(db);
  const tables: WriteEffect['tables'] = {};
  for (const t of direct) tables[t] = { before: before[t] ?? 0, after: after[t] ?? 0 };
  return {
    changes,
    total,
    tables,
    schema: {
      added: [...schemaAfter.keys()].filter((n) => !schemaBefore.has(n)),
      removed: [...schemaBefore.keys()].filter((n) => !schemaAfter.has(n)),
      altered: [...schemaAfter.keys()].filter((n) => schemaBefore.has(n) && schemaBefore.get(n) !== schemaAfter.get(n)),
    },
    returned,
  };
}

function rowCount(db: Database, table: string): number {
  const exists = db.prepare("SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = ?").get(table);
  return exists
    ? (db
        .prepare(`SELECT COUNT(*) FROM "${table.replaceAll('"', '""')}"`)
        .pluck()
        .get() as number)
    : 0;
}

/** name → definition, tables first (so the object a DROP TABLE names comes before its indexes). */
function schema(db: Database): Map<string, string> {
  const rows = db
    .prepare(
      "SELECT name, type || ':' || coalesce(sql, '') AS def FROM sqlite_schema ORDER BY CASE type WHEN 'table' THEN 0 WHEN 'view' THEN 1 ELSE 2 END, rowid",
    )
    .all() as { name: string; def: string }[];
  return new Map(rows.map((r) => [r.name, r.def]));
}

function collect(statement: Statement): Rows {
  const columns = statement.columns().map((c) => c.name);
  const rows: Record<string, unknown>[] = [];
  let count = 0;
  let bytes = 0;
  for (const row of statement.iterate() as Iterable<Record<string, unknown>>) {
    count++;
    bytes += size(row);
    if (rows.length < MAX_ROWS_SHOWN) rows.push(jsonRow(row));
    if (count >= MAX_ROWS_COUNTED || bytes > MAX_READ_BYTES) {
      // Leaving the loop early finalizes the statement: a runaway read ends here.
      return { columns, rows, count, complete: false, stopped: count >= MAX_ROWS_COUNTED ? 'rows' : 'bytes' };
    }
  }
  return { columns, rows, count, complete: true };
}

function size(row: Record<string, unknown>): number {
  let n = 0;
  for (const v of Object.values(row)) n += typeof v === 'string' ? v.length : v instanceof Uint8Array ? v.length : 8;
  return n;
}

function jsonRow(row: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(row)) {
    // defineProperty: a column named __proto__ stays a column.
    const value =
      v instanceof Uint8Array
        ? `x'${Buffer.from(v.subarray(0, MAX_CELL / 2)).toString('hex')}'${v.length > MAX_CELL / 2 ? '…' : ''}`
        : typeof v === 'bigint'
          ? v.toString()
          : typeof v === 'string' && v.length > MAX_CELL
            ? `${v.slice(0, MAX_CELL)}…`
            : v;
    Object.defineProperty(out, k, { value, enumerable: true, writable: true, configurable: true });
  }
  return out;
}
