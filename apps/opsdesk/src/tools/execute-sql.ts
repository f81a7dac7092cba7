import { field, form } from '@elicitkit/form';
import { defineTool, done, outcomeSchema, rejected } from '@elicitkit/server';
import * as z from 'zod/v4';
import { type Deps, findCaller } from '../context.js';
import { MESSAGES } from '../messages/index.js';
import { ShopError } from '../shop/client.js';
import type { WriteEffect } from '../shop/run.js';
import { SHOP_TABLES } from '../shop/seed.js';
import { oneLine } from '../shorten.js';
import { SqlSyntaxError, statements, tokenize } from '../sql/tokenize.js';

/** More affected rows than this makes a write dangerous (SPEC §4). */
const ROW_THRESHOLD = 100;

export type Danger = 'drop' | 'schema' | 'every-row' | 'many-rows';

/** What a write would do, decided before anything is asked (the dry run is rolled back). */
interface Plan {
  /** The object the typed confirmation must name. */
  target: string;
  effect: WriteEffect;
  /** Tables written beyond the statement's own (through triggers or foreign-key actions). */
  alsoWrites: string[];
  danger: Danger | undefined;
}

/** execute_sql: runs one statement on the demo shop (its own database); asks before anything that cannot be undone. */
export function executeSqlTool({ db, shop, locale }: Deps) {
  const t = MESSAGES[locale];
  // SQLite's reason, a statement stopped for running too long, or the shop's process gone.
  const failure = (e: unknown) =>
    e instanceof ShopError && e.code === 'SQL_TIMEOUT'
      ? t.sqlTimeout(e.message)
      : e instanceof ShopError && e.code === 'TEMP_OBJECT'
        ? t.refused['other-database']
        : t.sqlError(e instanceof Error ? e.message : String(e));
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
    forms: { confirm: confirmForm },
    async run({ sql }, { ask, commit, user }) {
      if (!findCaller(db, { user })) return rejected(t.unknownCaller(user));
      // The tokenizer only counts statements for a friendly message; SQLite refuses several anyway.
      let count: number;
      try {
        count = statements(tokenize(sql)).length;
      } catch (e) {
        return rejected(t.sqlError(e instanceof SqlSyntaxError ? e.message : String(e)));
      }
      if (count !== 1) return rejected(count === 0 ? t.sqlError(t.emptySql) : t.severalStatements(count));

      const seen = await shop.inspect(sql).catch((e: unknown) => e as Error);
      if (seen instanceof Error) return rejected(failure(seen));
      if ('error' in seen) return rejected(t.sqlError(seen.error));
      if ('refusal' in seen) return rejected(t.refused[seen.refusal]);

      // A read returns rows and writes nothing; anything else (REINDEX too) takes the write path.
      if (seen.reader && seen.readonly && !seen.schema && seen.writes.length === 0) {
        try {
          const rows = await shop.read(sql);
          const lines = rows.rows.map((r) => rows.columns.map((c) => cell(r[c])).join(' | '));
          const text = [t.rowsReturned(rows.count, rows.rows.length, rows.stopped), rows.columns.join(' | '), ...lines];
          return done(text.join('\n'), {
            columns: rows.columns,
            rows: rows.rows,
            rowCount: rows.count,
            complete: rows.complete,
          });
        } catch (e) {
          return rejected(failure(e));
        }
      }

      let plan: Plan;
      try {
        plan = decide(await shop.dryRun(sql, seen.direct), seen);
      } catch (e) {
        return rejected(failure(e));
      }
      // A write calling random() may touch other rows on its real run than on its trial: one
      // trial under the threshold says nothing about the next run, so it is confirmed whatever
      // the trial touched (a schema change is judged by what it does, which random() cannot move).
      const chance = seen.random && !seen.schema && plan.target !== '' && plan.danger === undefined;
      const judged = (p: Plan): Plan => (chance && p.danger === undefined ? { ...p, danger: 'many-rows' } : p);
      plan = judged(plan);
      if (plan.danger) {
        const { target, effect, alsoWrites } = plan;
        // A statement calling random() may touch a different number of rows on every run: its
        // question must not show a count (or a kind of change) that differs on every look, or on
        // 2026-07-28 it is a new question each round and can never be answered. A second trial
        // run tells whether the count really moves (random() in a SET list does not move it).
        let varies = false;
        try {
          if (seen.random) varies = !samePlan(judged(decide(await shop.dryRun(sql, seen.direct), seen)), plan);
        } catch (e) {
          return rejected(failure(e));
        }
        const danger = varies && plan.danger === 'every-row' ? 'many-rows' : plan.danger;
        const answer = await ask('confirm', {
          message: t.confirmSql({
            what: t.danger[danger](target),
            target,
            statement: oneLine(sql),
            rows: touched(effect),
            direct: effect.changes,
            tables: [...seen.direct, ...alsoWrites],
            alsoWrites,
            varies,
            chance,
          }),
          check: ({ understood, typedTableName }) => {
            const issues: { field: string; message: string }[] = [];
            if (!understood) issues.push({ field: 'understood', message: t.notUnderstood });
            if (unquote(typedTableName).toLowerCase() !== target.toLowerCase())
              issues.push({ field: 'typedTableName', message: t.wrongTable(oneLine(typedTableName, 80), target) });
            return issues;
          },
        });
        if (answer.action !== 'accept') return answer.result();
        // The person decided on what they were shown; if the shop moved meanwhile, that is not it.
        try {
          const now = decide(await shop.dryRun(sql, seen.direct), seen);
          // A count that varies on every run was never shown, so only the target can have moved.
          if (now.target !== target || (!varies && touched(now.effect) > touched(effect)))
            return rejected(t.shopChanged(touched(effect), touched(now.effect)));
        } catch (e) {
          return rejected(failure(e));
        }
      }
      // The write runs once however often its last round is replayed: claimed first, then run in the
      // shop's own process (its own database, so not in the claim's transaction — at most once, and a
      // replay of a write that was cut short mid-way hears its outcome is unknown rather than rerunning it).
      return commit(async () => {
        let effect: WriteEffect;
        try {
          effect = await shop.write(sql, seen.direct);
        } catch (e) {
          return rejected(failure(e));
        }
        const tables = [...new Set([...seen.direct, ...seen.writes])];
        const text =
          plan.target === ''
            ? t.ran
            : seen.schema
              ? t.schemaChanged(plan.target)
              : t.changed(effect.changes, plan.target, effect.total - effect.changes, plan.alsoWrites);
        const returned = effect.returned;
        return done(
          returned.columns.length > 0 ? `${text}\n${returned.columns.join(' | ')}\n${rowsText(returned)}` : text,
          {
            changes: effect.changes,
            totalChanges: effect.total,
            table: plan.target,
            tables,
            ...(returned.columns.length > 0
              ? {
                  columns: returned.columns,
                  rows: returned.rows,
                  rowCount: returned.count,
                  complete: returned.complete,
                }
              : {}),
          },
        );
      });
    },
  });
}

