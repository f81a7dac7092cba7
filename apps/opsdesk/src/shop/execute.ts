/**
 * One execution of a write, measured and then kept or rolled back — in the shop's own process,
 * inside one transaction. What is judged is what runs: there is no trial run that a second run
 * could differ from (connection state, the clock, random(), a trigger someone else planted).
 */
import { randomBytes } from 'node:crypto';
import type { Database } from 'better-sqlite3';
import {
  type Beyond,
  beyond,
  type Execution,
  type Limit,
  objectKey,
  type SchemaObject,
  type TableEffect,
} from './effect.js';
import { type Inspection, inspect, type Refusal } from './inspect.js';
import type { Shop } from './open.js';
import { collect, type Rows, ShopRunError, TempObjectError } from './run.js';

/** How an execution ended: kept (committed), or rolled back with why it went beyond its limit. */
export type Executed =
  | { kept: true; execution: Execution }
  | { kept: false; execution: Execution; beyond: Beyond }
  | { refusal: Refusal }
  | { error: string };

/** The execution ran past its deadline before it could commit: rolled back, nothing kept. */
export class ExecutionTimeout extends Error {
  readonly code = 'SQL_TIMEOUT';
  constructor() {
    super('the statement ran past its time limit and was rolled back');
    this.name = 'ExecutionTimeout';
  }
}

/**
 * Runs `sql` once inside `BEGIN IMMEDIATE`: the statement is inspected again under the write lock
 * (the schema cannot move until the end), every row any program touches is counted by temporary
 * triggers of this execution's own, and the execution is committed only when it is within `limit`
 * and `deadline` (epoch ms) has not passed. `committing` is awaited just before COMMIT: the parent
 * has been told (its message written) before anything can be kept, so a process lost from then on
 * is known to have maybe committed.
 */
export async function execute(
  shop: Shop,
  sql: string,
  limit: Limit,
  deadline: number,
  committing: () => Promise<void> = async () => {},
): Promise<Executed> {
  const db = shop.db;
  db.exec('BEGIN IMMEDIATE');
  let open = true;
  const rollback = () => {
    if (open && db.inTransaction) db.exec('ROLLBACK');
    open = false;
  };
  try {
    const seen = inspect(shop.file, sql);
    if ('refusal' in seen || 'error' in seen) return seen;
    const execution = measured(db, sql, seen);
    const why = beyond(execution, limit);
    if (why !== undefined) return { kept: false, execution, beyond: why };
    if (Date.now() > deadline) throw new ExecutionTimeout();
    await committing();
    db.exec('COMMIT');
    open = false;
    return { kept: true, execution };
  } catch (error) {
    if (error instanceof TempObjectError || error instanceof ExecutionTimeout) throw error;
    throw new ShopRunError(error instanceof Error ? error.message : String(error));
  } finally {
    rollback();
  }
}

/** Runs the statement with counting triggers on every table; what it did, triggers' work included. */
function measured(db: Database, sql: string, seen: Inspection): Execution {
  const tables = shopTables(db);
  const counter = plantCounters(db, tables);
  const rowsBefore = rowCounts(db, tables);
  const schemaBefore = schemaObjects(db);
  const statement = db.prepare(sql);
  let returned: Rows = { columns: [], rows: [], count: 0, complete: true };
  let changes: number;
  if (statement.reader) {
    returned = collect(statement);
    changes = db.prepare('SELECT changes()').pluck().get() as number;
  } else {
    changes = statement.run().changes;
  }
  const counted = db.prepare(`SELECT t, i, u, d FROM temp.${counter.table}`).all() as {
    t: number;
    i: number;
    u: number;
    d: number;
  }[];
  // Anything else in temp would outlive the statement (or was made to disturb the count): refused.
  const temp = db.prepare('SELECT name FROM temp.sqlite_schema').pluck().all() as string[];
  if (temp.some((n) => !n.startsWith(counter.prefix))) throw new TempObjectError();
  // Dropped before anything is kept: the execution's own objects never outlive it.
  for (const name of temp.filter((n) => n !== counter.table)) db.exec(`DROP TRIGGER IF EXISTS temp.${quote(name)}`);
  db.exec(`DROP TABLE temp.${counter.table}`);
  const schemaAfter = schemaObjects(db);
  const after = shopTables(db);
  const rowsAfter = rowCounts(db, after);
  const effects: Record<string, TableEffect> = {};
  const names = new Set([...tables, ...after, ...seen.writes]);
  for (const name of names) {
    const c = counted.find((r) => tables[r.t] === name);
    effects[name] = reconcile(rowsBefore.get(name) ?? 0, rowsAfter.get(name) ?? 0, c?.i ?? 0, c?.u ?? 0, c?.d ?? 0);
  }
  // Tables with nothing to tell (untouched, not written by the program) are left out.
  for (const [name, e] of Object.entries(effects))
    if (!seen.writes.includes(name) && e.inserted + e.updated + e.deleted === 0) delete effects[name];
  return {
    tables: effects,
    schema: schemaChange(schemaBefore, schemaAfter),
    changes,
    varies: seen.varies,
    writes: seen.writes,
    direct: seen.direct,
    returned,
  };
}

