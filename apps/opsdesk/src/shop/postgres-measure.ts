/**
 * What one execution did to the Postgres shop, measured inside its own transaction: rows per
 * table from the transaction's own statistics (`pg_stat_xact_user_tables`, which count what
 * triggers, rules and foreign-key actions did too) checked against row counts before and after (a
 * TRUNCATE removes rows those statistics do not count), and the schema objects of `shop` before
 * and after (a definition that changed is an object altered).
 */
import type { PoolClient } from 'pg';
import { objectKey, type SchemaObject, type TableEffect } from './effect.js';

/** One object of the shop's schema, with what it is made of: a change to that is a change to it. */
interface Held {
  type: SchemaObject['type'];
  /** Its name (a trigger's and a rule's after its table's: `orders.audit`, unique only per table). */
  name: string;
  /** The table it belongs to (an index's, a trigger's, a rule's), or its own name. */
  table: string;
  /** The SHA-256 of its definition, hex. */
  definition: string;
}

/** By `objectKey` (kind and name: a trigger may share a table's name). */
export type Snapshot = Map<string, Held>;

/**
 * The shop's schema objects by name: tables (with their columns and constraints), views, indexes,
 * sequences (with what they give out), triggers, rules and functions (with their source), each
 * with the rights granted on it. A definition is read as its
 * SHA-256, made by the server: it is only ever compared, and one made enormous (a function of
 * hundreds of megabytes, planted by a statement) is never fetched by every later write.
 */
export async function snapshot(client: PoolClient): Promise<Snapshot> {
  const { rows } = await client.query<{ name: string; type: SchemaObject['type']; tbl: string; def: string }>(`
    SELECT name, type, tbl, encode(sha256(convert_to(coalesce(def, ''), 'UTF8')), 'hex') AS def FROM (
    SELECT c.relname AS name,
      CASE c.relkind WHEN 'r' THEN 'table' WHEN 'p' THEN 'table' WHEN 'v' THEN 'view' WHEN 'm' THEN 'view'
        WHEN 'i' THEN 'index' WHEN 'I' THEN 'index' WHEN 'S' THEN 'sequence' ELSE 'table' END AS type,
      coalesce(ic.relname, c.relname) AS tbl,
      CASE WHEN c.relkind IN ('v', 'm') THEN pg_get_viewdef(c.oid)
        WHEN c.relkind IN ('i', 'I') THEN pg_get_indexdef(c.oid)
        -- A sequence is what it gives out: its type, start, step, bounds and whether it wraps.
        WHEN c.relkind = 'S' THEN (SELECT concat_ws(' ', s.seqtypid::regtype, s.seqstart, s.seqincrement, s.seqmin,
               s.seqmax, s.seqcache, s.seqcycle) FROM pg_sequence s WHERE s.seqrelid = c.oid)
        ELSE coalesce((SELECT string_agg(a.attname || ' ' || format_type(a.atttypid, a.atttypmod) || CASE WHEN a.attnotnull THEN ' not null' ELSE '' END
               || coalesce(' default ' || pg_get_expr(d.adbin, d.adrelid), ''), ', ' ORDER BY a.attnum)
             FROM pg_attribute a LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
             WHERE a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped), '')
          || coalesce((SELECT ' | ' || string_agg(pg_get_constraintdef(k.oid), ', ' ORDER BY k.conname)
             FROM pg_constraint k WHERE k.conrelid = c.oid), '')
          || CASE WHEN c.relrowsecurity THEN ' | row security' ELSE '' END
      -- Who may do what with it is part of it: a GRANT the shop's role makes itself is a change.
      END || coalesce(' | granted ' || c.relacl::text, '') AS def
    FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
    LEFT JOIN pg_index x ON x.indexrelid = c.oid LEFT JOIN pg_class ic ON ic.oid = x.indrelid
    WHERE n.nspname = 'shop' AND c.relkind IN ('r', 'p', 'v', 'm', 'i', 'I', 'S', 'f')
    UNION ALL
    SELECT c.relname || '.' || t.tgname, 'trigger', c.relname, pg_get_triggerdef(t.oid) || CASE t.tgenabled WHEN 'D' THEN ' disabled' ELSE '' END
    FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid JOIN pg_namespace n ON n.oid = c.relnamespace
    WHERE n.nspname = 'shop' AND NOT t.tgisinternal
    UNION ALL
    SELECT r.tablename || '.' || r.rulename, 'rule', r.tablename, r.definition FROM pg_rules r WHERE r.schemaname = 'shop'
    UNION ALL
    SELECT p.proname || '(' || pg_get_function_identity_arguments(p.oid) || ')', 'function', p.proname,
      p.prosrc || ' ' || p.provolatile::text || ' ' || p.prosecdef::text || coalesce(' | granted ' || p.proacl::text, '')
    FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace WHERE n.nspname = 'shop') AS objects`);
  return new Map(rows.map((r) => [objectKey(r), { type: r.type, name: r.name, table: r.tbl, definition: r.def }]));
}

