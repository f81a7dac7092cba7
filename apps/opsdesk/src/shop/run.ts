import type { Statement } from 'better-sqlite3';
import type { Shop } from './open.js';

/** Rows shown in a result; more are counted, not shown. */
const MAX_ROWS_SHOWN = 200;
/** A read stops counting here: enough to say "more than", and a runaway query ends. */
const MAX_ROWS_COUNTED = 10_000;
/** Bytes of row data a read may go through, counted or shown. */
const MAX_READ_BYTES = 16 * 1024 * 1024;
/** A shown text or blob is cut to this many characters. */
const MAX_CELL = 2000;

export interface Rows {
  columns: string[];
  rows: Record<string, unknown>[];
  /** Rows counted; with `complete: false`, at least this many. */
  count: number;
  complete: boolean;
  /** Why an incomplete read stopped: too many rows, or too much data. */
  stopped?: 'rows' | 'bytes';
}

/** SQLite refused the statement while it ran: its words, as they are. */
export class ShopRunError extends Error {
  readonly code = 'SQL_RUNTIME';
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

/** A statement's rows, capped in count and bytes: a runaway read (or RETURNING) ends early. */
export function collect(statement: Statement): Rows {
  const rows = rowCollector(statement.columns().map((c) => c.name));
  for (const row of statement.iterate() as Iterable<Record<string, unknown>>) {
    // Leaving the loop early finalizes the statement: a runaway read ends here.
    if (!rows.add(row)) break;
  }
  return rows.rows();
}

/**
 * Rows as they come, kept within the caps: `add` says whether to go on (false once enough rows
 * or bytes went by), `rows` is the result so far, `cut` the result so far stopped for size (the
 * next rows were too large to take).
 */
export function rowCollector(columns: string[]): {
  add(row: Record<string, unknown>): boolean;
  rows(): Rows;
  cut(): Rows;
} {
  const shown: Record<string, unknown>[] = [];
  let count = 0;
  let bytes = 0;
  let stopped: Rows['stopped'];
  return {
    add(row) {
      count++;
      bytes += size(row);
      if (shown.length < MAX_ROWS_SHOWN) shown.push(jsonRow(row));
      if (count >= MAX_ROWS_COUNTED) stopped = 'rows';
      else if (bytes > MAX_READ_BYTES) stopped = 'bytes';
      return stopped === undefined;
    },
    rows: () =>
      stopped === undefined
        ? { columns, rows: shown, count, complete: true }
        : { columns, rows: shown, count, complete: false, stopped },
    cut: () => ({ columns, rows: shown, count, complete: false, stopped: 'bytes' }),
  };
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
      v instanceof Date
        ? v.toISOString()
        : v instanceof Uint8Array
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
