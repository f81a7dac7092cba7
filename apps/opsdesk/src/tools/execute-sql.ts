import { field, form } from '@elicitkit/form';
import { defineTool, done, outcomeSchema, rejected, type ToolContext } from '@elicitkit/server';
import type { CallToolResult } from '@modelcontextprotocol/server';
import * as z from 'zod/v4';
import { type Deps, findCaller } from '../context.js';
import {
  inEachLocale,
  MESSAGES,
  type OpsdeskMessages,
  type SchemaChange,
  type ShownObject,
  type SqlConfirm,
  type TableChange,
} from '../messages/index.js';
import { type ShopClient, ShopError } from '../shop/client.js';
import {
  type Allowance,
  allowanceFor,
  type Beyond,
  type Execution,
  judge,
  type Limit,
  ROW_THRESHOLD,
  type SchemaObject,
  touchedIn,
} from '../shop/effect.js';
import type { Rows } from '../shop/run.js';
import { SHOP_TABLES } from '../shop/seed.js';
import { oneLine, shownWhole, type WholeBounds } from '../shorten.js';
import { SqlSyntaxError, statements, tokenize } from '../sql/tokenize.js';

/**
 * The most characters of a name the shop holds (a table, view, index, trigger or column: any
 * caller may have chosen it) that a person is shown; a longer one is shortened. A name shown
 * whole still fits the typed-name field (128), quoted.
 */
const NAME_MAX = 120;

/**
 * A name the shop holds as a person reads it — the statement's rule: on one line, its control
 * and bidi characters made visible, at most NAME_MAX characters (`oneLine`). Never more of
 * opsdesk's own sentences, whoever made the table.
 */
function shownName(name: string): string {
  return oneLine(name, NAME_MAX);
}

/**
 * The most of a statement a confirmation shows, and so the longest statement that can be
 * confirmed: it is shown whole, as it runs (`shownWhole`) — a statement cut or folded to fit could
 * hide a clause the person never sees (one behind a `--` comment once its line break is gone).
 */
export const STATEMENT_SHOWN: WholeBounds = { chars: 2_000, lines: 50 };

/** execute_sql: runs one statement on the demo shop (its own database); asks before anything that cannot be undone. */
export function executeSqlTool(deps: Deps) {
  const formsIn = inEachLocale((t) => ({ confirm: confirmForm(t) }));
  return defineTool({
    name: 'execute_sql',
    title: 'Run one SQL statement on the demo shop',
    description: `Run exactly one SQLite statement on the demo shop database (${SHOP_TABLES.join(', ')}). Reads return rows. DROP, schema changes, writes to every row of a table, or writes touching more than ${ROW_THRESHOLD} rows need the user to confirm by typing the table name.`,
    inputSchema: z.object({ sql: z.string().min(1).max(20_000).describe('One SQLite statement') }),
    outputSchema: outcomeSchema({
      columns: z.array(z.string()),
      rows: z.array(z.record(z.string(), z.unknown())),
      rowCount: z.number(),
      complete: z.boolean(),
      changes: z.number(),
      totalChanges: z.number(),
      table: z.string(),
      tables: z.array(z.string()),
    }),
    annotations: { destructiveHint: true },
    forms: formsIn(deps.locale),
    run: ({ sql }, ctx) => runStatement(deps, MESSAGES[ctx.locale], formsIn(ctx.locale).confirm, sql, ctx),
  });
}

/** The question before a statement that cannot be undone: the box ticked, and the table's name typed. */
function confirmForm(t: OpsdeskMessages) {
  return form({
    understood: field.boolean({ title: t.understoodTitle, default: false }),
    typedTableName: field.string({
      title: t.typedTableTitle,
      description: t.typedTableHelp,
      minLength: 1,
      maxLength: 128,
    }),
  });
}

type ConfirmForm = ReturnType<typeof confirmForm>;
type SqlContext = ToolContext<{ confirm: ConfirmForm }>;

