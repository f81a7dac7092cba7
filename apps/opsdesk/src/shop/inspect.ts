import BetterSqlite3 from 'better-sqlite3';

/** Why SQLite's own view of a statement rules it out. */
export type Refusal =
  | 'pragma'
  | 'attach'
  | 'vacuum'
  | 'transaction'
  | 'extension'
  | 'other-database'
  | 'virtual-table'
  | 'explain'
  /** Rows of SQLite's own tables (sqlite_sequence, sqlite_stat1…), which no counting trigger can watch. */
  | 'internal-table'
  /** Postgres: a statement that changes the connection (SET, RESET, DISCARD, LISTEN, COPY…), which opsdesk owns. */
  | 'session'
  /** Postgres: a change to the shop's role itself (its settings, its password): opsdesk's, the bounds of every statement. */
  | 'role'
  /** Postgres: large objects, stored outside every table: nothing of them could be counted or shown. */
  | 'large-object';

/** What SQLite says a statement does, read off its compiled program (`EXPLAIN`) on the shop. */
export interface Inspection {
  /** `sqlite3_stmt_readonly`: the statement changes nothing in the database file. */
  readonly: boolean;
  /** The statement returns rows (a SELECT, or a write with RETURNING). */
  reader: boolean;
  /** Shop tables the statement itself writes (its main program). */
  direct: string[];
  /** Every shop table it writes, triggers and foreign-key actions included. */
  writes: string[];
  /** It creates a table or an index (a new b-tree). */
  creates: boolean;
  /** It drops something (table, index, view or trigger). */
  drops: boolean;
  /** It changes the schema (sqlite_schema is written). */
  schema: boolean;
  /**
   * The non-deterministic functions its program calls (trigger programs included): `random`,
   * `changes`, the clock… Another run of it may change other rows than this one.
   */
  varies: string[];
}

interface Op {
  addr: number;
  opcode: string;
  p1: number;
  p2: number;
  p3: number;
  p4: string | null;
  p5: number;
}

// Functions whose mere presence refuses a statement: leaving the shop, or loading code.
const FORBIDDEN_FUNCTIONS: Record<string, Refusal> = {
  sqlite_attach: 'attach',
  sqlite_detach: 'attach',
  load_extension: 'extension',
  fts3_tokenizer: 'extension',
};
const REFUSAL_ORDER: readonly Refusal[] = [
  'pragma',
  'attach',
  'vacuum',
  'transaction',
  'extension',
  'virtual-table',
  'other-database',
  'explain',
];
const OPFLAG_P2ISREG = 0x10;
const SCHEMA_ROOT = 1;

/**
 * Compiles `sql` on a fresh read-only connection to the shop and reads what SQLite says it does.
 * A fresh connection because compiling can itself change a connection (`PRAGMA query_only=0`
 * takes effect while it is prepared), and only a throw-away one may be changed that way.
 * Returns the refusal when the statement tries to leave the shop or to run the connection.
 */