/**
 * What a statement on the shop could change outside its schema and rows, each as text to compare
 * before and after: the settings of the shop's role and of the connection's login (ALTER ROLE …
 * SET, which every later connection would run under; a connection limit; an expiry) and the large
 * objects either owns (stored outside every table: their number and ids).
 */
export async function outsideTheShop(client: PoolClient): Promise<{ role: string; largeObjects: string }> {
  const { rows } = await client.query<{ role: string | null; large: string }>(
    `SELECT (SELECT string_agg(concat_ws(' | ', rolname, rolconfig::text, rolconnlimit, rolvaliduntil), ' || '
               ORDER BY rolname) FROM pg_roles WHERE rolname IN (current_user, session_user)) AS role,
            (SELECT count(*) || ':' || coalesce(sum(oid::text::numeric), 0) FROM pg_largeobject_metadata
             WHERE lomowner IN (SELECT oid FROM pg_roles WHERE rolname IN (current_user, session_user))) AS large`,
  );
  return { role: rows[0]?.role ?? '', largeObjects: rows[0]?.large ?? '' };
}

/** Where one of the shop's sequences stands: the last value it gave out (null: none, or set to start over). */
export interface SequencePosition {
  at: bigint | null;
  start: bigint;
  step: bigint;
}

/** The shop's sequences by name, and where each stands. */
export async function sequencePositions(client: PoolClient): Promise<Map<string, SequencePosition>> {
  const { rows } = await client.query<{ name: string; at: string | null; start: string; step: string }>(
    `SELECT sequencename AS name, last_value::text AS at, start_value::text AS start, increment_by::text AS step
     FROM pg_sequences WHERE schemaname = 'shop'`,
  );
  return new Map(
    rows.map((r) => [
      r.name,
      { at: r.at === null ? null : BigInt(r.at), start: BigInt(r.start), step: BigInt(r.step) },
    ]),
  );
}

/**
 * The sequences a run moved other than by handing out values for the rows it inserted: a sequence
 * set back (the next insert collides with rows already there), set far ahead (to its bound: every
 * insert fails), made to start over, or advanced past the rows the run inserted in all. A value
 * once given out is never taken back by a rollback, so this is an effect that outlives the
 * transaction's rows: a change to the sequence, confirmed as one. (Another connection's inserts
 * meanwhile can make an insert look like one: it is then asked about, never passed unasked.)
 */
export function sequencesMoved(
  before: ReadonlyMap<string, SequencePosition>,
  after: ReadonlyMap<string, SequencePosition>,
  inserted: number,
): string[] {
  const moved: string[] = [];
  for (const [name, now] of after) {
    const was = before.get(name);
    if (!was || was.step !== now.step || was.start !== now.start) continue; // added or altered: the schema says so
    if (was.at === now.at) continue;
    if (now.at === null) {
      moved.push(name);
      continue;
    }
    // Values handed out since: from the last one before, or from the start when none was.
    const from = was.at === null ? now.start - now.step : was.at;
    const given = (now.at - from) / now.step;
    if ((now.at - from) % now.step !== 0n || given < 0n || given > BigInt(inserted)) moved.push(name);
  }
  return moved.sort();
}

/**
 * Sets back each sequence `moved` by a run that is not kept, where it can: a rollback does not
 * (a value set or handed out stays so). Only one no other connection has moved since — it would
 * be handed the same values again — and only where the role may set it (not the shop's own: there
 * the run could only hand values out, and those stay handed out, a gap).
 */
export async function putBack(
  client: PoolClient,
  moved: readonly string[],
  before: ReadonlyMap<string, SequencePosition>,
  after: ReadonlyMap<string, SequencePosition>,
): Promise<void> {
  for (const name of moved) {
    const was = before.get(name);
    const left = after.get(name);
    if (!was || !left) continue;
    await client.query('SAVEPOINT ek_put_back');
    try {
      await client.query(
        `SELECT setval(format('shop.%I', sequencename)::regclass, $2::bigint, $3) FROM pg_sequences
         WHERE schemaname = 'shop' AND sequencename = $1 AND last_value IS NOT DISTINCT FROM $4::bigint`,
        [name, String(was.at ?? was.start), was.at !== null, left.at === null ? null : String(left.at)],
      );
      await client.query('RELEASE SAVEPOINT ek_put_back');
    } catch {
      await client.query('ROLLBACK TO SAVEPOINT ek_put_back');
    }
  }
}