/** One statement: its caller and count checked, the shop's look at it, then a read or a write. */
async function runStatement(
  { store, shop }: Deps,
  t: OpsdeskMessages,
  confirm: ConfirmForm,
  sql: string,
  ctx: SqlContext,
): Promise<CallToolResult> {
  // Asked again as the confirmed statement runs: an account removed while its question stood open
  // (over stdio the identity is the account, with no token to revoke) runs nothing.
  const removed = async () => !(await store.run(findCaller(ctx)));
  if (await removed()) return rejected(t.unknownCaller(ctx.user));
  // SQLite stops reading at a NUL and runs the text before it: `… WHERE id < 50\0 AND 0` would
  // run without its tail. Postgres refuses such text too. What runs must be what was sent.
  if (sql.includes('\u0000')) return rejected(t.nulInSql);
  // On Postgres the extended protocol takes one statement or refuses the text (and a function's
  // body may hold semicolons): the count is Postgres's to make.
  const notOne = shop.dialect === 'sqlite' ? notOneStatement(t, sql) : undefined;
  if (notOne) return notOne;

  const who = ctx.user ?? '';
  const seen = await shop.inspect(who, sql).catch((e: unknown) => e as Error);
  if (seen instanceof Error) return rejected(failureMessage(t, seen, shop.dialect));
  if ('error' in seen) return rejected(sqlError(t, seen.error, shop.dialect));
  if ('refusal' in seen) return rejected(t.refused[seen.refusal]);

  // A read returns rows and writes nothing; anything else (REINDEX too) takes the write path.
  if (seen.reader && seen.readonly && !seen.schema && seen.writes.length === 0) return readRows(shop, t, who, sql);
  return runWrite(shop, t, confirm, who, sql, ctx, removed);
}

/** Why `sql` is not exactly one statement, or undefined when it is. */
function notOneStatement(t: OpsdeskMessages, sql: string): CallToolResult | undefined {
  // The tokenizer only counts statements for a friendly message; SQLite refuses several anyway.
  let count: number;
  try {
    count = statements(tokenize(sql)).length;
  } catch (e) {
    return rejected(sqlError(t, e instanceof SqlSyntaxError ? e.message : String(e), 'sqlite'));
  }
  if (count !== 1) return rejected(count === 0 ? t.sqlError(t.emptySql, 'sqlite') : t.severalStatements(count));
  return undefined;
}

/** A read: its rows, capped, with the total. */
async function readRows(shop: ShopClient, t: OpsdeskMessages, who: string, sql: string): Promise<CallToolResult> {
  try {
    const rows = await shop.read(who, sql);
    const lines = rows.rows.map((r) => rows.columns.map((c) => cell(r[c])).join(' | '));
    const text = [t.rowsReturned(rows.count, rows.rows.length, rows.stopped), header(rows.columns), ...lines];
    return done(text.join('\n'), {
      columns: rows.columns,
      rows: rows.rows,
      rowCount: rows.count,
      complete: rows.complete,
    });
  } catch (e) {
    return rejected(failureMessage(t, e, shop.dialect));
  }
}

/**
 * A write runs once, measured, inside its own transaction: kept when it may run unasked,
 * otherwise rolled back and shown — what that very execution did — before anything is kept.
 */
