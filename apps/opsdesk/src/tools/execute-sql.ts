import { field, form } from '@elicitkit/form';
import { defineTool, done, outcomeSchema, rejected } from '@elicitkit/server';
import type { Statement } from 'better-sqlite3';
import * as z from 'zod/v4';
import type { Deps } from '../context.js';
import type { Database } from '../db/open.js';
import { INTERNAL_TABLES, SHOP_TABLES } from '../db/schema.js';
import { strings } from '../i18n.js';
import { type Analysis, analyze, mentionedNames } from '../sql/analyze.js';
import { SqlSyntaxError, statements, tokenize } from '../sql/tokenize.js';

/** More affected rows than this makes a write dangerous (SPEC §4). */
export const ROW_THRESHOLD = 100;
const MAX_ROWS_SHOWN = 200;

type Danger = 'drop' | 'alter' | 'no-where' | 'many-rows';

interface Plan {
  statement: Statement;
  analysis: Exclude<Analysis, { kind: 'other' }>;
  /** The object the statement changes (for the typed confirmation). */
  target: string;
  /** Rows the statement changes, measured by running it in a savepoint that is rolled back. */
  changes: number;
  danger: Danger | undefined;
}

/** execute_sql: runs one statement on the demo shop; asks before anything that cannot be undone. */
export function executeSqlTool({ db, lang }: Deps) {
  const t = strings(lang);
  const confirmForm = form({
    understood: field.boolean({ title: t.understoodTitle, default: false }),
    typedTableName: field.string({
      title: t.typedTableTitle,
      description: t.typedTableHelp,
      minLength: 1,
      maxLength: 128,
    }),
  });
  return defineTool({
    name: 'execute_sql',
    title: 'Run one SQL statement on the demo shop',
    description: `Run exactly one SQLite statement on the demo shop (${SHOP_TABLES.join(', ')}). Reads return rows. DROP/ALTER, DELETE/UPDATE without WHERE, or writes touching more than ${ROW_THRESHOLD} rows need the user to confirm by typing the table name.`,
    inputSchema: z.object({ sql: z.string().min(1).max(20_000).describe('One SQLite statement') }),
    outputSchema: outcomeSchema({
      columns: z.array(z.string()),
      rows: z.array(z.record(z.string(), z.unknown())),
      rowCount: z.number(),
      changes: z.number(),
      table: z.string(),
    }),
    annotations: { destructiveHint: true },
    forms: { confirm: confirmForm },
    async run({ sql }, { ask, commit }) {
      const planned = plan(db, sql, t);
      if (typeof planned === 'string') return rejected(planned);
      if (planned.analysis.kind === 'read') return read(planned.statement, t);
      if (planned.danger) {
        const { target, changes, danger } = planned;
        const rows = danger === 'many-rows' || danger === 'no-where' ? t.rows(changes) : '';
        const answer = await ask('confirm', {
          message: t.dangerMessage(t.danger[danger] ?? danger, target, rows),
          check: ({ understood, typedTableName }) => {
            const issues: { field: string; message: string }[] = [];
            if (!understood) issues.push({ field: 'understood', message: t.notUnderstood });
            if (unquote(typedTableName).toLowerCase() !== target)
              issues.push({ field: 'typedTableName', message: t.wrongTable(typedTableName, target) });
            return issues;
          },
        });
        if (answer.action !== 'accept') return answer.result();
      }
      // A confirmed write runs once however often its last round is replayed, in one transaction
      // with its claim. `atomic` holds only while the shop lives in the claims' database, on this
      // connection: if the shop moves to a file of its own, drop `atomic` (claim, then write: at most
      // once) or ATTACH that file to this connection.
      return commit(() => write(db, planned, t), { atomic: true });
    },
  });
}