export function inspect(shopFile: string, sql: string): Inspection | { refusal: Refusal } | { error: string } {
  const scratch = new BetterSqlite3(shopFile, { readonly: true, fileMustExist: true });
  try {
    // The eponymous virtual tables a read may use, as this connection knows them.
    const allowedVtabs = new Set([...vtabs(scratch, "SELECT * FROM json_each('[]'), json_tree('[]')")]);
    let statement: BetterSqlite3.Statement;
    let program: Op[];
    try {
      statement = scratch.prepare(sql);
    } catch (error) {
      return { error: error instanceof Error ? error.message : String(error) };
    }
    try {
      program = scratch.prepare(`EXPLAIN ${sql}`).all() as Op[];
    } catch {
      // It compiled on its own but not after EXPLAIN: it is an EXPLAIN itself.
      return { refusal: 'explain' };
    }
    const names = rootPages(scratch);
    const inspection: Inspection = {
      readonly: statement.readonly,
      reader: statement.reader,
      direct: [],
      writes: [],
      creates: false,
      drops: false,
      schema: false,
      varies: [],
    };
    const nondeterministic = nondeterministicFunctions(scratch);
    // The most telling reason wins (BEGIN IMMEDIATE also opens the temp database, say).
    const refusals = program.map((op) => refuse(op, allowedVtabs)).filter((r) => r !== undefined);
    const refusal = REFUSAL_ORDER.find((r) => refusals.includes(r));
    if (refusal) return { refusal };
    if (writesInternalRows(program, names)) return { refusal: 'internal-table' };
    let main = true;
    for (const [i, op] of program.entries()) {
      // EXPLAIN lists trigger programs after the statement's own, each starting again at 0.
      if (i > 0 && op.addr === 0) main = false;
      const written = writtenTable(op, names);
      if (written === SCHEMA) inspection.schema = true;
      else if (written !== undefined) {
        if (!inspection.writes.includes(written)) inspection.writes.push(written);
        if (main && !inspection.direct.includes(written)) inspection.direct.push(written);
      }
      if (op.opcode === 'CreateBtree') inspection.creates = true;
      const fn = op.opcode === 'Function' || op.opcode === 'PureFunc' ? functionName(op) : '';
      if (nondeterministic.has(fn) && !inspection.varies.includes(fn)) inspection.varies.push(fn);
      if (['Destroy', 'DropTable', 'DropIndex', 'DropTrigger'].includes(op.opcode)) inspection.drops = true;
    }
    // While a write runs, the temp database holds its own counting objects, named afresh every run:
    // a write reading it (`… WHERE id < (SELECT … FROM temp.sqlite_schema)`) does something else
    // every run, which no question could show. A read finds it empty (nothing is planted for one),
    // and a change to the schema reads it as SQLite's own upkeep (ALTER TABLE … RENAME renames
    // inside temp triggers too).
    if (!inspection.readonly && !inspection.schema && program.some((op) => op.opcode === 'OpenRead' && op.p3 === 1))
      return { refusal: 'other-database' };
    return inspection;
  } finally {
    scratch.close();
  }
}

const SCHEMA = Symbol('sqlite_schema');

/** SQLITE_DETERMINISTIC in `pragma_function_list`'s flags. */
const DETERMINISTIC = 0x800;
/**
 * Date and time functions SQLite marks deterministic because their value depends only on their
 * arguments — but an argument can be 'now', which a program's opcodes do not show.
 */
const CLOCK = ['date', 'time', 'datetime', 'julianday', 'strftime', 'unixepoch', 'timediff'];

let nondeterministicCache: Set<string> | undefined;
/** Functions whose value may differ between two runs on the same data (the same on every connection of this SQLite). */
function nondeterministicFunctions(db: BetterSqlite3.Database): Set<string> {
  nondeterministicCache ??= new Set([
    ...CLOCK,
    ...// Scalar functions only (an aggregate's value is its rows'); sqlite_version() and its kin are
    // unflagged but constant for a given build.
    (
      db
        .prepare(
          "SELECT DISTINCT name FROM pragma_function_list WHERE type = 's' AND (flags & ?) = 0 AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\'",
        )
        .pluck()
        .all(DETERMINISTIC) as string[]
    ).map((n) => n.toLowerCase()),
  ]);
  return nondeterministicCache;
}