/** What changed between two snapshots: objects added, removed, and altered (same name, other definition). */
export function schemaChanges(
  before: Snapshot,
  after: Snapshot,
): { added: SchemaObject[]; removed: SchemaObject[]; altered: SchemaObject[] } {
  const added: SchemaObject[] = [];
  const removed: SchemaObject[] = [];
  const altered: SchemaObject[] = [];
  for (const [key, { type, name, definition }] of after) {
    const was = before.get(key);
    if (!was) added.push({ type, name });
    else if (was.definition !== definition) altered.push({ type, name });
  }
  for (const [key, { type, name }] of before) if (!after.has(key)) removed.push({ type, name });
  return { added, removed, altered };
}

/** Rows in each of the shop's tables (by name), counted now. */
export async function rowCounts(client: PoolClient, tables: readonly string[]): Promise<Map<string, number>> {
  if (tables.length === 0) return new Map();
  const text = tables
    .map((t) => `SELECT ${client.escapeLiteral(t)} AS t, count(*)::int AS n FROM shop.${client.escapeIdentifier(t)}`)
    .join(' UNION ALL ');
  const { rows } = await client.query<{ t: string; n: number }>(text);
  return new Map(rows.map((r) => [r.t, r.n]));
}

/** Rows this transaction inserted, updated and deleted, per shop table (the statistics of the transaction so far). */
export async function transactionCounts(
  client: PoolClient,
): Promise<Map<string, { ins: number; upd: number; del: number }>> {
  const { rows } = await client.query<{ t: string; ins: number; upd: number; del: number }>(
    "SELECT relname AS t, n_tup_ins::int AS ins, n_tup_upd::int AS upd, n_tup_del::int AS del FROM pg_stat_xact_user_tables WHERE schemaname = 'shop'",
  );
  return new Map(rows.map((r) => [r.t, r]));
}

/**
 * What the transaction counted since `baseline` was read in it. The statistics views of one
 * transaction also hold what earlier transactions of the same connection counted until the
 * server flushes them (about a second): read alone, a statement run just after another on its
 * connection was measured with the earlier one's rows too (the seed's thousands of rows, asked
 * about as a wipe of every table). Nothing is flushed inside a transaction, so what the statement
 * did is the difference.
 */
export function countedSince(
  after: Map<string, { ins: number; upd: number; del: number }>,
  baseline: Map<string, { ins: number; upd: number; del: number }>,
): Map<string, { ins: number; upd: number; del: number }> {
  const out = new Map<string, { ins: number; upd: number; del: number }>();
  for (const [name, c] of after) {
    const b = baseline.get(name) ?? { ins: 0, upd: 0, del: 0 };
    out.set(name, { ins: c.ins - b.ins, upd: c.upd - b.upd, del: c.del - b.del });
  }
  return out;
}

/**
 * Each table's effect from the counts before and after and what the transaction counted. Rows
 * gone without a counted delete (TRUNCATE, or a table dropped and made again) are deletions too.
 */
export function tableEffects(
  before: Map<string, number>,
  after: Map<string, number>,
  counted: Map<string, { ins: number; upd: number; del: number }>,
): Record<string, TableEffect> {
  const out: Record<string, TableEffect> = {};
  for (const name of new Set([...before.keys(), ...after.keys()])) {
    const b = before.get(name) ?? 0;
    const a = after.get(name) ?? 0;
    const c = counted.get(name) ?? { ins: 0, upd: 0, del: 0 };
    const deleted = Math.max(c.del, b + c.ins - a);
    out[name] = { before: b, after: a, inserted: c.ins, updated: c.upd, deleted };
  }
  return out;
}

/** SQL-standard functions of the clock and the session, written as keywords: they are not calls. */
const KEYWORD_FUNCTIONS =
  /\b(CURRENT_DATE|CURRENT_TIME|CURRENT_TIMESTAMP|LOCALTIME|LOCALTIMESTAMP|CURRENT_USER|SESSION_USER|CURRENT_ROLE|USER)\b/g;

/**
 * The clock as a literal: Postgres reads `'now'`, `'today'`, `'tomorrow'` and `'yesterday'` (any
 * case, spaces around) as a time when it takes the statement in, so each run reads another. Found
 * in the statement's text, every string literal that is one of them (one meant as text counts
 * too: the bound is then stated where a count would have done).
 */