/** Everything decided before asking: no side effects (the dry run is rolled back). */
function plan(db: Database, sql: string, t: ReturnType<typeof strings>): Plan | string {
  let tokens: ReturnType<typeof tokenize>;
  try {
    tokens = tokenize(sql);
  } catch (e) {
    return t.sqlError(e instanceof SqlSyntaxError ? e.message : String(e));
  }
  const parts = statements(tokens);
  if (parts.length !== 1)
    return parts.length === 0 ? t.sqlError('the SQL is empty') : t.severalStatements(parts.length);
  const only = parts[0] ?? [];
  const internal = [...mentionedNames(only)].find((n) => (INTERNAL_TABLES as readonly string[]).includes(n));
  if (internal) return t.forbiddenTable(internal, SHOP_TABLES.join(', '));
  let statement: Statement;
  try {
    statement = db.prepare(sql);
  } catch (e) {
    // SQLite has the last word on validity (and refuses a second statement itself).
    return t.sqlError(e instanceof Error ? e.message : String(e));
  }
  let analysis: Analysis;
  try {
    analysis = analyze(only);
  } catch (e) {
    return t.sqlError(e instanceof Error ? e.message : String(e));
  }
  // PRAGMA, ATTACH, VACUUM, transactions and the like: opsdesk owns the connection.
  if (analysis.kind === 'other') return t.forbiddenStatement(analysis.verb);
  if (analysis.kind === 'read') {
    if (!statement.readonly) return t.sqlError('a read that writes is not supported');
    return { statement, analysis, target: '', changes: 0, danger: undefined };
  }
  const target = analysis.kind === 'write' ? analysis.table : analysis.name;
  const dry = measure(db, statement);
  if (typeof dry === 'string') return t.sqlError(dry);
  let danger: Danger | undefined;
  if (analysis.kind === 'schema' && analysis.verb === 'drop') danger = 'drop';
  else if (analysis.kind === 'schema' && analysis.verb === 'alter') danger = 'alter';
  else if (
    analysis.kind === 'write' &&
    (analysis.verb === 'update' || analysis.verb === 'delete') &&
    !analysis.hasWhere
  )
    danger = 'no-where';
  else if (dry > ROW_THRESHOLD) danger = 'many-rows';
  return { statement, analysis, target, changes: dry, danger };
}

/** Runs the statement inside a savepoint and rolls it back: how many rows it would change, or why it fails. */
function measure(db: Database, statement: Statement): number | string {
  db.exec('SAVEPOINT opsdesk_dry_run');
  try {
    return execute(db, statement);
  } catch (e) {
    return e instanceof Error ? e.message : String(e);
  } finally {
    db.exec('ROLLBACK TO opsdesk_dry_run');
    db.exec('RELEASE opsdesk_dry_run');
  }
}

function execute(db: Database, statement: Statement): number {
  if (statement.reader) {
    statement.all();
    return db.prepare('SELECT changes()').pluck().get() as number;
  }
  return statement.run().changes;
}

function write(db: Database, p: Plan, t: ReturnType<typeof strings>) {
  let changes: number;
  try {
    changes = db.transaction(() => execute(db, p.statement))();
  } catch (e) {
    return rejected(t.sqlError(e instanceof Error ? e.message : String(e)));
  }
  const text = p.analysis.kind === 'schema' ? t.schemaChanged(p.target) : t.changed(changes, p.target);
  return done(text, { changes, table: p.target });
}

function read(statement: Statement, t: ReturnType<typeof strings>) {
  const columns = statement.columns().map((c) => c.name);
  const rows: Record<string, unknown>[] = [];
  let count = 0;
  for (const row of statement.iterate() as Iterable<Record<string, unknown>>) {
    count++;
    if (rows.length < MAX_ROWS_SHOWN) rows.push(jsonRow(row));
  }
  const table = rows.map((r) => columns.map((c) => String(r[c] ?? 'NULL')).join(' | '));
  const text = [t.rowsReturned(count, rows.length), columns.join(' | '), ...table].join('\n');
  return done(text, { columns, rows, rowCount: count });
}

function jsonRow(row: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(row)) {
    out[k] =
      v instanceof Uint8Array ? `x'${Buffer.from(v).toString('hex')}'` : typeof v === 'bigint' ? v.toString() : v;
  }
  return out;
}

function unquote(name: string): string {
  const s = name.trim();
  const pairs: Record<string, string> = { '"': '"', '`': '`', '[': ']', "'": "'" };
  const close = pairs[s[0] ?? ''];
  return close && s.endsWith(close) && s.length >= 2 ? s.slice(1, -1) : s;
}