async function runWrite(
  shop: ShopClient,
  t: OpsdeskMessages,
  confirm: ConfirmForm,
  who: string,
  sql: string,
  { ask, attempt, commit, user }: SqlContext,
  removed: () => Promise<boolean>,
): Promise<CallToolResult> {
  /** One execution within `limit`: its result when kept, what went beyond when not, or why it could not run. */
  const execute = async (limit: Limit) => {
    const ran = await shop.execute(who, sql, limit).catch((e: unknown) => e as Error);
    if (ran instanceof ShopError && ran.code === 'OUTCOME_UNKNOWN')
      return { ended: rejected(t.shopOutcomeUnknown, { outcome: 'unknown' }) };
    if (ran instanceof Error) return { ended: rejected(failureMessage(t, ran, shop.dialect)) };
    if ('refusal' in ran) return { ended: rejected(t.refused[ran.refusal]) };
    if ('error' in ran) return { ended: rejected(sqlError(t, ran.error, shop.dialect)) };
    return ran.kept ? { ended: keptResult(t, ran.execution) } : ran;
  };
  const first = await attempt<Execution>(async (withhold) => {
    const ran = await execute({ unasked: true });
    return 'ended' in ran ? ran.ended : withhold(ran.execution);
  });
  if (first.done) return first.result;
  const run = first.withheld;
  // The person confirms the statement as it runs, or is not asked: nothing was kept.
  const shown = shownWhole(sql, STATEMENT_SHOWN);
  if ('long' in shown) return rejected(t.statementTooLong(shown.long, STATEMENT_SHOWN));
  const allowance = allowanceFor(run);
  // The person types the name as the question shows it: the real name when it can be shown as it
  // is, else exactly its shown form (told so) — never a name the question did not show.
  const real = targetOf(run);
  const target = shownName(real);
  const answer = await ask('confirm', {
    message: t.confirmSql(confirmation(t, shown.text, run, allowance, real)),
    form: confirm,
    check: ({ understood, typedTableName }) => {
      const issues: { field: string; message: string }[] = [];
      if (!understood) issues.push({ field: 'understood', message: t.notUnderstood });
      if (!sameName(unquote(typedTableName), target))
        issues.push({ field: 'typedTableName', message: t.wrongTable(oneLine(typedTableName, 80), target) });
      return issues;
    },
  });
  if (answer.action !== 'accept') return answer.result();
  // Run again, measured again, and kept only within what the person confirmed: the same tables
  // and no more rows than shown (or than the bound stated), the same schema changes.
  return commit(async () => {
    if (await removed()) return rejected(t.unknownCaller(user));
    const ran = await execute({ allowed: allowance });
    return 'ended' in ran ? ran.ended : rejected(t.beyondConfirmed(shownBeyond(ran.beyond)));
  });
}

/** The database's refusal in its own words — which quote the caller's text — on one bounded line. */
function sqlError(t: OpsdeskMessages, detail: string, database: ShopClient['dialect']): string {
  return t.sqlError(oneLine(detail), database);
}

/** The database's reason, a statement stopped for running too long, too many waiting, a commit rolled back as its connection was lost, or the shop's process gone. */
function failureMessage(t: OpsdeskMessages, e: unknown, database: ShopClient['dialect']): string {
  return e instanceof ShopError && e.code === 'SQL_TIMEOUT'
    ? t.sqlTimeout(oneLine(e.message))
    : e instanceof ShopError && e.code === 'SQL_MEMORY' && e.limitBytes !== undefined
      ? t.sqlMemory(Math.round((e.limitBytes / 1024 / 1024) * 10) / 10)
      : e instanceof ShopError && e.code === 'TEMP_OBJECT'
        ? t.refused['other-database']
        : e instanceof ShopError && e.code === 'SHOP_BUSY'
          ? t.shopBusy
          : e instanceof ShopError && e.code === 'ROLLED_BACK'
            ? t.shopRolledBack
            : sqlError(t, e instanceof Error ? e.message : String(e), database);
}

/** The result of a kept execution: what it did, and the rows it returned. */
function keptResult(t: OpsdeskMessages, e: Execution): CallToolResult {
  const did = tableChanges(e);
  const text = t.changed(did.map(shownChange), schemaOf(e));
  const returned = e.returned;
  return done(returned.columns.length > 0 ? `${text}\n${header(returned.columns)}\n${rowsText(returned)}` : text, {
    changes: e.changes,
    totalChanges: did.reduce((n, c) => n + c.inserted + c.updated + c.deleted, 0),
    table: e.direct[0] ?? e.schema.removed[0]?.name ?? e.schema.added[0]?.name ?? e.schema.altered[0]?.name ?? '',
    tables: [...new Set([...e.direct, ...e.writes, ...did.map((c) => c.name)])],
    ...(returned.columns.length > 0
      ? { columns: returned.columns, rows: returned.rows, rowCount: returned.count, complete: returned.complete }
      : {}),
  });
}

