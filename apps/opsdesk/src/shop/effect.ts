/**
 * What one execution of a write did to the shop, and the rules that judge it: what may be kept
 * without asking, and what a person's confirmation covers. Pure data and pure functions, shared
 * by the shop's process (which keeps or rolls back the execution it measured) and execute_sql
 * (which words the question from the same numbers).
 */
import type { Rows } from './run.js';

/** More rows changed than this (across tables) makes a write need a confirmation. */
export const ROW_THRESHOLD = 100;

/** Rows of one table, before and after the execution, and the rows each kind of change touched. */
export interface TableEffect {
  before: number;
  after: number;
  inserted: number;
  updated: number;
  deleted: number;
}

/**
 * A schema object the execution added or removed. Views, triggers, functions and rules change how
 * the shop behaves (a trigger's function replaced changes what the trigger does); sequences are
 * Postgres's own (a SERIAL column's counter).
 */
export interface SchemaObject {
  type: 'table' | 'index' | 'view' | 'trigger' | 'function' | 'rule' | 'sequence';
  name: string;
}

/**
 * An object's identity: its kind and its name. Names are not unique across kinds — SQLite keeps
 * triggers' names apart from tables', indexes' and views', Postgres triggers' and rules' per table
 * — so a trigger named `customers` is another object than the table `customers`, never taken for it.
 */
export function objectKey(o: SchemaObject): string {
  return `${o.type} ${o.name}`;
}

/** Object kinds whose addition changes what other statements do. */
const BEHAVIOUR: readonly SchemaObject['type'][] = ['view', 'trigger', 'function', 'rule'];

/** What one execution did, measured inside its own transaction (triggers and foreign-key actions included). */
export interface Execution {
  /** Every shop table the execution touched or its program may write, by name (untouched ones with zeros). */
  tables: Record<string, TableEffect>;
  schema: { added: SchemaObject[]; removed: SchemaObject[]; altered: SchemaObject[] };
  /** Rows the statement itself changed (`changes()`). */
  changes: number;
  /**
   * Why another execution of the same statement may do something else: the non-deterministic
   * functions its program (trigger programs included) calls, e.g. `random`, `changes`, `datetime`.
   */
  varies: string[];
  /** Every shop table its program may write (its own and its triggers'), read off the program. */
  writes: string[];
  /** Tables the statement names itself (its main program writes them). */
  direct: string[];
  /** RETURNING rows, capped. */
  returned: Rows;
}

export type Danger = 'drop' | 'schema' | 'every-row' | 'many-rows';

/** Rows of one table by the kind of change: inserted, updated, deleted. */
export type Changes = Pick<TableEffect, 'inserted' | 'updated' | 'deleted'>;

/** The kinds of change, in the order a person reads them. */
const CHANGES = ['inserted', 'updated', 'deleted'] as const;

/**
 * What a confirmation allows: rows per table (no other table may change) and exactly these schema
 * changes (objects by `objectKey`: kind and name). `stated`: the bound was stated in words (a statement whose effect varies from run to
 * run), not counted from one execution. A counted allowance also holds each table's rows by kind
 * (`changes`): confirming 150 rows inserted is no consent to 150 rows updated instead.
 */
export interface Allowance {
  tables: Record<string, number>;
  changes?: Record<string, Changes>;
  added: string[];
  removed: string[];
  altered: string[];
  stated: boolean;
}

/** What an execution may do and still be kept: what may run unasked, or what a person confirmed. */
export type Limit = { unasked: true } | { allowed: Allowance };

/** Rows an execution touched in `table` (inserted, updated or deleted). */
export function touchedIn(e: Execution, table: string): number {
  const t = e.tables[table];
  return t ? t.inserted + t.updated + t.deleted : 0;
}

/** Tables the execution created: rows put into them replace nothing. */
function created(e: Execution): Set<string> {
  return new Set(e.schema.added.filter((o) => o.type === 'table').map((o) => o.name));
}

/** Rows touched in tables that existed before: what many-rows counts. */
export function touched(e: Execution): number {
  const fresh = created(e);
  return Object.keys(e.tables)
    .filter((t) => !fresh.has(t))
    .reduce((n, t) => n + touchedIn(e, t), 0);
}

/**
 * Why an execution needs a confirmation (undefined: it may be kept unasked), and the object the
 * typed confirmation must name. Dropping anything, changing what exists (ALTER, views, triggers),
 * rewriting or emptying a whole table, or touching more than ROW_THRESHOLD rows needs one; adding
 * a table or an index, and small writes, do not.
 */