const CLOCK_LITERAL = /'\s*(now|today|tomorrow|yesterday)\s*'/gi;

/**
 * Each name, whole, and the `(` after it if there is one: a name is read once. Matched as
 * "a name followed by `(`", a run of letters with no `(` after it — a constant of a megabyte the
 * planner folded into the plan — was scanned again from each of its letters, and one statement
 * held the process for hours.
 */
const NAME = /([A-Za-z_][A-Za-z0-9_$]*)(\()?/g;

/**
 * Functions of Postgres's own that Postgres calls stable, yet whose answer differs from one
 * transaction or connection to the next with the same data: the clock (`age` of one argument
 * reads today's date), the transaction and its ids, the backend and its peer, the server's state.
 * Any `pg_stat_` function too. Every other stable function of `pg_catalog` answers alike for the
 * same data and session settings, and the settings of each shop connection are opsdesk's (SET and
 * `set_config`, volatile, are refused or counted).
 */
const STABLE_BUT_VARYING = [
  'now',
  'transaction_timestamp',
  'statement_timestamp',
  'age',
  'mxid_age',
  'txid_current',
  'txid_current_if_assigned',
  'txid_current_snapshot',
  'pg_current_xact_id',
  'pg_current_xact_id_if_assigned',
  'pg_current_snapshot',
  'pg_backend_pid',
  'pg_my_temp_schema',
  'pg_is_other_temp_schema',
  'pg_trigger_depth',
  'pg_listening_channels',
  'pg_cursor',
  'pg_prepared_statement',
  'pg_conf_load_time',
  'pg_postmaster_start_time',
  'inet_client_addr',
  'inet_client_port',
  'inet_server_addr',
  'inet_server_port',
];

/**
 * Why another run of the statement may do something else, read off its plan (`EXPLAIN VERBOSE`,
 * which names every function it calls) and the triggers of the tables it changed: each function
 * that is volatile (`random`, `nextval`, `clock_timestamp`, `set_config`…), each stable one that
 * is not Postgres's own (a stable function may read the clock) or is among
 * `STABLE_BUT_VARYING`, each clock or session keyword, each trigger (its function may read
 * anything). A call is known by its name, so a name counts when any function of that name does:
 * `generate_series(1, 10)` does not, though `generate_series` over timestamptz is stable (the
 * session's time zone, opsdesk's), nor does `length(email)`. Statements with no plan (DDL) call none.
 */
export async function variesOf(
  client: PoolClient,
  sql: string,
  plan: string | undefined,
  changed: readonly string[],
): Promise<string[]> {
  const found = new Set<string>();
  if (plan !== undefined) {
    for (const m of sql.matchAll(CLOCK_LITERAL))
      found.add((m[1] as string).toLowerCase() === 'now' ? 'now' : 'current_date');
    for (const m of plan.matchAll(KEYWORD_FUNCTIONS)) found.add((m[1] as string).toLowerCase());
    const called = [...new Set([...plan.matchAll(NAME)].filter((m) => m[2] !== undefined).map((m) => m[1] as string))];
    if (called.length > 0) {
      const { rows } = await client.query<{ name: string }>(
        `SELECT DISTINCT p.proname AS name FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
         WHERE p.proname = ANY($1) AND (p.provolatile = 'v' OR (p.provolatile = 's' AND (n.nspname <> 'pg_catalog'
           OR p.proname = ANY($2) OR starts_with(p.proname, 'pg_stat_'))))`,
        [called.map((c) => c.toLowerCase()), STABLE_BUT_VARYING],
      );
      for (const r of rows) found.add(r.name);
    }
  }
  if (changed.length > 0) {
    const { rows } = await client.query<{ name: string }>(
      `SELECT DISTINCT 'trigger ' || t.tgname AS name FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid
       JOIN pg_namespace n ON n.oid = c.relnamespace
       WHERE n.nspname = 'shop' AND NOT t.tgisinternal AND c.relname = ANY($1)`,
      [changed],
    );
    for (const r of rows) found.add(r.name);
  }
  return [...found].sort();
}

/** Tables a plan's ModifyTable nodes write: the statement's own targets. */
export function targetsOf(plan: unknown): string[] {
  const out = new Set<string>();
  const walk = (node: unknown) => {
    if (Array.isArray(node)) for (const n of node) walk(n);
    else if (node && typeof node === 'object') {
      const o = node as Record<string, unknown>;
      if (o['Node Type'] === 'ModifyTable' && typeof o['Relation Name'] === 'string') out.add(o['Relation Name']);
      for (const v of Object.values(o)) walk(v);
    }
  };
  walk(plan);
  return [...out];
}