/**
 * What the question shows: one run's effect, or — when the effect differs from run to run — the
 * bound. Every name in it as a person is shown it (`shownName`); the statement whole, as it runs.
 */
function confirmation(
  t: OpsdeskMessages,
  statement: string,
  e: Execution,
  allowance: Allowance,
  real: string,
): SqlConfirm {
  const schema = schemaOf(e);
  const target = shownName(real);
  const exact = target === real;
  if (allowance.stated) {
    const tables = Object.entries(allowance.tables).map(([name, rows]) => ({ name: shownName(name), rows }));
    return { target, exact, statement, schema, bound: { tables, sources: e.varies.map(shownName) } };
  }
  const judged = judge(e);
  const what = t.danger[judged?.danger ?? 'many-rows'](target, judged?.kind ?? 'table');
  return { what, target, exact, statement, did: tableChanges(e).map(shownChange), schema };
}

/** One table's change, its name as shown. */
function shownChange(c: TableChange): TableChange {
  return { ...c, name: shownName(c.name) };
}

/** Why the confirmed run went beyond what was shown, its names as shown. */
function shownBeyond(b: Beyond): Beyond {
  return 'table' in b ? { ...b, table: shownName(b.table) } : 'name' in b ? { ...b, name: shownName(b.name) } : b;
}

/**
 * The name the person types. A statement whose effect varies gets one that does not: the table it
 * names itself (another run may rewrite a whole table where this one did not).
 */
function targetOf(e: Execution): string {
  const judged = judge(e);
  if (e.varies.length > 0 && judged?.danger !== 'drop' && judged?.danger !== 'schema')
    return e.direct[0] ?? e.writes[0] ?? judged?.target ?? '';
  return judged?.target ?? e.direct[0] ?? '';
}

/** The tables an execution touched, the statement's own first. */
function tableChanges(e: Execution): TableChange[] {
  return Object.entries(e.tables)
    .filter(([name]) => touchedIn(e, name) > 0)
    .sort(([a], [b]) => Number(!e.direct.includes(a)) - Number(!e.direct.includes(b)))
    .map(([name, c]) => ({ name, inserted: c.inserted, updated: c.updated, deleted: c.deleted, before: c.before }));
}

function cell(v: unknown): string {
  return v === null || v === undefined ? 'NULL' : oneLine(String(v), 120);
}

/** The schema objects an execution added, removed or altered, their names as shown. */
function schemaOf(e: Execution): SchemaChange {
  const shown = (o: SchemaObject): ShownObject => ({ kind: o.type, name: shownName(o.name) });
  return {
    added: e.schema.added.map(shown),
    removed: e.schema.removed.map(shown),
    altered: e.schema.altered.map(shown),
  };
}

/** A result's column names (the caller's own `AS "…"` too) as one line of text. */
function header(columns: readonly string[]): string {
  return columns.map(shownName).join(' | ');
}

function rowsText(rows: Pick<Rows, 'columns' | 'rows'>): string {
  return rows.rows.map((r) => rows.columns.map((c) => cell(r[c])).join(' | ')).join('\n');
}

function unquote(name: string): string {
  const s = name.trim();
  const pairs: Record<string, string> = { '"': '"', '`': '`', '[': ']', "'": "'" };
  const close = pairs[s[0] ?? ''];
  return close && s.endsWith(close) && s.length >= 2 ? s.slice(1, -1) : s;
}

/**
 * Whether two names are one name to SQLite: letters compare without case in ASCII only
 * (`sqlite3StrICmp`), so `Äpfel` and `äpfel` are two tables — typing one never confirms the other.
 */
function sameName(a: string, b: string): boolean {
  const fold = (s: string) => s.replace(/[A-Z]/g, (c) => c.toLowerCase());
  return fold(a) === fold(b);
}