/** Whether (and why) a write must be confirmed, from what the dry run saw. */
function decide(
  effect: WriteEffect,
  seen: { direct: string[]; writes: string[]; creates: boolean; drops: boolean; schema: boolean },
): Plan {
  const alsoWrites = seen.writes.filter((w) => !seen.direct.includes(w));
  const { added, removed, altered } = effect.schema;
  if (seen.drops) return { target: removed[0] ?? seen.direct[0] ?? '', effect, alsoWrites, danger: 'drop' };
  if (seen.schema) {
    // A rename removes the old name and adds the new one (and alters what referred to it): the
    // object is the one the statement names, its old name.
    const target =
      (added.length > 0 && removed.length > 0 ? removed[0] : undefined) ?? altered[0] ?? added[0] ?? removed[0] ?? '';
    // A new table or index adds; anything else (ALTER, a view, a trigger) changes how the shop behaves.
    const additive = seen.creates && altered.length === 0 && removed.length === 0;
    return { target, effect, alsoWrites, danger: additive ? undefined : 'schema' };
  }
  const target = seen.direct[0] ?? '';
  const rows = effect.tables[target];
  const everyRow =
    rows !== undefined &&
    rows.before > 0 &&
    effect.changes >= rows.before &&
    (rows.after === 0 || rows.after === rows.before);
  const danger = everyRow ? 'every-row' : touched(effect) > ROW_THRESHOLD ? 'many-rows' : undefined;
  return { target, effect, alsoWrites, danger };
}

/** Whether two trial runs of one statement would ask the same question. */
function samePlan(a: Plan, b: Plan): boolean {
  return (
    a.target === b.target &&
    a.danger === b.danger &&
    touched(a.effect) === touched(b.effect) &&
    a.effect.changes === b.effect.changes
  );
}

/** Rows a write touches: those changed (triggers included), or those a DROP takes with it. */
function touched(effect: WriteEffect): number {
  const gone = Object.values(effect.tables).reduce((n, t) => n + Math.abs(t.after - t.before), 0);
  return Math.max(effect.total, gone);
}

function cell(v: unknown): string {
  return v === null || v === undefined ? 'NULL' : oneLine(String(v), 120);
}

function rowsText(rows: { columns: string[]; rows: Record<string, unknown>[] }): string {
  return rows.rows.map((r) => rows.columns.map((c) => cell(r[c])).join(' | ')).join('\n');
}

function unquote(name: string): string {
  const s = name.trim();
  const pairs: Record<string, string> = { '"': '"', '`': '`', '[': ']', "'": "'" };
  const close = pairs[s[0] ?? ''];
  return close && s.endsWith(close) && s.length >= 2 ? s.slice(1, -1) : s;
}