/** A function opcode's function, as EXPLAIN names it in p4 (`random(0)`). */
function functionName(op: Op): string {
  return (op.p4 ?? '').replace(/\(.*$/, '').toLowerCase();
}

function refuse(op: Op, allowedVtabs: Set<string>): Refusal | undefined {
  switch (op.opcode) {
    case 'Expire':
      // sqlite3VdbeRunOnlyOnce(): every PRAGMA program starts with Expire(1, 1).
      return op.p1 === 1 && op.p2 === 1 ? 'pragma' : undefined;
    case 'Vacuum':
      return 'vacuum';
    case 'AutoCommit':
    case 'Savepoint':
      return 'transaction';
    case 'Transaction':
      // 0 is the shop, 1 is temp: ALTER TABLE ... RENAME opens it to rename inside temp triggers
      // (only this execution's own counters), so temp is judged by what is in it after the run (execute.ts).
      return op.p1 === 0 || op.p1 === 1 ? undefined : 'other-database';
    case 'VOpen':
      return op.p4 !== null && allowedVtabs.has(op.p4) ? undefined : 'virtual-table';
    case 'VCreate':
    case 'VDestroy':
    case 'VUpdate':
      return 'virtual-table';
    case 'Function':
    case 'PureFunc':
      return FORBIDDEN_FUNCTIONS[functionName(op)];
    default:
      return undefined;
  }
}

/** OPFLAG_NCHANGE: the row is one the statement changes (counted by `changes()`), not SQLite's bookkeeping. */
const OPFLAG_NCHANGE = 0x01;

/**
 * Whether any program (the statement's or a trigger's) inserts, updates or deletes rows of one of
 * SQLite's own tables as a statement's own change: `DELETE FROM sqlite_sequence`, `UPDATE
 * sqlite_stat1 …`. Those tables take no trigger, so no execution could count such a change (it was
 * kept unasked and reported as "no rows changed"). SQLite's own upkeep of them — an AUTOINCREMENT
 * insert moving its counter, ANALYZE, a DROP clearing their rows — is not flagged as a change and
 * runs as before.
 */
function writesInternalRows(program: readonly Op[], names: Map<number, string>): boolean {
  const internal = (root: number) => root !== SCHEMA_ROOT && /^sqlite_/i.test(names.get(root) ?? '');
  // Cursor → root page, per program: a trigger program numbers its cursors afresh.
  let cursors = new Map<number, number>();
  for (const [i, op] of program.entries()) {
    if (i > 0 && op.addr === 0) cursors = new Map();
    switch (op.opcode) {
      case 'OpenWrite':
        if (!(op.p5 & OPFLAG_P2ISREG)) cursors.set(op.p1, op.p2);
        break;
      case 'Insert':
        if (op.p5 & OPFLAG_NCHANGE && internal(cursors.get(op.p1) ?? 0)) return true;
        break;
      case 'Delete':
        if (op.p2 & OPFLAG_NCHANGE && internal(cursors.get(op.p1) ?? 0)) return true;
        break;
      case 'Clear':
        // A DELETE without WHERE counts what it clears (P3); ANALYZE's own clearing does not.
        if (op.p3 !== 0 && internal(op.p1)) return true;
        break;
    }
  }
  return false;
}

/** The table an opcode writes, if it writes one: by root page through the shop's own schema. */
function writtenTable(op: Op, names: Map<number, string>): string | typeof SCHEMA | undefined {
  const byRoot = (root: number) => (root === SCHEMA_ROOT ? SCHEMA : names.get(root));
  switch (op.opcode) {
    case 'OpenWrite':
      return op.p5 & OPFLAG_P2ISREG ? undefined : byRoot(op.p2);
    case 'Clear':
      return byRoot(op.p1);
    case 'Destroy':
      return byRoot(op.p1);
    default:
      return undefined;
  }
}

/** Root page → table name (an index's pages count as its table's). */
function rootPages(db: BetterSqlite3.Database): Map<number, string> {
  const rows = db.prepare('SELECT tbl_name, rootpage FROM sqlite_schema WHERE rootpage > 0').all() as {
    tbl_name: string;
    rootpage: number;
  }[];
  return new Map(rows.map((r) => [r.rootpage, r.tbl_name]));
}

function vtabs(db: BetterSqlite3.Database, sql: string): string[] {
  return (db.prepare(`EXPLAIN ${sql}`).all() as Op[]).filter((op) => op.opcode === 'VOpen').map((op) => op.p4 ?? '');
}