/**
 * The counts, with what the triggers could not see added from the row totals: rows a REPLACE
 * pushed out (delete triggers fire for those only with recursive_triggers), a DROP's rows, and
 * rows of a table the statement created (no trigger on it yet).
 */
function reconcile(before: number, after: number, inserted: number, updated: number, deleted: number): TableEffect {
  const net = after - before;
  const seen = inserted - deleted;
  return {
    before,
    after,
    inserted: inserted + Math.max(0, net - seen),
    updated,
    deleted: deleted + Math.max(0, seen - net),
  };
}

/** The shop's own tables (not SQLite's internal ones), in a stable order. */
function shopTables(db: Database): string[] {
  return db
    .prepare(
      "SELECT name FROM main.sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' AND sql NOT LIKE 'CREATE VIRTUAL%' ORDER BY name",
    )
    .pluck()
    .all() as string[];
}

/**
 * A counter table and AFTER INSERT/UPDATE/DELETE triggers on every shop table, in temp and named
 * with a nonce no statement can know. They fire for every row any program touches: the
 * statement's own, its triggers', foreign-key actions'.
 */
function plantCounters(db: Database, tables: string[]): { table: string; prefix: string } {
  const prefix = `ek_${randomBytes(8).toString('hex')}_`;
  const table = `${prefix}n`;
  db.exec(
    `CREATE TEMP TABLE ${table} (t INTEGER PRIMARY KEY, i INTEGER NOT NULL, u INTEGER NOT NULL, d INTEGER NOT NULL)`,
  );
  const insert = db.prepare(`INSERT INTO temp.${table} (t, i, u, d) VALUES (?, 0, 0, 0)`);
  for (const [i, name] of tables.entries()) {
    insert.run(i);
    for (const [event, column] of [
      ['INSERT', 'i'],
      ['UPDATE', 'u'],
      ['DELETE', 'd'],
    ] as const) {
      db.exec(
        `CREATE TEMP TRIGGER ${prefix}${i}${column} AFTER ${event} ON main.${quote(name)} BEGIN UPDATE ${table} SET ${column} = ${column} + 1 WHERE t = ${i}; END`,
      );
    }
  }
  return { table, prefix };
}

function rowCounts(db: Database, tables: string[]): Map<string, number> {
  return new Map(
    tables.map((t) => [
      t,
      db
        .prepare(`SELECT COUNT(*) FROM main.${quote(t)}`)
        .pluck()
        .get() as number,
    ]),
  );
}

type Schema = Map<string, SchemaObject & { sql: string }>;

/**
 * The shop's schema objects by kind and name (`objectKey`: a trigger may share a table's name),
 * tables first (so a DROP TABLE's table comes before its indexes).
 */
function schemaObjects(db: Database): Schema {
  const rows = db
    .prepare(
      "SELECT name, type, coalesce(sql, '') AS sql FROM main.sqlite_schema ORDER BY CASE type WHEN 'table' THEN 0 WHEN 'view' THEN 1 ELSE 2 END, rowid",
    )
    .all() as { name: string; type: SchemaObject['type']; sql: string }[];
  return new Map(rows.map((r) => [objectKey(r), r]));
}

function schemaChange(before: Schema, after: Schema): Execution['schema'] {
  const object = ({ type, name }: SchemaObject): SchemaObject => ({ type, name });
  return {
    added: [...after].filter(([k]) => !before.has(k)).map(([, o]) => object(o)),
    removed: [...before].filter(([k]) => !after.has(k)).map(([, o]) => object(o)),
    altered: [...after].filter(([k, o]) => before.has(k) && before.get(k)?.sql !== o.sql).map(([, o]) => object(o)),
  };
}

function quote(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}