export function judge(e: Execution): { danger: Danger; target: string; kind: SchemaObject['type'] } | undefined {
  const { added, removed, altered } = e.schema;
  const gone = removed[0];
  // A rename removes the old name and adds the new: that is a change to the old one.
  if (gone) return { danger: added.length > 0 ? 'schema' : 'drop', target: gone.name, kind: gone.type };
  const changed = altered[0] ?? added.find((o) => BEHAVIOUR.includes(o.type));
  if (changed) return { danger: 'schema', target: changed.name, kind: changed.type };
  const fresh = created(e);
  const prefer = (names: string[]) => names.find((n) => e.direct.includes(n)) ?? names[0];
  // Every row touched, one way or the other: `UPDATE OR REPLACE t SET id = id + 5` on ten rows
  // updates five and deletes the five it replaces, neither a whole table alone.
  const whole = Object.entries(e.tables)
    .filter(([n, t]) => !fresh.has(n) && t.before > 0 && t.deleted + t.updated >= t.before)
    .map(([n]) => n);
  const everyRow = prefer(whole);
  if (everyRow !== undefined) return { danger: 'every-row', target: everyRow, kind: 'table' };
  if (touched(e) > ROW_THRESHOLD) {
    const most = Object.keys(e.tables)
      .filter((n) => !fresh.has(n))
      .sort((a, b) => touchedIn(e, b) - touchedIn(e, a));
    return { danger: 'many-rows', target: prefer(most.filter((n) => touchedIn(e, n) > 0)) ?? '', kind: 'table' };
  }
  return undefined;
}

/** Why an execution went beyond its limit: it needs a confirmation, changes a table or more rows than allowed, or another schema object. */
export type Beyond =
  | { kind: 'unasked' }
  | { kind: 'rows'; table: string; rows: number; allowed: number }
  | { kind: 'change'; table: string; change: keyof Changes; rows: number; allowed: number }
  | { kind: 'table'; table: string; rows: number }
  | { kind: 'schema'; name: string };

/** Why an execution goes beyond `limit` (undefined: it is within it and may be kept). */
export function beyond(e: Execution, limit: Limit): Beyond | undefined {
  if ('unasked' in limit) return judge(e) ? { kind: 'unasked' } : undefined;
  const a = limit.allowed;
  for (const table of Object.keys(e.tables)) {
    const rows = touchedIn(e, table);
    if (rows === 0) continue;
    const allowed = a.tables[table];
    if (allowed === undefined) return { kind: 'table', table, rows };
    if (rows > allowed) return { kind: 'rows', table, rows, allowed };
    const kinds = a.changes?.[table];
    const did = e.tables[table] as TableEffect;
    const over = kinds && CHANGES.find((change) => did[change] > kinds[change]);
    if (kinds && over) return { kind: 'change', table, change: over, rows: did[over], allowed: kinds[over] };
  }
  const extra = [
    ...e.schema.added.filter((o) => !a.added.includes(objectKey(o))),
    ...e.schema.removed.filter((o) => !a.removed.includes(objectKey(o))),
    ...e.schema.altered.filter((o) => !a.altered.includes(objectKey(o))),
  ];
  return extra[0] === undefined ? undefined : { kind: 'schema', name: extra[0].name };
}

/**
 * The least of 1, 2 or 5 times a power of ten that is at least `n`: a bound in round figures,
 * which runs whose counts differ a little all round to alike.
 */
export function roundedUp(n: number): number {
  if (n <= 1) return 1;
  let power = 1;
  for (;;) {
    for (const step of [1, 2, 5]) if (step * power >= n) return step * power;
    power *= 10;
  }
}

/**
 * What a confirmation of execution `e` covers. A statement whose effect may differ from run to
 * run is allowed a bound stated in words — per table it may write, the most of its rows now,
 * ROW_THRESHOLD, and what this run touched there in round figures (`roundedUp`: an insert may
 * add more rows than a table holds) — never one execution's count, which the next run (and on
 * 2026-07-28 the next round's question) would not repeat. Otherwise at most what `e` did, table
 * by table and kind by kind (inserted, updated, deleted), as the question showed it.
 */
export function allowanceFor(e: Execution): Allowance {
  const schema = {
    added: e.schema.added.map(objectKey),
    removed: e.schema.removed.map(objectKey),
    altered: e.schema.altered.map(objectKey),
  };
  if (e.varies.length > 0) {
    const tables: Record<string, number> = {};
    for (const t of new Set([...e.writes, ...Object.keys(e.tables)]))
      tables[t] = Math.max(e.tables[t]?.before ?? 0, ROW_THRESHOLD, roundedUp(touchedIn(e, t)));
    return { tables, ...schema, stated: true };
  }
  const tables: Record<string, number> = {};
  const changes: Record<string, Changes> = {};
  for (const [t, did] of Object.entries(e.tables)) {
    if (touchedIn(e, t) === 0) continue;
    tables[t] = touchedIn(e, t);
    changes[t] = { inserted: did.inserted, updated: did.updated, deleted: did.deleted };
  }
  return { tables, changes, ...schema, stated: false };
}
